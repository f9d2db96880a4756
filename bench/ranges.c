// SPDX-License-Identifier: MIT
/*
 * ranges [-d] [-m] [-o JSON] TRACE N: the summary of TRACE read in N ranges
 * (dcr_trace_split(), one report per range with dcr_report_add_range(),
 * merged in file order, as a Dask task per range does), or whole for N 0.
 * Prints the process's CPU seconds (user + sys) and minor page faults:
 * of the split, of the last range alone (a range read by a process that
 * read others before, as a Dask worker does), and in all, with the peak
 * RSS. With -m only the first range is read (in a fresh process). -o
 * writes the JSON summary, -d keeps Darshan's counters.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "datacrumbs/report.h"

struct usage {
	double cpu;
	long minflt;
};

static struct usage usage(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (struct usage){
		.cpu = ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
		       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6,
		.minflt = ru.ru_minflt,
	};
}

static void print_since(const char *what, struct usage from)
{
	struct usage now = usage();

	printf("%s cpu %.3f minflt %ld\n", what, now.cpu - from.cpu,
	       now.minflt - from.minflt);
}

static int add_ranges(struct dcr_report *all, const char *path, int n,
		      int darshan, int first_only)
{
	uint64_t *offs = calloc(n + 1, sizeof(*offs));
	int last = first_only ? 0 : n - 1, err;
	struct usage u = usage();

	if (!offs)
		return -ENOMEM;
	err = dcr_trace_split(path, n, offs);
	print_since("split", u);
	for (int i = 0; !err && i <= last; i++) {
		struct dcr_report *part;

		if (i == last)
			u = usage();
		err = dcr_report_new(&part);
		if (err)
			break;
		err = dcr_report_set_darshan(part, darshan);
		if (!err)
			err = dcr_report_add_range(part, path, offs[i],
						   offs[i + 1]);
		if (!err)
			err = dcr_report_merge(all, part);
		dcr_report_free(part);
	}
	if (!err) {
		printf("range %d of %d, %llu bytes: ", last + 1, n,
		       (unsigned long long)(offs[last + 1] - offs[last]));
		print_since("", u);
	}
	free(offs);
	return err;
}

int main(int argc, char **argv)
{
	const char *out = NULL;
	int darshan = 0, first_only = 0, n, opt, err;
	struct dcr_report *r = NULL;
	struct rusage ru;
	char *json = NULL;
	size_t len;

	while ((opt = getopt(argc, argv, "dmo:")) != -1) {
		if (opt == 'd')
			darshan = 1;
		else if (opt == 'm')
			first_only = 1;
		else if (opt == 'o')
			out = optarg;
		else
			return 2;
	}
	if (argc - optind != 2) {
		fprintf(stderr, "usage: ranges [-d] [-m] [-o JSON] TRACE N\n");
		return 2;
	}
	n = atoi(argv[optind + 1]);
	err = dcr_report_new(&r);
	if (err)
		goto cleanup;
	err = dcr_report_set_darshan(r, darshan);
	if (!err)
		err = n > 0
			  ? add_ranges(r, argv[optind], n, darshan, first_only)
			  : dcr_report_add(r, argv[optind]);
	if (!err)
		err = dcr_report_finish(r);
	if (!err)
		err = dcr_report_render(r, DCR_JSON, 0, &json, &len);
	if (!err && out) {
		FILE *f = fopen(out, "w");

		if (!f || fwrite(json, 1, len, f) != len)
			err = -EIO;
		if (f && fclose(f))
			err = -EIO;
	}
	if (err)
		goto cleanup;
	print_since("total", (struct usage){});
	getrusage(RUSAGE_SELF, &ru);
	printf("maxrss_kb %ld events %llu\n", ru.ru_maxrss,
	       (unsigned long long)dcr_report_events(r));
cleanup:
	dcr_free(json);
	dcr_report_free(r);
	if (err)
		fprintf(stderr, "ranges: %s\n", strerror(-err));
	return !!err;
}
