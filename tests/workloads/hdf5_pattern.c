// SPDX-License-Identifier: MIT
/*
 * HDF5 dataset writes and reads interleaved (read/write switches) in
 * five of Darshan's size buckets, through hyperslabs of a large dataset
 * and whole on a small one made with the deprecated H5Dcreate1, with
 * file and dataset flushes. Usage: hdf5_pattern FILE
 */
#include <hdf5.h>
#include <stdlib.h>
#include <unistd.h>

#define N 200000 /* ints in /big */

/* Elements per call: 40 B, 400 B, 4 KB, 40 KB and 400 KB of ints. */
static const hsize_t counts[] = { 10, 100, 1000, 10000, 100000 };

static void ok(herr_t r)
{
	if (r < 0)
		exit(1);
}

/* Write then read @n ints of @d from element @at. */
static void write_read(hid_t d, hid_t space, hsize_t at, hsize_t n, int *v)
{
	hsize_t start[1] = { at }, count[1] = { n };
	hid_t mem = H5Screate_simple(1, count, NULL);

	ok(H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count,
			       NULL));
	ok(H5Dwrite(d, H5T_NATIVE_INT, mem, space, H5P_DEFAULT, v));
	ok(H5Dread(d, H5T_NATIVE_INT, mem, space, H5P_DEFAULT, v));
	ok(H5Sclose(mem));
	/* Profile mode's intervals (the runtime wakes every 100 ms) end between
	 * calls: the switches it keeps carry over. */
	usleep(120000);
}

int main(int argc, char **argv)
{
	hsize_t dims[1] = { N }, small[1] = { 64 };
	hid_t file, space, sspace, big, old;
	int *v = calloc(N, sizeof(int));

	if (argc != 2 || !v)
		return 2;
	file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	space = H5Screate_simple(1, dims, NULL);
	big = H5Dcreate2(file, "big", H5T_NATIVE_INT, space, H5P_DEFAULT,
			 H5P_DEFAULT, H5P_DEFAULT);
	for (size_t i = 0; i < sizeof(counts) / sizeof(*counts); i++)
		write_read(big, space, 0, counts[i], v);
	ok(H5Dflush(big));
	ok(H5Fflush(file, H5F_SCOPE_GLOBAL));
	/* A read, then writes: one more switch. */
	write_read(big, space, N - 1000, 1000, v);
	ok(H5Dwrite(big, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v));

	sspace = H5Screate_simple(1, small, NULL);
	old = H5Dcreate1(file, "old", H5T_NATIVE_INT, sspace, H5P_DEFAULT);
	ok(H5Dwrite(old, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v));
	ok(H5Dread(old, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v));
	ok(H5Dwrite(old, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v));
	ok(H5Dclose(old));
	ok(H5Sclose(sspace));
	ok(H5Dclose(big));
	ok(H5Sclose(space));
	ok(H5Fclose(file));
	free(v);
	return 0;
}
