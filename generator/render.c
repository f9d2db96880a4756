// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "render.h"
#include "roles.h"
#include "strpool.h"
#include "template.h"

/* Append @s as the body of a C string literal. */
static int c_escape(struct dc_buf *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = *s;
		int err;

		if (c == '"' || c == '\\')
			err = dc_buf_addf(out, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			err = dc_buf_addf(out, "\\%03o", c);
		else
			err = dc_buf_add(out, s, 1);
		if (err)
			return err;
	}
	return 0;
}

void dc_slots_of(const struct dc_spec_probe *p, struct dc_slots *s)
{
	memset(s, 0, sizeof(*s));
	s->fed = -1;
	for (int i = 0; i < p->nargs; i++) {
		if (p->arg_role[i] == DC_ROLE_NONE)
			continue;
		s->role[s->n] = p->arg_role[i];
		s->read[s->n] = p->arg_read[i];
		s->arg[s->n++] = i;
	}
	for (int i = 0; i < p->nmore && s->n < DC_CAPTURE; i++) {
		s->role[s->n] = p->more[i].role;
		s->read[s->n] = p->more[i].read;
		s->arg[s->n++] = p->more[i].arg;
	}
	if (p->fed && s->n < DC_CAPTURE) {
		s->fed = s->n;
		s->role[s->n++] = DC_ROLE_FED;
	}
	/* A late role is passed as the address of its word, which the call
	 * reads as it returns; a given one as its value. */
	for (int i = 0; i < p->npass && s->n < DC_CAPTURE; i++) {
		s->pass |= 1u << s->n;
		s->role[s->n] = p->pass[i].role;
		if (dc_role_is_late(p->pass[i].role))
			s->read[s->n].hops = 1;
		s->n++;
	}
}

bool dc_slots_read(const struct dc_slots *s)
{
	for (int i = 0; i < s->n; i++)
		if (s->read[i].hops || s->read[i].field[0])
			return true;
	return false;
}

/* How the MPI library @target's datatypes give their size. */
static int dtype_kind(const char *target)
{
	if (target && strstr(target, "mpich"))
		return DC_DTYPE_MPICH;
	if (target && strstr(target, "libmpi"))
		return DC_DTYPE_OMPI;
	return DC_DTYPE_NONE;
}

/* The slot of @ts, the call a feeder feeds, that takes the role @role
 * the feeder hands it, or -1. */
static int pass_slot(const struct dc_slots *ts, int role)
{
	for (int i = 0; ts && i < ts->n; i++)
		if ((ts->pass & 1u << i) && ts->role[i] == role)
			return i;
	return -1;
}

/* "{ A, B, C, D }, ..." for each slot's hops, 0 past its last. */
static int render_offs(struct dc_buf *out, const struct dc_slots *s)
{
	int err = 0;

	for (int i = 0; i < DC_CAPTURE && !err; i++)
		err = dc_buf_addf(out, "%s{ %d, %d, %d, %d }", i ? ", " : "",
				  s->read[i].off[0], s->read[i].off[1],
				  s->read[i].off[2], s->read[i].off[3]);
	return err ?: dc_buf_add(out, "", 1);
}

/* A USDT pair is two entries: the begin (@pair 1) pushes the call, the
 * end (@pair 2, right after it) completes it. @ts: the slots of the call
 * a feeder feeds, or NULL. */
