// ranks: 2
//
// ok_isend_vector_double_buffer.cpp: the correct twin of
// bug_isend_vector_modified.cpp. The pipeline stage keeps two
// std::vector blocks: it computes the next block into the one whose send
// has completed (MPI_Wait before the vector is written again) while the
// other is sent, so computing overlaps sending without touching a pending
// buffer. After the last round the stage appends a checksum to a block
// whose send is complete (the vector may reallocate then) and sends it
// too. Large blocks (64 KiB, rendezvous) and small ones (eager). Rank 1
// checks every block.
// Correct: must produce no findings.
#include <mpi.h>

#include <array>
#include <cstdio>
#include <vector>

namespace pipeline {

class Stage {
  public:
    Stage(int n, MPI_Comm comm) : comm_(comm)
    {
        for (auto &b : blocks_)
            b.resize(n);
    }

    static double value(int round, std::size_t i) { return round * 0.5 + (double)i; }

    // run sends rounds blocks to rank to, computing each while the
    // previous one is on its way.
    void run(int rounds, int to)
    {
        for (int round = 0; round < rounds; round++) {
            int k = round % 2;
            MPI_Wait(&pending_[k], MPI_STATUS_IGNORE); // the send two rounds ago
            std::vector<double> &b = blocks_[k];
            for (std::size_t i = 0; i < b.size(); i++)
                b[i] = value(round, i);
            MPI_Isend(b.data(), (int)b.size(), MPI_DOUBLE, to, round, comm_, &pending_[k]);
        }
        MPI_Waitall(2, pending_.data(), MPI_STATUSES_IGNORE);
        std::vector<double> &last = blocks_[(rounds - 1) % 2];
        double sum = 0;
        for (double x : last)
            sum += x;
        last.push_back(sum);
        MPI_Send(last.data(), (int)last.size(), MPI_DOUBLE, to, rounds, comm_);
    }

  private:
    std::array<std::vector<double>, 2> blocks_;
    std::array<MPI_Request, 2> pending_{MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Comm comm_;
};

} // namespace pipeline

static int receive(int n, int rounds)
{
    int bad = 0;
    std::vector<double> in(n + 1);
    for (int round = 0; round < rounds; round++) {
        MPI_Recv(in.data(), n, MPI_DOUBLE, 0, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < n; i++)
            bad += in[i] != pipeline::Stage::value(round, i);
    }
    MPI_Recv(in.data(), n + 1, MPI_DOUBLE, 0, rounds, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += in[i];
    return bad + (in[n] != sum);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int n : {8192, 16}) {
        if (rank == 0) {
            pipeline::Stage stage(n, MPI_COMM_WORLD);
            stage.run(5, 1);
        } else if (rank == 1) {
            bad += receive(n, 5);
        }
    }
    int total;
    MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (total)
        std::fprintf(stderr, "rank %d: %d wrong values\n", rank, bad);
    else if (rank == 0)
        std::printf("ok_isend_vector_double_buffer: OK\n");
    MPI_Finalize();
    return total != 0;
}
