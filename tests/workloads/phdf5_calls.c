// SPDX-License-Identifier: MIT
/*
 * Parallel HDF5 over MPI-IO: each rank writes its own block of one
 * shared dataset COLL times collectively and IND times independently,
 * then reads it back RCOLL and RIND times, and prints what it did as one
 * JSON line: {"rank": r, "H5Dwrite": n, ..., "bytes": per call}.
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define BLOCK 4096 /* doubles a rank writes a call: 32 KiB */
#define COLL  3
#define IND   2
#define RCOLL 2
#define RIND  2

static int io(hid_t dset, hid_t mem, hid_t file, hid_t dxpl, double *buf,
	      int write)
{
	return write ? H5Dwrite(dset, H5T_NATIVE_DOUBLE, mem, file, dxpl, buf)
		     : H5Dread(dset, H5T_NATIVE_DOUBLE, mem, file, dxpl, buf);
}

int main(int argc, char **argv)
{
	hsize_t dims, start, count = BLOCK;
	hid_t fapl, f, space, mem, dset, coll, ind;
	int rank, size, bad = 0;
	double *buf;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 2) {
		fprintf(stderr, "usage: phdf5_calls FILE\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	buf = malloc(BLOCK * sizeof(*buf));
	for (int i = 0; i < BLOCK; i++)
		buf[i] = rank * BLOCK + i;
	dims = (hsize_t)size * BLOCK;
	start = (hsize_t)rank * BLOCK;

	fapl = H5Pcreate(H5P_FILE_ACCESS);
	H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
	f = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
	space = H5Screate_simple(1, &dims, NULL);
	dset = H5Dcreate2(f, "data", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT,
			  H5P_DEFAULT, H5P_DEFAULT);
	H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, NULL, &count, NULL);
	mem = H5Screate_simple(1, &count, NULL);
	coll = H5Pcreate(H5P_DATASET_XFER);
	H5Pset_dxpl_mpio(coll, H5FD_MPIO_COLLECTIVE);
	ind = H5Pcreate(H5P_DATASET_XFER);
	H5Pset_dxpl_mpio(ind, H5FD_MPIO_INDEPENDENT);

	for (int i = 0; i < COLL; i++)
		bad |= io(dset, mem, space, coll, buf, 1) < 0;
	for (int i = 0; i < IND; i++)
		bad |= io(dset, mem, space, ind, buf, 1) < 0;
	for (int i = 0; i < RCOLL; i++)
		bad |= io(dset, mem, space, coll, buf, 0) < 0;
	for (int i = 0; i < RIND; i++)
		bad |= io(dset, mem, space, ind, buf, 0) < 0;
	for (int i = 0; i < BLOCK; i++)
		bad |= buf[i] != rank * BLOCK + i;

	H5Pclose(coll);
	H5Pclose(ind);
	H5Sclose(mem);
	H5Sclose(space);
	H5Dclose(dset);
	H5Fclose(f);
	H5Pclose(fapl);
	printf("{\"rank\": %d, \"H5Fcreate\": 1, \"H5Dcreate2\": 1, "
	       "\"H5Dwrite\": %d, \"H5Dread\": %d, \"H5Dclose\": 1, "
	       "\"H5Fclose\": 1, \"collective_writes\": %d, "
	       "\"independent_writes\": %d, \"collective_reads\": %d, "
	       "\"independent_reads\": %d, \"bytes\": %zu, \"ok\": %s}\n",
	       rank, COLL + IND, RCOLL + RIND, COLL, IND, RCOLL, RIND,
	       BLOCK * sizeof(*buf), bad ? "false" : "true");
	fflush(stdout);
	free(buf);
	MPI_Finalize();
	return bad;
}
