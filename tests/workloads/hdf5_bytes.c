// SPDX-License-Identifier: MIT
/*
 * HDF5 dataset writes and reads whose bytes are known, printed as JSON in
 * call order: {"file": ..., "calls": [["H5Dwrite", BYTES, DATASET, KIND],
 * ...]}. Bytes (and the dataset each call is on) are counted as Darshan
 * counts them: elements selected times the size of the dataset's type;
 * KIND is the file selection's as Darshan counts it: "regular" or
 * "irregular" (hyperslabs), "point", or "" (all or none). The calls cover
 * a contiguous dataset written whole, a memory type the file stores
 * converted (double to float), a chunked dataset written through a
 * hyperslab across chunks, a compact dataset, partial reads with and
 * without conversion, an empty selection, and on a 2-D dataset a strided
 * hyperslab, a union of two blocks, points, an explicit 'all' and a
 * block less another (regular, which HDF5 finds out only while it
 * writes), and a read of points on another. Every dataset is read once.
 * Usage: hdf5_bytes FILE
 */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>

#define N 4096

static int ncalls;

static void say(const char *name, hsize_t bytes, const char *dset,
		const char *kind)
{
	printf("%s[\"%s\",%llu,\"%s\",\"%s\"]", ncalls++ ? "," : "", name,
	       (unsigned long long)bytes, dset, kind);
}

static int check(herr_t r)
{
	if (r < 0)
		exit(1);
	return 0;
}

/* Write @n elements of @v to @dset through file selection @fsel. */
static void grid_write(hid_t dset, hid_t fsel, hsize_t n, const int *v,
		       const char *kind)
{
	hid_t mem = H5Screate_simple(1, &n, NULL);

	check(H5Dwrite(dset, H5T_NATIVE_INT, mem, fsel, H5P_DEFAULT, v));
	say("H5Dwrite", n * sizeof(int), "/grid", kind);
	H5Sclose(mem);
}

/* A 64 x 32 dataset of ints through each kind of selection, the sizes
 * all different so that each is its own common access size. */
static void grid_calls(hid_t file, int *v)
{
	hsize_t dims[2] = { 64, 32 }, start[2] = { 2, 4 }, stride[2] = { 4, 2 },
		count[2] = { 5, 6 }, block[2] = { 2, 1 }, a[2] = { 0, 0 },
		a_n[2] = { 3, 3 }, b[2] = { 10, 5 }, b_n[2] = { 2, 4 },
		wide[2] = { 8, 12 }, mid[2] = { 0, 4 }, mid_n[2] = { 8, 4 },
		all = 64 * 32, n = 17;
	hsize_t pts[10] = { 1, 1, 7, 3, 20, 30, 63, 0, 40, 17 };
	hid_t space = H5Screate_simple(2, dims, NULL), mem;
	hid_t grid = H5Dcreate2(file, "grid", H5T_NATIVE_INT, space,
				H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);

	check(H5Dwrite(grid, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v));
	say("H5Dwrite", all * sizeof(int), "/grid", "");
	/* 5 x 6 blocks of 2 x 1, every 4th row and 2nd column: 60. */
	check(H5Sselect_hyperslab(space, H5S_SELECT_SET, start, stride, count,
				  block));
	grid_write(grid, space, 60, v, "regular");
	/* Two blocks no one start, stride, count and block make: 17. */
	check(H5Sselect_hyperslab(space, H5S_SELECT_SET, a, NULL, a_n, NULL));
	check(H5Sselect_hyperslab(space, H5S_SELECT_OR, b, NULL, b_n, NULL));
	grid_write(grid, space, 17, v, "irregular");
	check(H5Sselect_elements(space, H5S_SELECT_SET, 5, pts));
	grid_write(grid, space, 5, v, "point");
	/* The whole dataset named by a dataspace, not H5S_ALL: the kind is
	 * 'all', which Darshan counts in none of its selection counters. */
	check(H5Sselect_all(space));
	grid_write(grid, space, all, v, "");
	/* An 8 x 12 block less its middle 8 x 4: two 8 x 4 blocks 8 apart,
	 * regular, but HDF5 only finds it so as it writes. */
	check(H5Sselect_hyperslab(space, H5S_SELECT_SET, a, NULL, wide, NULL));
	check(H5Sselect_hyperslab(space, H5S_SELECT_NOTB, mid, NULL, mid_n,
				  NULL));
	grid_write(grid, space, 64, v, "regular");

	/* One read, the union again: a dataset read once has a certain
	 * slowest read. */
	mem = H5Screate_simple(1, &n, NULL);
	check(H5Sselect_hyperslab(space, H5S_SELECT_SET, a, NULL, a_n, NULL));
	check(H5Sselect_hyperslab(space, H5S_SELECT_OR, b, NULL, b_n, NULL));
	check(H5Dread(grid, H5T_NATIVE_INT, mem, space, H5P_DEFAULT, v));
	say("H5Dread", 17 * sizeof(int), "/grid", "irregular");
	H5Sclose(mem);
	H5Dclose(grid);
	H5Sclose(space);
}

