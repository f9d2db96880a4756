// SPDX-License-Identifier: MIT
/*
 * Small HDF5 dataset writes that time themselves: N H5Dwrite calls of 8
 * doubles each into one chunked dataset. Reports as JSON the ns per
 * H5Dwrite and how many it made.   h5loop N FILE
 */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ITEMS 8

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv)
{
	hsize_t dims[1], maxdims[1] = { H5S_UNLIMITED }, chunk[1] = { 1024 };
	hsize_t start[1], count[1] = { ITEMS };
	double data[ITEMS] = { 0 }, t0, t1;
	hid_t file, space, mem, dset, dcpl;
	long n, calls = 0;

	if (argc != 3 || (n = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: h5loop N FILE\n");
		return 2;
	}
	dims[0] = (hsize_t)n * ITEMS;
	file = H5Fcreate(argv[2], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	space = H5Screate_simple(1, dims, maxdims);
	dcpl = H5Pcreate(H5P_DATASET_CREATE);
	H5Pset_chunk(dcpl, 1, chunk);
	dset = H5Dcreate2(file, "d", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT,
			  dcpl, H5P_DEFAULT);
	mem = H5Screate_simple(1, count, NULL);
	if (file < 0 || dset < 0)
		return 1;
	t0 = now_ns();
	for (long i = 0; i < n; i++) {
		start[0] = (hsize_t)i * ITEMS;
		H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count,
				    NULL);
		calls += H5Dwrite(dset, H5T_NATIVE_DOUBLE, mem, space,
				  H5P_DEFAULT, data) >= 0;
	}
	t1 = now_ns();
	H5Sclose(mem);
	H5Dclose(dset);
	H5Pclose(dcpl);
	H5Sclose(space);
	H5Fclose(file);
	printf("{\"mode\":\"h5dwrite\",\"calls\":%ld,\"ns_per_call\":%.1f}\n",
	       calls, (t1 - t0) / n);
	return calls == n ? 0 : 1;
}
