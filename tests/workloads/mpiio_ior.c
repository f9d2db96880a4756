// SPDX-License-Identifier: MIT
/*
 * An IOR-like MPI-IO job: every rank writes and reads a shared file
 * collectively, segment by segment, through a file view of doubles, and
 * then its own file (opened on MPI_COMM_SELF) independently, blocking and
 * not, with predefined and derived datatypes. Rank 0 prints the bytes
 * each file saw as JSON. Usage: mpirun -np N mpiio_ior DIR
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define BLK  2048 /* doubles per rank per segment: 16 KiB */
#define SEGS 4

int main(int argc, char **argv)
{
	MPI_Datatype pair;
	MPI_Request req;
	MPI_Status st;
	MPI_File fh;
	int rank, nranks;
	char path[4096];
	double *buf;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	if (argc != 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	buf = calloc(BLK, sizeof(*buf));

	/* Shared file: segment s holds every rank's block in rank order. */
	snprintf(path, sizeof(path), "%s/shared.ior", argv[1]);
	if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
			  MPI_INFO_NULL, &fh) != MPI_SUCCESS)
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_File_set_view(fh, 0, MPI_DOUBLE, MPI_DOUBLE, "native",
			  MPI_INFO_NULL);
	for (int s = 0; s < SEGS; s++)
		MPI_File_write_at_all(fh, (MPI_Offset)(s * nranks + rank) * BLK,
				      buf, BLK, MPI_DOUBLE, &st);
	MPI_File_sync(fh);
	for (int s = 0; s < SEGS; s++)
		MPI_File_read_at_all(fh, (MPI_Offset)(s * nranks + rank) * BLK,
				     buf, BLK, MPI_DOUBLE, &st);
	MPI_File_close(&fh);

	/* File per process: independent calls, one of them non-blocking,
	 * in doubles and in pairs of doubles. */
	MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
	MPI_Type_commit(&pair);
	snprintf(path, sizeof(path), "%s/fpp.%d", argv[1], rank);
	if (MPI_File_open(MPI_COMM_SELF, path,
			  MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
			  &fh) != MPI_SUCCESS)
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_File_write(fh, buf, BLK, MPI_DOUBLE, &st);
	MPI_File_write(fh, buf, BLK / 2, pair, &st);
	MPI_File_iwrite_at(fh, 2 * BLK * 8, buf, 100, MPI_DOUBLE, &req);
	MPI_Wait(&req, &st);
	MPI_File_close(&fh);
	MPI_Type_free(&pair);

	if (rank == 0)
		printf("{\"ranks\":%d,\"shared\":{\"written\":%d,\"read\":%d},"
		       "\"fpp\":{\"written\":%d}}\n",
		       nranks, nranks * SEGS * BLK * 8, nranks * SEGS * BLK * 8,
		       2 * BLK * 8 + 800);
	free(buf);
	MPI_Finalize();
	return 0;
}
