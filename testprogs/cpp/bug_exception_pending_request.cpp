// ranks: 2
//
// bug_exception_pending_request.cpp: rank 1 restores a checkpoint block
// that rank 0 sends: CheckpointReader::start posts an MPI_Irecv into the
// reader's std::vector, then restore() validates the header and throws
// std::runtime_error for a version it does not support, before
// CheckpointReader::finish's MPI_Wait. main catches the exception, reports
// it and goes on to MPI_Finalize: nothing ever completes the receive.
// Breaks MPI-4.1 §11.2.2 (and §3.7.3): all pending communication must be
// completed before MPI_FINALIZE.
// Expected: request-never-completed, reported at MPI_Finalize against the
// line that started the operation (the MPI_Irecv in
// CheckpointReader::start, rank 1).
//
// Rank 0 sends before a barrier that rank 1 leaves before posting the
// receive: the small message has arrived, so natively MPI completes the
// receive inside MPI_Irecv, and the reader (with its buffer) lives until
// after MPI_Finalize. Messages go to standard error: stdio's buffer for a
// piped standard output may share a heap page with the pending receive's
// buffer, which mpidbg's race tracker protects, and write(2) from it would
// then fail with EFAULT (docs/races.md, Limits).
#include <mpi.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace io {

class CheckpointReader {
  public:
    explicit CheckpointReader(MPI_Comm comm) : comm_(comm) {}

    void start(int from, int n)
    {
        block_.resize(n);
        MPI_Irecv(block_.data(), n, MPI_DOUBLE, from, 9, comm_, &req_); // want "request-never-completed" "MPI_Irecv: 1 operation started here never completed"
    }

    const std::vector<double> &finish()
    {
        MPI_Wait(&req_, MPI_STATUS_IGNORE);
        return block_;
    }

  private:
    MPI_Comm comm_;
    std::vector<double> block_;
    MPI_Request req_ = MPI_REQUEST_NULL;
};

double restore(CheckpointReader &reader, int version)
{
    reader.start(0, 64);
    if (version != 2) // bug: throws with the receive pending
        throw std::runtime_error("checkpoint version " + std::to_string(version) + " is not supported");
    double sum = 0;
    for (double x : reader.finish())
        sum += x;
    return sum;
}

} // namespace io

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    io::CheckpointReader reader(MPI_COMM_WORLD);
    if (rank == 0) {
        std::vector<double> block(64, 0.25);
        MPI_Send(block.data(), 64, MPI_DOUBLE, 1, 9, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        try {
            std::fprintf(stderr, "rank 1: restored %g\n", io::restore(reader, 1));
        } catch (const std::exception &e) {
            std::fprintf(stderr, "rank 1: no restart: %s\n", e.what());
        }
    }
    MPI_Finalize();
    return 0;
}
