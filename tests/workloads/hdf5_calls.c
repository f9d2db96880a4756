// SPDX-License-Identifier: MIT
/*
 * Known HDF5 calls on a known file, reported as JSON. Each write is 1 MiB,
 * larger than HDF5's sieve buffer, so it reaches pwrite at once and the
 * trace can nest it under H5Dwrite. Usage: hdf5_calls FILE
 */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>

#define N      (1 << 18) /* ints: 1 MiB */
#define WRITES 6
#define READS  4

int main(int argc, char **argv)
{
	hsize_t dims[1] = { N }, adims[1] = { 1 };
	hid_t file, grp, space, aspace, dset, attr;
	int *data, v = 42;

	if (argc != 2)
		return 2;
	data = calloc(N, sizeof(*data));
	if (!data)
		return 1;
	file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	grp = H5Gcreate2(file, "/grp", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	space = H5Screate_simple(1, dims, NULL);
	dset = H5Dcreate2(grp, "data", H5T_NATIVE_INT, space, H5P_DEFAULT,
			  H5P_DEFAULT, H5P_DEFAULT);
	for (int i = 0; i < WRITES; i++) {
		data[0] = i;
		if (H5Dwrite(dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL,
			     H5P_DEFAULT, data) < 0)
			return 1;
	}
	aspace = H5Screate_simple(1, adims, NULL);
	attr = H5Acreate2(dset, "version", H5T_NATIVE_INT, aspace, H5P_DEFAULT,
			  H5P_DEFAULT);
	H5Awrite(attr, H5T_NATIVE_INT, &v);
	H5Aclose(attr);
	H5Sclose(aspace);
	H5Dclose(dset);
	H5Sclose(space);
	H5Gclose(grp);
	H5Fflush(file, H5F_SCOPE_GLOBAL);
	H5Fclose(file);

	file = H5Fopen(argv[1], H5F_ACC_RDONLY, H5P_DEFAULT);
	dset = H5Dopen2(file, "/grp/data", H5P_DEFAULT);
	for (int i = 0; i < READS; i++)
		if (H5Dread(dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT,
			    data) < 0)
			return 1;
	H5Dclose(dset);
	H5Fclose(file);
	free(data);
	printf(
	    "{\"file\":\"%s\",\"H5Fcreate\":1,\"H5Fopen\":1,\"H5Fclose\":2,"
	    "\"H5Fflush\":1,\"H5Gcreate2\":1,\"H5Gclose\":1,\"H5Dcreate2\":1,"
	    "\"H5Dopen2\":1,\"H5Dwrite\":%d,\"H5Dread\":%d,\"H5Dclose\":2,"
	    "\"H5Acreate2\":1,\"H5Awrite\":1,\"H5Aclose\":1,\"bytes\":%d}\n",
	    argv[1], WRITES, READS, N * 4);
	return 0;
}
