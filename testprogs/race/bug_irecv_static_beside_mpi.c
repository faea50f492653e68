// ranks: 2
//
// bug_irecv_static_beside_mpi.c: a 1-D stencil keeps its ghost cells in a
// small static array. Rank 0 posts MPI_Irecv for them, waits for rank 1's
// "sent" notice instead of the request, applies the stencil, and only then
// calls MPI_Wait.
// Breaks MPI-4.1 §3.7.2: the receive buffer belongs to MPI until a
// completion call, whenever the data actually arrives.
// Expected, at the read (rank 0): with MPICH, buffer-access-latent (the
// tracker saw MPI write the ghost cells, inside the MPI_Irecv or the
// MPI_Recv of the notice: the messages of one sender arrive in order);
// with Open MPI, recv-buffer-access saying whether the data had arrived
// is not known.
//
// The ghost array lies in .bss beside the objects this program's uses of
// MPI_COMM_WORLD, MPI_DOUBLE and MPI_INT copy there from Open MPI, which
// Open MPI touches in every call, before it looks at the message: the
// tracker opens the page for the library and cannot see it write the
// ghost cells (docs/races.md). After a few such calls it leaves the page
// open for good and sees nothing more, the read included, so rank 0 makes
// only the two calls. MPICH's handles are integers, so nothing of MPICH's
// is on the page.
#include <mpi.h>
#include <stdio.h>

#define N 64

static double ghost[2];
static double cells[N];

int main(int argc, char **argv)
{
    int rank, sent = 0;
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    if (rank == 0) {
        for (int i = 0; i < N; i++)
            cells[i] = i;
        MPI_Irecv(ghost, 2, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, &r); // related[mpich] "buffer-access-latent" related[openmpi] "recv-buffer-access"
        MPI_Recv(&sent, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double right = ghost[1]; // want[mpich] "buffer-access-latent" want[openmpi] "recv-buffer-access" "whether the data had arrived is not known"
        double next = 0.5 * (cells[N - 2] + right);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        if (right != 64.0 || next != 63.0)
            printf("rank 0: ghost %g, stencil %g\n", right, next);
    } else {
        double edge[2] = {-1.0, 64.0};
        MPI_Send(edge, 2, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
        sent = 1;
        MPI_Send(&sent, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
    }

    MPI_Finalize();
    return 0;
}