static int render_capture(struct dc_buf *out, const struct dc_tmpl *tmpl,
			  const struct dc_spec_probe *p,
			  const struct dc_slots *s, int id, int feeds,
			  const struct dc_slots *ts, const char *target,
			  int pair)
{
	char ids[16], nslots[16], args[64], int_mask[16], path_slot[16],
	    ret_int[16], d_entry[16], d_exit[16], stream_slot[16],
	    ret_stream[16], dt_mask[16], dt_kind[16], s_mask[16], s_exit[16],
	    fed_slot[16], feeds_s[16], hops[64], text_s[16], opens_s[8],
	    ends_s[16], pass_s[16], pass_to[64], null_slot[16], null_arg[16],
	    null_hops[16], null_off[64];
	int mask = 0, path = -1, stream = -1, dentry = 0, dexit = 0, dtype = 0;
	int str = 0, str_exit = 0, text = 0, pass = 0, to[DC_CAPTURE];
	struct dc_buf offs = {};
	int err;

	for (int i = 0; i < DC_CAPTURE; i++)
		to[i] = -1;
	for (int i = 0; i < s->n; i++) {
		bool late = dc_role_is_late(s->role[i]);
		bool given = dc_role_is_given(s->role[i]);
		bool is_int = dc_role_is_int(s->role[i]);

		/* A feeder follows a late role's pointers as it enters (a
		 * structure it is given may be gone when the call it feeds
		 * returns) and passes the address of its word, which that
		 * call reads as it returns: what HDF5 settles meanwhile (on
		 * a feeder, deref_exit_mask). A given role the feeder reads
		 * whole as it enters. Either may end in a C int. */
		if (late && (s->pass & 1u << i)) {
			pass |= 1 << i;
			mask |= is_int << i;
		} else if (given && (s->pass & 1u << i)) {
			pass |= 1 << i;
		} else if (late || given) {
			pass |= 1 << i;
			to[i] = pass_slot(ts, s->role[i]);
			dentry |= 1 << i;
			dexit |= late << i;
			mask |= (given && is_int) << i;
		} else if (s->read[i].hops) {
			/* A word read through a pointer is whole, not a C
			 * int. */
			dentry |= 1 << i;
		} else if (dc_role_is_int(s->role[i]))
			mask |= 1 << i;
		/* Both strings travel in the event's path buffer. */
		if (dc_role_is_path(s->role[i]))
			path = i;
		if (s->role[i] == DC_ROLE_STREAM)
			stream = i;
		if (s->role[i] == DC_ROLE_HANDLE_REF)
			dentry |= 1 << i;
		if (s->role[i] == DC_ROLE_HANDLE_OUT)
			dexit |= 1 << i;
		if (s->role[i] == DC_ROLE_DATATYPE)
			dtype |= 1 << i;
		if (s->role[i] == DC_ROLE_STR)
			str |= 1 << i;
		if (s->role[i] == DC_ROLE_STR_OUT)
			str_exit |= 1 << i;
		if (s->role[i] == DC_ROLE_FUNC || s->role[i] == DC_ROLE_SRCFILE)
			text |= 1 << i;
	}
	snprintf(null_slot, sizeof(null_slot), "0");
	snprintf(null_arg, sizeof(null_arg), "0");
	snprintf(null_hops, sizeof(null_hops), "0");
	snprintf(null_off, sizeof(null_off), "0, 0, 0, 0");
	for (int i = 0; i < s->n; i++) {
		const struct dc_spec_read *r = &s->read[i];

		if (!r->if_null)
			continue;
		snprintf(null_slot, sizeof(null_slot), "%d", i + 1);
		snprintf(null_arg, sizeof(null_arg), "%d", r->null_arg);
		snprintf(null_hops, sizeof(null_hops), "%d", r->null_hops);
		snprintf(null_off, sizeof(null_off), "%d, %d, %d, %d",
			 r->null_off[0], r->null_off[1], r->null_off[2],
			 r->null_off[3]);
	}
	snprintf(text_s, sizeof(text_s), "0x%x", text);
	snprintf(opens_s, sizeof(opens_s), "%d", pair == 1);
	snprintf(ends_s, sizeof(ends_s), "%d", pair == 2 ? id : 0);
	snprintf(s_mask, sizeof(s_mask), "0x%x", str);
	snprintf(s_exit, sizeof(s_exit), "0x%x", str_exit);
	snprintf(dt_mask, sizeof(dt_mask), "0x%x", dtype);
	snprintf(dt_kind, sizeof(dt_kind), "%d",
		 dtype ? dtype_kind(target) : 0);
	snprintf(d_entry, sizeof(d_entry), "0x%x", dentry);
	snprintf(d_exit, sizeof(d_exit), "0x%x", dexit);
	snprintf(stream_slot, sizeof(stream_slot), "%d", stream);
	snprintf(ret_stream, sizeof(ret_stream), "%d", p->ret == DC_RET_STREAM);
	snprintf(ids, sizeof(ids), "%d", id);
	snprintf(nslots, sizeof(nslots), "%d", s->n);
	snprintf(args, sizeof(args), "%d, %d, %d, %d", s->arg[0], s->arg[1],
		 s->arg[2], s->arg[3]);
	snprintf(int_mask, sizeof(int_mask), "0x%x", mask);
	snprintf(path_slot, sizeof(path_slot), "%d", path);
	snprintf(fed_slot, sizeof(fed_slot), "%d", s->fed);
	snprintf(feeds_s, sizeof(feeds_s), "%d", feeds + 1);
	snprintf(hops, sizeof(hops), "%d, %d, %d, %d", s->read[0].hops,
		 s->read[1].hops, s->read[2].hops, s->read[3].hops);
	snprintf(pass_s, sizeof(pass_s), "0x%x", pass);
	snprintf(pass_to, sizeof(pass_to), "%d, %d, %d, %d", to[0], to[1],
		 to[2], to[3]);
	/* fd and status returns are C ints in the register's low half. */
	snprintf(ret_int, sizeof(ret_int), "%d",
		 p->ret == DC_RET_FD || p->ret == DC_RET_STATUS ||
		     p->ret == DC_RET_ISIZE || p->ret == DC_RET_CHAR);
	err = render_offs(&offs, s);
	const char *kv[] = { "ID",
			     ids,
			     "NSLOTS",
			     nslots,
			     "ARGS",
			     args,
			     "INT_MASK",
			     int_mask,
			     "PATH_SLOT",
			     path_slot,
			     "RET_INT",
			     ret_int,
			     "DEREF_ENTRY",
			     d_entry,
			     "DEREF_EXIT",
			     d_exit,
			     "STREAM_SLOT",
			     stream_slot,
			     "RET_STREAM",
			     ret_stream,
			     "NAME",
			     p->name,
			     "DTYPE_MASK",
			     dt_mask,
			     "DTYPE_KIND",
			     dt_kind,
			     "STR_MASK",
			     s_mask,
			     "STR_EXIT_MASK",
			     s_exit,
			     "FED_SLOT",
			     fed_slot,
			     "FEEDS",
			     feeds_s,
			     "DEREF_OFF",
			     err ? "" : offs.p,
			     "DEREF_HOPS",
			     hops,
			     "PASS_MASK",
			     pass_s,
			     "PASS_TO",
			     pass_to,
			     "TEXT_MASK",
			     text_s,
			     "OPENS",
			     opens_s,
			     "ENDS",
			     ends_s,
			     "NULL_SLOT",
			     null_slot,
			     "NULL_ARG",
			     null_arg,
			     "NULL_HOPS",
			     null_hops,
			     "NULL_OFF",
			     null_off,
			     NULL };
	err = err ?: dc_tmpl_expand(out, tmpl, kv);
	dc_buf_free(&offs);
	return err;
}

