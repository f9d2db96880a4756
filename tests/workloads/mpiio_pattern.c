// SPDX-License-Identifier: MIT
/*
 * MPI-IO reads and writes of every kind on one shared file, in six of
 * Darshan's size buckets, reads and writes interleaved (read/write
 * switches): independent, collective, split and non-blocking, with a
 * view, a sync, and a second open of the file. Rank 0 prints what each
 * rank did as JSON. Usage: mpirun -np N mpiio_pattern FILE
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Bytes per call: 0-100, 100-1K, 1K-10K, 10K-100K, 100K-1M, 1M-4M. */
static const int sizes[] = { 40, 400, 4000, 40000, 400000, 2000000 };
#define NSIZES	(int)(sizeof(sizes) / sizeof(*sizes))
#define SLOT	2000000 /* bytes each rank owns per round */
#define MODE_RW (MPI_MODE_CREATE | MPI_MODE_RDWR)

int main(int argc, char **argv)
{
	MPI_Request req;
	MPI_Status st;
	MPI_File fh;
	int rank, nranks;
	char *buf;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	if (argc != 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	buf = calloc(1, SLOT);
	if (MPI_File_open(MPI_COMM_WORLD, argv[1], MODE_RW, MPI_INFO_NULL,
			  &fh) != MPI_SUCCESS)
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
	/* Each size: an independent write then read (two switches), a
	 * collective write and read, in bytes or in ints. */
	for (int i = 0; i < NSIZES; i++) {
		MPI_Offset off = (MPI_Offset)(i * nranks + rank) * SLOT;

		MPI_File_write_at(fh, off, buf, sizes[i], MPI_BYTE, &st);
		MPI_File_read_at(fh, off, buf, sizes[i] / 4, MPI_INT, &st);
		MPI_File_write_at_all(fh, off, buf, sizes[i], MPI_BYTE, &st);
		MPI_File_read_at_all(fh, off, buf, sizes[i], MPI_BYTE, &st);
		/* Profile mode's intervals (the runtime wakes every 100 ms) end
		 * between calls: the switches it keeps carry over. */
		usleep(120000);
	}
	MPI_File_sync(fh);
	/* Split collective and non-blocking calls. */
	MPI_File_write_at_all_begin(fh, (MPI_Offset)rank * SLOT, buf, 4000,
				    MPI_BYTE);
	MPI_File_write_at_all_end(fh, buf, &st);
	MPI_File_read_at_all_begin(fh, (MPI_Offset)rank * SLOT, buf, 400,
				   MPI_BYTE);
	MPI_File_read_at_all_end(fh, buf, &st);
	MPI_File_iwrite_at(fh, (MPI_Offset)rank * SLOT, buf, 40, MPI_BYTE,
			   &req);
	MPI_Wait(&req, &st);
	MPI_File_iread_at(fh, (MPI_Offset)rank * SLOT, buf, 10, MPI_INT, &req);
	MPI_Wait(&req, &st);
	MPI_File_close(&fh);

	/* Open again: Darshan's record carries on, a handle starts anew. */
	if (MPI_File_open(MPI_COMM_WORLD, argv[1], MODE_RW, MPI_INFO_NULL,
			  &fh) != MPI_SUCCESS)
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_File_read_at(fh, (MPI_Offset)rank * SLOT, buf, 400, MPI_BYTE, &st);
	MPI_File_write_at(fh, (MPI_Offset)rank * SLOT, buf, 400, MPI_BYTE, &st);
	MPI_File_close(&fh);
	if (rank == 0)
		printf(
		    "{\"ranks\":%d,\"indep_writes\":%d,\"indep_reads\":%d,"
		    "\"coll_writes\":%d,\"coll_reads\":%d,\"split_writes\":1,"
		    "\"split_reads\":1,\"nb_writes\":1,\"nb_reads\":1,"
		    "\"opens\":2}\n",
		    nranks, NSIZES + 1, NSIZES + 1, NSIZES, NSIZES);
	free(buf);
	MPI_Finalize();
	return 0;
}
