// ranks: 2
//
// ok_exception_request.cpp: the correct twin of
// bug_exception_pending_request.cpp. Rank 1 restores two checkpoint blocks
// that rank 0 sends; validating each throws std::runtime_error while its
// receive is pending, and each request is still completed:
//   - the first reader's receive is completed by main's catch handler
//     (CheckpointReader::finish, MPI_Wait), after the exception reached it;
//   - the second is held by an RAII guard, PendingReceive, whose
//     destructor completes it (MPI_Wait) while the exception unwinds
//     restore_guarded's frame, before the vector it receives into is
//     destroyed.
// Checks both blocks' data.
// Correct: must produce no findings.
#include <mpi.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace io {

class CheckpointReader {
  public:
    explicit CheckpointReader(MPI_Comm comm) : comm_(comm) {}

    void start(int from, int tag, int n)
    {
        block_.resize(n);
        MPI_Irecv(block_.data(), n, MPI_DOUBLE, from, tag, comm_, &req_);
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

void check_version(int version)
{
    if (version != 2)
        throw std::runtime_error("checkpoint version " + std::to_string(version) + " is not supported");
}

double restore(CheckpointReader &reader, int version)
{
    reader.start(0, 9, 64);
    check_version(version); // throws with the receive pending: the caller completes it
    double sum = 0;
    for (double x : reader.finish())
        sum += x;
    return sum;
}

// PendingReceive completes its request when it goes out of scope, however
// the scope is left.
class PendingReceive {
  public:
    PendingReceive() = default;
    PendingReceive(const PendingReceive &) = delete;
    PendingReceive &operator=(const PendingReceive &) = delete;
    ~PendingReceive() { MPI_Wait(&req, MPI_STATUS_IGNORE); }
    MPI_Request req = MPI_REQUEST_NULL;
};

double restore_guarded(std::vector<double> &out, int version)
{
    std::vector<double> block(64);
    PendingReceive pending; // destroyed before block
    MPI_Irecv(block.data(), 64, MPI_DOUBLE, 0, 10, MPI_COMM_WORLD, &pending.req);
    check_version(version);
    out = block;
    return 0;
}

} // namespace io

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    io::CheckpointReader reader(MPI_COMM_WORLD);
    if (rank == 0) {
        std::vector<double> a(64, 0.25), b(64, 0.5);
        MPI_Send(a.data(), 64, MPI_DOUBLE, 1, 9, MPI_COMM_WORLD);
        MPI_Send(b.data(), 64, MPI_DOUBLE, 1, 10, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Barrier(MPI_COMM_WORLD);
        try {
            io::restore(reader, 1);
            bad++; // not reached
        } catch (const std::runtime_error &) {
            for (double x : reader.finish()) // the receive restore() left pending
                bad += x != 0.25;
        }
        std::vector<double> second;
        try {
            io::restore_guarded(second, 1);
            bad++;
        } catch (const std::runtime_error &) {
            bad += !second.empty(); // the guard completed the receive; nothing was kept
        }
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    int total;
    MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (total)
        std::fprintf(stderr, "rank %d: %d wrong values\n", rank, bad);
    else if (rank == 0)
        std::printf("ok_exception_request: OK\n");
    MPI_Finalize();
    return total != 0;
}
