// ranks: 2
// native: hangs
//
// bug_member_collective_mismatch.cpp: a Jacobi solver class computes the
// global residual norm in a member function, Solver::global_norm. Rank 0
// logs the norm, and someone "saved a collective" there: the logging rank
// calls MPI_Reduce to itself while the others call MPI_Allreduce, since
// only rank 0 seemed to need the value. The ranks meet in different
// collectives.
// Breaks MPI-4.1 §6.1: all processes of a communicator must call the same
// collective operations in the same order.
// Expected: collective-mismatch at rank 0's MPI_Reduce in
// Solver::global_norm, with rank 1's MPI_Allreduce as a related line, and
// deadlock at rank 0's MPI_Reduce (the lowest rank of the deadlock; the
// job then ends), its stack through Solver::sweep to main.
//
// Natively the reduction and the allreduce wait for messages the other
// collective never sends.
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <vector>

namespace jacobi {

class Solver {
  public:
    Solver(int n, MPI_Comm comm) : u_(n + 2, 0.0), next_(n + 2, 0.0), comm_(comm)
    {
        MPI_Comm_rank(comm, &rank_);
        MPI_Comm_size(comm, &size_);
        u_.front() = rank_ == 0 ? 1.0 : 0.0; // a hot wall on the left of rank 0
    }

    double sweep()
    {
        double local = 0;
        for (std::size_t i = 1; i + 1 < u_.size(); i++) {
            next_[i] = 0.5 * (u_[i - 1] + u_[i + 1]);
            local += (next_[i] - u_[i]) * (next_[i] - u_[i]);
        }
        for (std::size_t i = 1; i + 1 < u_.size(); i++)
            u_[i] = next_[i];
        return global_norm(local);
    }

  private:
    double global_norm(double local)
    {
        double global = 0;
        if (rank_ == 0) // bug: the logging rank takes another collective than the others
            MPI_Reduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, 0, comm_); // want "collective-mismatch" "rank 0 MPI_Reduce; rank 1 MPI_Allreduce" "deadlock" "rank 0 MPI_Reduce.*waits for rank 1"
        else
            MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, comm_); // related "collective-mismatch"
        if (rank_ == 0)
            std::printf("residual %g\n", std::sqrt(global));
        return std::sqrt(global);
    }

    std::vector<double> u_, next_;
    MPI_Comm comm_;
    int rank_, size_;
};

} // namespace jacobi

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    {
        jacobi::Solver solver(32, MPI_COMM_WORLD);
        for (int it = 0; it < 10; it++)
            if (solver.sweep() < 1e-6)
                break;
    }
    MPI_Finalize();
    return 0;
}
