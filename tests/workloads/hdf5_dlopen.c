// SPDX-License-Identifier: MIT
/*
 * Known HDF5 calls made through a copy of libhdf5 that is dlopen()ed by
 * its path once running, reported as JSON with the file the loader
 * mapped. Built without libhdf5, so nothing maps HDF5 before the
 * dlopen(). HDF5 1.10's ABI: hid_t is 64 bits. Usage: hdf5_dlopen LIB FILE
 */
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N      (1 << 16) /* ints: 256 KiB */
#define WRITES 7
#define READS  3

#define H5F_ACC_RDONLY 0u
#define H5F_ACC_TRUNC  2u
#define H5P_DEFAULT    0
#define H5S_ALL	       0

typedef int64_t hid_t;
typedef unsigned long long hsize_t;

struct h5 {
	int (*open)(void);
	hid_t (*fcreate)(const char *, unsigned, hid_t, hid_t);
	hid_t (*fopen)(const char *, unsigned, hid_t);
	int (*fclose)(hid_t);
	hid_t (*screate)(int, const hsize_t *, const hsize_t *);
	int (*sclose)(hid_t);
	hid_t (*dcreate)(hid_t, const char *, hid_t, hid_t, hid_t, hid_t,
			 hid_t);
	hid_t (*dopen)(hid_t, const char *, hid_t);
	int (*dwrite)(hid_t, hid_t, hid_t, hid_t, hid_t, const void *);
	int (*dread)(hid_t, hid_t, hid_t, hid_t, hid_t, void *);
	int (*dclose)(hid_t);
	hid_t *native_int;
};

static int find(void *h, struct h5 *f)
{
	void **slot[] = {
		(void **)&f->open,    (void **)&f->fcreate,
		(void **)&f->fopen,   (void **)&f->fclose,
		(void **)&f->screate, (void **)&f->sclose,
		(void **)&f->dcreate, (void **)&f->dopen,
		(void **)&f->dwrite,  (void **)&f->dread,
		(void **)&f->dclose,  (void **)&f->native_int,
	};
	static const char *const name[] = {
		"H5open",     "H5Fcreate",	  "H5Fopen",
		"H5Fclose",   "H5Screate_simple", "H5Sclose",
		"H5Dcreate2", "H5Dopen2",	  "H5Dwrite",
		"H5Dread",    "H5Dclose",	  "H5T_NATIVE_INT_g",
	};

	for (size_t i = 0; i < sizeof(name) / sizeof(*name); i++) {
		*slot[i] = dlsym(h, name[i]);
		if (!*slot[i])
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	hsize_t dims[1] = { N };
	struct link_map *m;
	hid_t file, space, dset;
	struct h5 f;
	int *data;
	void *h;

	if (argc != 3)
		return 2;
	h = dlopen(argv[1], RTLD_NOW);
	data = calloc(N, sizeof(*data));
	if (!h || !data || dlinfo(h, RTLD_DI_LINKMAP, &m) || find(h, &f) ||
	    f.open() < 0)
		return 1;
	file = f.fcreate(argv[2], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	space = f.screate(1, dims, NULL);
	dset = f.dcreate(file, "data", *f.native_int, space, H5P_DEFAULT,
			 H5P_DEFAULT, H5P_DEFAULT);
	for (int i = 0; i < WRITES; i++) {
		data[0] = i;
		if (f.dwrite(dset, *f.native_int, H5S_ALL, H5S_ALL, H5P_DEFAULT,
			     data) < 0)
			return 1;
	}
	f.dclose(dset);
	f.sclose(space);
	f.fclose(file);
	file = f.fopen(argv[2], H5F_ACC_RDONLY, H5P_DEFAULT);
	dset = f.dopen(file, "data", H5P_DEFAULT);
	for (int i = 0; i < READS; i++)
		if (f.dread(dset, *f.native_int, H5S_ALL, H5S_ALL, H5P_DEFAULT,
			    data) < 0)
			return 1;
	f.dclose(dset);
	f.fclose(file);
	free(data);
	printf(
	    "{\"lib\":\"%s\",\"file\":\"%s\",\"H5Fcreate\":1,\"H5Dcreate2\":1,"
	    "\"H5Dwrite\":%d,\"H5Dread\":%d,\"bytes\":%d}\n",
	    m->l_name, argv[2], WRITES, READS, N * 4);
	return 0;
}
