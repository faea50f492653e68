// planted_cxx.cpp: the DAP tests' C++ program. Rank 1 makes one mistake
// inside a member function of a class template: its send reads ints 0-3
// of the buffer while the receive it posted just before writes ints 2-5
// (buffer-overlap, MPI-4.1 §3.7.2: a buffer being received into must not
// be accessed by another operation until the receive completes). The
// other rank exchanges separate halves. Run with 2 ranks.
#include <mpi.h>

#include <cstdio>
#include <vector>

namespace app {

template <typename T> class Mailbox {
  public:
    explicit Mailbox(int rank) : buf_{0, 1, 2, 3, 4, 5, 6, 7}, rank_(rank) {}

    void loop_back(int recv_at)
    {
        MPI_Request reqs[2];
        MPI_Irecv(&buf_[recv_at], 4, MPI_INT, rank_, 1, MPI_COMM_WORLD, &reqs[0]);
        MPI_Isend(&buf_[0], 4, MPI_INT, rank_, 1, MPI_COMM_WORLD, &reqs[1]); // FAULT buffer-overlap
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    }

  private:
    std::vector<T> buf_;
    int rank_;
};

} // namespace app

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    app::Mailbox<int> box(rank);
    box.loop_back(rank == 1 ? 2 : 4);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        std::printf("done\n");
    MPI_Finalize();
    return 0;
}