/* A USDT probe with an end: 1, else 0. */
static int usdt_pair(const struct dc_spec *spec, const struct dc_spec_probe *p)
{
	return spec->groups[p->group].mech == DC_MECH_USDT && p->end;
}

/* Store @s in the pool and append its offset to @out. */
static int add_str(struct dc_buf *out, struct dc_strpool *pool, const char *s,
		   const char *sep)
{
	uint32_t off;

	return dc_strpool_add(pool, s, &off)
		   ?: dc_buf_addf(out, "%s%u", sep, off);
}

static int render_desc(struct dc_buf *out, const struct dc_tmpl *tmpl,
		       struct dc_strpool *pool, const struct dc_spec *spec,
		       const struct dc_spec_probe *p, const struct dc_slots *s,
		       int id)
{
	const struct dc_spec_group *g = &spec->groups[p->group];
	bool tp = g->mech == DC_MECH_TRACEPOINT;
	char ids[16], mech[32], ret[32], effect[32], nslots[8], nr[16],
	    roles[64], args[64], size_slot[16], flags[80], place[96], skip[16],
	    ret_at[16], moved[8];
	const struct dc_spec_place *pl = &p->place;
	bool named = false;
	struct dc_buf str[9] = {}, fields = {}, keys = {}, alt = {};
	const char *src[9] = { p->name,
			       p->symbol,
			       g->layer,
			       tp	   ? p->event
			       : g->target ? g->target
					   : "",
			       g->path,
			       p->end ? p->end : "",
			       g->builds ? g->builds : "",
			       "",
			       pl->known ? g->build : "" };
	int err = 0, size = -1;

	for (int i = 0; i < p->nalts && !err; i++)
		err = dc_buf_addf(&alt, "%s%s", i ? "," : "", p->alts[i]);
	src[7] = alt.p ? alt.p : "";

	/* A tracepoint's record fields; a uprobe's fields by DWARF. */
	for (int i = 0; i < DC_CAPTURE && !err; i++) {
		if (i < p->nfields && p->size_field &&
		    !strcmp(p->fields[i], p->size_field))
			size = i;
		err = add_str(&fields, pool,
			      i < p->nfields ? p->fields[i]
			      : i < s->n     ? s->read[i].field
					     : "",
			      i ? ", " : "");
	}
	for (int i = 0; i < DC_TP_KEYS && !err; i++)
		err = add_str(&keys, pool, i < p->nkeys ? p->keys[i] : "",
			      i ? ", " : "");
	err = err ?: dc_buf_add(&fields, "", 1) ?: dc_buf_add(&keys, "", 1);
	snprintf(size_slot, sizeof(size_slot), "%d", size);
	for (int i = 0; i < s->n && !tp; i++)
		named |= s->read[i].field[0] != '\0';
	snprintf(flags, sizeof(flags), "%s | %s | %s",
		 p->optional ? "DC_PROBE_OPTIONAL" : "0",
		 named ? "DC_PROBE_FIELDS" : "0",
		 !tp && dc_slots_read(s) ? "DC_PROBE_READS" : "0");

	snprintf(place, sizeof(place), "%s%s%s%s",
		 pl->known ? "DC_PLACE_KNOWN" : "0",
		 pl->via_sys ? " | DC_PLACE_SYS" : "",
		 pl->tail ? " | DC_PLACE_TAIL" : "",
		 pl->pp.slow ? " | DC_PLACE_SLOW" : "");
	snprintf(skip, sizeof(skip), "%u", pl->pp.skip);
	snprintf(ret_at, sizeof(ret_at), "%u", pl->pp.ret_at);
	snprintf(moved, sizeof(moved), "%u", pl->pp.moved);
	snprintf(ids, sizeof(ids), "%d", id);
	snprintf(mech, sizeof(mech), "%d /* %s */", g->mech,
		 dc_mech_name(g->mech));
	snprintf(ret, sizeof(ret), "%d /* %s */", p->ret, dc_ret_name(p->ret));
	snprintf(effect, sizeof(effect), "%d /* %s */", p->effect,
		 dc_effect_name(p->effect));
	snprintf(nslots, sizeof(nslots), "%d", tp ? p->nfields : s->n);
	snprintf(nr, sizeof(nr), "%d", dc_mech_numbered(g->mech) ? p->nr : -1);
	snprintf(roles, sizeof(roles), "%d, %d, %d, %d", s->role[0], s->role[1],
		 s->role[2], s->role[3]);
	snprintf(args, sizeof(args), "%d, %d, %d, %d", s->arg[0], s->arg[1],
		 s->arg[2], s->arg[3]);
	for (int i = 0; i < 9 && !err; i++)
		err = add_str(&str[i], pool, src[i], "")
			  ?: dc_buf_add(&str[i], "", 1);
	if (!err) {
		const char *kv[] = { "ID",	  ids,	     "MECH",   mech,
				     "RET",	  ret,	     "NSLOTS", nslots,
				     "NR",	  nr,	     "ROLES",  roles,
				     "ARGS",	  args,	     "NAME",   str[0].p,
				     "SYMBOL",	  str[1].p,  "LAYER",  str[2].p,
				     "TARGET",	  str[3].p,  "PATH",   str[4].p,
				     "END",	  str[5].p,  "ALT",    str[7].p,
				     "FIELDS",	  fields.p,  "KEYS",   keys.p,
				     "SIZE_SLOT", size_slot, "EFFECT", effect,
				     "BUILDS",	  str[6].p,  "FLAGS",  flags,
				     "BUILD",	  str[8].p,  "PLACE",  place,
				     "SKIP",	  skip,	     "RET_AT", ret_at,
				     "MOVED",	  moved,     NULL };
		err = dc_tmpl_expand(out, tmpl, kv);
	}
	for (int i = 0; i < 9; i++)
		dc_buf_free(&str[i]);
	dc_buf_free(&alt);
	dc_buf_free(&fields);
	dc_buf_free(&keys);
	return err;
}

