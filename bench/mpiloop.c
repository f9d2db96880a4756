// SPDX-License-Identifier: MIT
/*
 * MPI-IO that times itself: each rank makes N MPI_File_write_at calls of
 * SIZE bytes into its own stripe of one shared file. Rank 0 reports as
 * JSON the mean ns per call over the ranks and the calls made by all.
 *   mpirun -np 4 mpiloop N SIZE FILE
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	static char buf[1 << 16];
	double t0, t, sum;
	long n = 0, size = 0, calls = 0, all;
	MPI_File fh;
	int rank, nranks;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	if (argc != 4 || (n = atol(argv[1])) <= 0 ||
	    (size = atol(argv[2])) <= 0 || size > (long)sizeof(buf)) {
		if (!rank)
			fprintf(stderr, "usage: mpiloop N SIZE FILE\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	if (MPI_File_open(MPI_COMM_WORLD, argv[3],
			  MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
			  &fh) != MPI_SUCCESS)
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	for (long i = 0; i < n; i++) {
		MPI_Offset off = ((MPI_Offset)rank * n + i) * size;

		calls += MPI_File_write_at(fh, off, buf, (int)size, MPI_BYTE,
					   MPI_STATUS_IGNORE) == MPI_SUCCESS;
	}
	t = (MPI_Wtime() - t0) * 1e9 / n;
	MPI_File_close(&fh);
	MPI_Reduce(&t, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	MPI_Reduce(&calls, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
	if (!rank)
		printf("{\"mode\":\"write_at\",\"calls\":%ld,"
		       "\"ns_per_call\":%.1f}\n",
		       all, sum / nranks);
	MPI_Finalize();
	return 0;
}
