#include <mpi.h>

/* Each rank sends a record to its right neighbour. */
typedef struct { int id; double v[3]; char tag[8]; } rec_t;

void ring(MPI_Comm comm, int rank, int size)
{
	MPI_Datatype t;
	int bl[3] = {1, 3, 8};
	MPI_Aint d[3] = {0, 8, 32};
	MPI_Datatype ty[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
	MPI_Type_create_struct(3, bl, d, ty, &t);
	rec_t out = {rank, {1, 2, 3}, "x"};
	double in[5];
	int right = (rank + 1) % size, left = (rank + size - 1) % size;
	MPI_Sendrecv(&out, 1, t, right, 0, in, 5, MPI_DOUBLE, left, 0, comm, MPI_STATUS_IGNORE);
	if (rank == 0)
		MPI_Recv(in, 5,
		         MPI_DOUBLE, /* as doubles, "a, b" */ left, 0,
		         comm, MPI_STATUS_IGNORE);
	MPI_Request req;
	MPI_Isend(&out, 1, t, right, 0, comm, &req);
	out.id = 2;
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_Alltoallw(sendbuffer_with_a_long_name, sendcounts_for_every_rank, senddispls_in_bytes, sendtypes_per_rank, recvbuffer_with_a_long_name, recvcounts_for_every_rank, recvdispls_in_bytes, recvtypes_per_rank, communicator_of_the_exchange);
}