/* An 8 x 8 dataset written whole and read at three points. */
static void pts_calls(hid_t file, int *v)
{
	hsize_t dims[2] = { 8, 8 }, n = 3, at[6] = { 1, 1, 7, 3, 0, 6 };
	hid_t space = H5Screate_simple(2, dims, NULL);
	hid_t mem = H5Screate_simple(1, &n, NULL);
	hid_t pts = H5Dcreate2(file, "pts", H5T_NATIVE_INT, space, H5P_DEFAULT,
			       H5P_DEFAULT, H5P_DEFAULT);

	check(H5Dwrite(pts, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v));
	say("H5Dwrite", 64 * sizeof(int), "/pts", "");
	check(H5Sselect_elements(space, H5S_SELECT_SET, 3, at));
	check(H5Dread(pts, H5T_NATIVE_INT, mem, space, H5P_DEFAULT, v));
	say("H5Dread", 3 * sizeof(int), "/pts", "point");
	H5Dclose(pts);
	H5Sclose(mem);
	H5Sclose(space);
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
		say("H5Dwrite", N * sizeof(int), "/ints", "");
	}

	/* Stored as float, written from doubles: the file holds 4 bytes an
	 * element. */
	conv = H5Dcreate2(file, "floats", H5T_NATIVE_FLOAT, space, H5P_DEFAULT,
			  H5P_DEFAULT, H5P_DEFAULT);
	check(H5Dwrite(conv, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
		       d));
	say("H5Dwrite", N * sizeof(float), "/floats", "");

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
	say("H5Dwrite", 1000 * sizeof(double), "/chunked", "regular");

	/* An empty selection moves nothing. */
	check(H5Sselect_none(space));
	check(H5Sselect_none(sel));
	check(H5Dwrite(chunked, H5T_NATIVE_DOUBLE, sel, space, H5P_DEFAULT, d));
	say("H5Dwrite", 0, "/chunked", "");
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
	say("H5Dwrite", 100 * sizeof(int), "/compact", "");

	/* Reads: all as stored, floats into doubles, part of the chunks. */
	check(
	    H5Dread(contig, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v));
	say("H5Dread", N * sizeof(int), "/ints", "");
	check(
	    H5Dread(conv, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, d));
	say("H5Dread", N * sizeof(float), "/floats", "");
	start[0] = 1000;
	count[0] = 700;
	dims[0] = 700;
	H5Sset_extent_simple(sel, 1, dims, NULL);
	check(H5Sselect_all(sel));
	check(H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count,
				  NULL));
	check(H5Dread(chunked, H5T_NATIVE_DOUBLE, sel, space, H5P_DEFAULT, d));
	say("H5Dread", 700 * sizeof(double), "/chunked", "regular");
	check(
	    H5Dread(compact, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v));
	say("H5Dread", 100 * sizeof(int), "/compact", "");

	grid_calls(file, v);
	pts_calls(file, v);

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
