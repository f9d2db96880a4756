// SPDX-License-Identifier: MIT
/*
 * Known MPI-IO calls from every rank on one shared file; rank 0 reports
 * them as JSON. Usage: mpirun -np N mpiio_calls FILE
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define BLK    (64 * 1024) /* bytes per call */
#define WRITES 5
#define READS  3

int main(int argc, char **argv)
{
	MPI_Offset size;
	MPI_Datatype triple, vec, other[6];
	MPI_Status st;
	MPI_File fh;
	int rank, nranks;
	char *buf;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	if (argc != 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	buf = calloc(1, BLK);
	if (MPI_File_open(MPI_COMM_WORLD, argv[1],
			  MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
			  &fh) != MPI_SUCCESS)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (int i = 0; i < WRITES; i++)
		MPI_File_write_at(fh, (MPI_Offset)(rank * WRITES + i) * BLK,
				  buf, BLK / 4, MPI_INT, &st);
	MPI_File_sync(fh);
	MPI_File_write_at_all(fh, (MPI_Offset)(nranks * WRITES + rank) * BLK,
			      buf, BLK / 4, MPI_INT, &st);
	for (int i = 0; i < READS; i++)
		MPI_File_read_at(fh, (MPI_Offset)rank * WRITES * BLK, buf,
				 BLK / 4, MPI_INT, &st);
	/* Other datatypes, predefined and derived: their bytes are count x
	 * MPI_Type_size, 8000, 2400 and 1920 here. MPICH keeps its first few
	 * derived types in the library and later ones in blocks it
	 * allocates: `vec` is made after seven others. */
	MPI_Type_contiguous(3, MPI_DOUBLE, &triple);
	MPI_Type_commit(&triple);
	for (int i = 0; i < 6; i++)
		MPI_Type_contiguous(i + 2, MPI_CHAR, &other[i]);
	MPI_Type_vector(4, 3, 5, MPI_INT, &vec);
	MPI_Type_commit(&vec);
	MPI_File_seek(fh, (MPI_Offset)(nranks * (WRITES + 1) + rank) * BLK,
		      MPI_SEEK_SET);
	MPI_File_write(fh, buf, 1000, MPI_DOUBLE, &st);
	MPI_File_write(fh, buf, 100, triple, &st);
	MPI_File_write(fh, buf, 40, vec, &st);
	MPI_Type_free(&triple);
	MPI_Type_free(&vec);
	for (int i = 0; i < 6; i++)
		MPI_Type_free(&other[i]);
	MPI_File_get_size(fh, &size);
	MPI_File_close(&fh);
	if (rank == 0)
		printf("{\"file\":\"%s\",\"ranks\":%d,\"MPI_File_open\":1,"
		       "\"MPI_File_write_at\":%d,\"MPI_File_sync\":1,"
		       "\"MPI_File_write_at_all\":1,\"MPI_File_read_at\":%d,"
		       "\"MPI_File_get_size\":1,\"MPI_File_close\":1,"
		       "\"MPI_File_seek\":1,\"MPI_File_write\":3,"
		       "\"write_bytes\":[8000,2400,1920],"
		       "\"items\":%d,\"block\":%d}\n",
		       argv[1], nranks, WRITES, READS, BLK / 4, BLK);
	free(buf);
	MPI_Finalize();
	return 0;
}