/* The pool as C string literals, one string a line after its offset. */
static int render_strings(struct dc_buf *out, const struct dc_strpool *pool)
{
	int err = 0;

	for (size_t off = 0; off < pool->s.len && !err;) {
		const char *s = pool->s.p + off;

		err = dc_buf_addf(out, "\t\t/* %zu */ \"", off) ?:
		      c_escape(out, s) ?: dc_buf_adds(out, "\\000\"\n");
		off += strlen(s) + 1;
	}
	/* No newline before the template's closing comma. */
	if (!err)
		out->len--;
	return err ?: dc_buf_add(out, "", 1);
}

int dc_render(const struct dc_spec *spec, const char *tmpl_dir,
	      const char *sources, struct dc_buf *out)
{
	struct dc_tmpl t_obj = {}, t_cap = {}, t_desc = {};
	struct dc_buf caps = {}, descs = {}, sysnr = {}, uring = {},
		      libaio = {}, paio = {}, strings = {}, tps = {};
	char nprobes_s[16], caps_size_s[16], strings_size_s[16];
	struct dc_strpool pool = {};
	int nprobes = 0, caps_size = 1, err;
	int *ids = calloc(spec->nprobes ? spec->nprobes : 1, sizeof(*ids));
	struct dc_slots s, ts;

	if (!ids)
		return -ENOMEM;
	/* Ids first: a feeder names the id of the call it feeds. */
	for (size_t i = 0; i < spec->nprobes; i++) {
		const struct dc_spec_probe *p = &spec->probes[i];

		ids[i] = p->alias_of >= 0 || p->pattern ||
				 spec->groups[p->group].skipped
			     ? -1
			     : nprobes++;
		nprobes += ids[i] >= 0 && usdt_pair(spec, p);
	}
	nprobes = 0;
	err = dc_tmpl_read(&t_obj, tmpl_dir, "object.bpf.c.in") ?:
	      dc_tmpl_read(&t_cap, tmpl_dir, "capture.c.in") ?:
	      dc_tmpl_read(&t_desc, tmpl_dir, "probe_desc.c.in");
	for (size_t i = 0; i < spec->nprobes && !err; i++) {
		const struct dc_spec_probe *p = &spec->probes[i];
		int mech = spec->groups[p->group].mech;
		struct dc_buf *table;

		/* Another name of a function already probed, or a library
		 * not installed here (--skip-missing). */
		if (p->alias_of >= 0 || p->pattern ||
		    spec->groups[p->group].skipped)
			continue;
		dc_slots_of(p, &s);
		if (p->feeds_idx >= 0)
			dc_slots_of(&spec->probes[p->feeds_idx], &ts);
		err = render_capture(&caps, &t_cap, p, &s, nprobes,
				     p->feeds_idx >= 0 ? ids[p->feeds_idx] : -1,
				     p->feeds_idx >= 0 ? &ts : NULL,
				     spec->groups[p->group].target,
				     usdt_pair(spec, p))
			  ?: render_desc(&descs, &t_desc, &pool, spec, p, &s,
					 nprobes);
		if (!err && usdt_pair(spec, p)) {
			/* The end: its own entry, named by its probe. */
			struct dc_spec_probe e = *p;

			e.name = e.symbol = p->end;
			e.end = NULL;
			err = render_capture(&caps, &t_cap, &e, &s, ++nprobes,
					     -1, NULL,
					     spec->groups[p->group].target, 2)
				  ?: render_desc(&descs, &t_desc, &pool, spec,
						 &e, &s, nprobes);
		}
		/* Numbered probes: their number's entry in its table. */
		table = mech == DC_MECH_SYSCALL	   ? &sysnr
			: mech == DC_MECH_IO_URING ? &uring
			: mech == DC_MECH_LIBAIO   ? &libaio
			: mech == DC_MECH_POSIXAIO ? &paio
						   : NULL;
		if (!err && table)
			err = dc_buf_addf(table, "\t[%d] = %d, /* %s */\n",
					  p->nr, nprobes + 1, p->name);
		/* Kernels without BPF cookies: a program a tracepoint
		 * side, its cookie (probe * 2 + side) built in. */
		for (int side = 0; !err && mech == DC_MECH_TRACEPOINT &&
				   side < (p->end ? 2 : 1);
		     side++)
			err =
			    dc_buf_addf(&tps, "DC_TRACEPOINT_AS(%d) /* %s */\n",
					nprobes * 2 + side, p->name);
		nprobes++;
	}
	if (err)
		goto cleanup;
	if (!nprobes) {
		dc_err("no probes to generate");
		err = -EINVAL;
		goto cleanup;
	}
	snprintf(nprobes_s, sizeof(nprobes_s), "%d", nprobes);
	while (caps_size < nprobes)
		caps_size *= 2;
	snprintf(caps_size_s, sizeof(caps_size_s), "%d", caps_size);
	if (dc_buf_add(&caps, "", 1) || dc_buf_add(&descs, "", 1) ||
	    dc_buf_add(&sysnr, "", 1) || dc_buf_add(&uring, "", 1) ||
	    dc_buf_add(&libaio, "", 1) || dc_buf_add(&paio, "", 1) ||
	    dc_buf_add(&tps, "", 1)) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = render_strings(&strings, &pool);
	if (err)
		goto cleanup;
	snprintf(strings_size_s, sizeof(strings_size_s), "%zu", pool.s.len);
	const char *kv[] = {
		"CAPS_SIZE", caps_size_s, "SOURCES",	  sources,
		"NPROBES",   nprobes_s,	  "CAPTURES",	  caps.p,
		"SYSNR",     sysnr.p,	  "PROBES",	  descs.p,
		"STRINGS",   strings.p,	  "STRINGS_SIZE", strings_size_s,
		"URING",     uring.p,	  "LIBAIO",	  libaio.p,
		"POSIXAIO",  paio.p,	  "TRACEPOINTS",  tps.p,
		NULL
	};
	err = dc_tmpl_expand(out, &t_obj, kv);
cleanup:
	free(ids);
	dc_tmpl_free(&t_obj);
	dc_tmpl_free(&t_cap);
	dc_tmpl_free(&t_desc);
	dc_buf_free(&caps);
	dc_buf_free(&descs);
	dc_buf_free(&sysnr);
	dc_buf_free(&uring);
	dc_buf_free(&libaio);
	dc_buf_free(&paio);
	dc_buf_free(&tps);
	dc_buf_free(&strings);
	dc_strpool_free(&pool);
	return err;
}
