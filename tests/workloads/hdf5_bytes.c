// SPDX-License-Identifier: MIT
/*
 * HDF5 dataset writes and reads whose bytes are known, printed as JSON in
 * call order: {"file": ..., "calls": [["H5Dwrite", BYTES, DATASET], ...]}.
 * Bytes (and the dataset each call is on) are counted as Darshan counts
 * them: elements selected times the size of the dataset's type. The calls
 * cover a contiguous dataset written whole, a memory type the file stores
 * converted (double to float), a chunked dataset written through a
 * hyperslab across chunks, a compact dataset, partial reads with and
 * without conversion, and an empty selection. Usage: hdf5_bytes FILE
 */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>

#define N 4096

static int ncalls;

static void say(const char *name, hsize_t bytes, const char *dset)
{
	printf("%s[\"%s\",%llu,\"%s\"]", ncalls++ ? "," : "", name,
	       (unsigned long long)bytes, dset);
}

static int check(herr_t r)
{
	if (r < 0)
		exit(1);
	return 0;
}

int main(int argc, char **argv)
{
	hsize_t dims[1] = { N }, chunk[1] = { 512 }, start[1], count[1];
	hid_t file, space, sel, dcpl, ccpl, contig, conv, chunked, compact;
	double *d = calloc(N, sizeof(double));
	int *v = calloc(N, sizeof(int));

	if (argc != 2 || !d || !v)
		return 2;
	file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	space = H5Screate_simple(1, dims, NULL);
	printf("{\"file\":\"%s\",\"calls\":[", argv[1]);

	contig = H5Dcreate2(file, "ints", H5T_NATIVE_INT, space, H5P_DEFAULT,
			    H5P_DEFAULT, H5P_DEFAULT);
	for (int i = 0; i < 3; i++) {
		check(H5Dwrite(contig, H5T_NATIVE_INT, H5S_ALL, H5S_ALL,
			       H5P_DEFAULT, v));
		say("H5Dwrite", N * sizeof(int), "/ints");
	}

	/* Stored as float, written from doubles: the file holds 4 bytes an
	 * element. */
	conv = H5Dcreate2(file, "floats", H5T_NATIVE_FLOAT, space, H5P_DEFAULT,
			  H5P_DEFAULT, H5P_DEFAULT);
	check(H5Dwrite(conv, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
		       d));
	say("H5Dwrite", N * sizeof(float), "/floats");

	/* 1,000 elements from 300: three chunks of 512 take part. */
	dcpl = H5Pcreate(H5P_DATASET_CREATE);
	H5Pset_chunk(dcpl, 1, chunk);
	chunked = H5Dcreate2(file, "chunked", H5T_NATIVE_DOUBLE, space,
			     H5P_DEFAULT, dcpl, H5P_DEFAULT);
	start[0] = 300;
	count[0] = 1000;
	sel = H5Screate_simple(1, count, NULL);
	check(H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count,
				  NULL));
	check(H5Dwrite(chunked, H5T_NATIVE_DOUBLE, sel, space, H5P_DEFAULT, d));
	say("H5Dwrite", 1000 * sizeof(double), "/chunked");

	/* An empty selection moves nothing. */
	check(H5Sselect_none(space));
	check(H5Sselect_none(sel));
	check(H5Dwrite(chunked, H5T_NATIVE_DOUBLE, sel, space, H5P_DEFAULT, d));
	say("H5Dwrite", 0, "/chunked");
	check(H5Sselect_all(space));

	ccpl = H5Pcreate(H5P_DATASET_CREATE);
	H5Pset_layout(ccpl, H5D_COMPACT);
	dims[0] = 100;
	H5Sset_extent_simple(sel, 1, dims, NULL);
	check(H5Sselect_all(sel));
	compact = H5Dcreate2(file, "compact", H5T_NATIVE_INT, sel, H5P_DEFAULT,
			     ccpl, H5P_DEFAULT);
	check(H5Dwrite(compact, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT,
		       v));
	say("H5Dwrite", 100 * sizeof(int), "/compact");

	/* Reads: all as stored, floats into doubles, part of the chunks. */
	check(
	    H5Dread(contig, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v));
	say("H5Dread", N * sizeof(int), "/ints");
	check(
	    H5Dread(conv, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, d));
	say("H5Dread", N * sizeof(float), "/floats");
	start[0] = 1000;
	count[0] = 700;
	dims[0] = 700;
	H5Sset_extent_simple(sel, 1, dims, NULL);
	check(H5Sselect_all(sel));
	check(H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count,
				  NULL));
	check(H5Dread(chunked, H5T_NATIVE_DOUBLE, sel, space, H5P_DEFAULT, d));
	say("H5Dread", 700 * sizeof(double), "/chunked");
	check(
	    H5Dread(compact, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v));
	say("H5Dread", 100 * sizeof(int), "/compact");

	H5Dclose(compact);
	H5Dclose(chunked);
	H5Dclose(conv);
	H5Dclose(contig);
	H5Pclose(ccpl);
	H5Pclose(dcpl);
	H5Sclose(sel);
	H5Sclose(space);
	H5Fclose(file);
	printf("]}\n");
	free(d);
	free(v);
	return 0;
}
