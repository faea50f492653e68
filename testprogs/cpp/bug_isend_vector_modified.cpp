// ranks: 2
//
// bug_isend_vector_modified.cpp: a pipeline stage sends each block of
// results with MPI_Isend straight from its std::vector and overlaps the
// send with computing the next block, but computes the next block into the
// same vector: Stage::compute stores into the buffer of the pending send,
// before MPI_Wait.
// Breaks MPI-4.1 §3.7.2: the sender must not modify any part of the send
// buffer after a nonblocking send operation is called, until the send
// completes.
// Expected: send-buffer-write at the store in Stage::compute (rank 0), with
// the MPI_Isend in Stage::ship as the related location.
//
// The block is large (64 KiB: both libraries send it by rendezvous), and
// rank 1 posts its receive only after a barrier that rank 0 enters after
// the store: the store is certainly before MPI read the buffer. Natively
// rank 1 receives the second block's values in the first message; the
// program does not check them.
#include <mpi.h>

#include <cstdio>
#include <vector>

namespace pipeline {

class Stage {
  public:
    Stage(int n, MPI_Comm comm) : block_(n), comm_(comm) {}

    void compute(int round)
    {
        for (std::size_t i = 0; i < block_.size(); i++)
            block_[i] = round * 0.5 + (double)i; // want "send-buffer-write" "store to the send buffer .* before the send completed"
    }

    void ship(int to)
    {
        MPI_Isend(block_.data(), (int)block_.size(), MPI_DOUBLE, to, 0, comm_, &pending_); // related "send-buffer-write"
    }

    void drain() { MPI_Wait(&pending_, MPI_STATUS_IGNORE); }

  private:
    std::vector<double> block_;
    MPI_Comm comm_;
    MPI_Request pending_ = MPI_REQUEST_NULL;
};

} // namespace pipeline

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int n = 8192;
    if (rank == 0) {
        pipeline::Stage stage(n, MPI_COMM_WORLD);
        stage.compute(0);
        stage.ship(1);
        stage.compute(1); // bug: the block is still being sent
        MPI_Barrier(MPI_COMM_WORLD);
        stage.drain();
    } else {
        std::vector<double> in(n);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Recv(in.data(), n, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
