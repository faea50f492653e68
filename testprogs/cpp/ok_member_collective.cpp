// ranks: 2
//
// ok_member_collective.cpp: the correct twin of
// bug_member_collective_mismatch.cpp. The Jacobi solver class reaches its
// collectives through member functions on every rank alike:
// Solver::global_norm calls MPI_Allreduce on every rank (rank 0 only
// logs the result), Solver::total_heat calls MPI_Reduce to rank 0 on every
// rank, and Solver::should_stop has rank 0 decide and MPI_Bcast the
// decision, so the ranks leave the loop together. Checks that the ranks
// agree on the iteration count and that the heat rank 0 sums is right.
// Correct: must produce no findings.
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
        u_.front() = rank_ == 0 ? 1.0 : 0.0;
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

    // should_stop: rank 0 decides, every rank learns the decision.
    bool should_stop(double norm, int it)
    {
        int stop = rank_ == 0 && (norm < 1e-3 || it >= 50);
        MPI_Bcast(&stop, 1, MPI_INT, 0, comm_);
        return stop != 0;
    }

    double total_heat()
    {
        double local = 0, total = 0;
        for (std::size_t i = 1; i + 1 < u_.size(); i++)
            local += u_[i];
        MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, comm_);
        return total; // meaningful on rank 0
    }

    double local_heat() const
    {
        double s = 0;
        for (std::size_t i = 1; i + 1 < u_.size(); i++)
            s += u_[i];
        return s;
    }

  private:
    double global_norm(double local)
    {
        double global = 0;
        MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, comm_);
        return std::sqrt(global);
    }

    std::vector<double> u_, next_;
    MPI_Comm comm_;
    int rank_;
};

} // namespace jacobi

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    {
        jacobi::Solver solver(32, MPI_COMM_WORLD);
        int it = 0;
        while (!solver.should_stop(solver.sweep(), it))
            it++;
        int its[2] = {it, -it}, agreed[2];
        MPI_Allreduce(its, agreed, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        bad += agreed[0] != -agreed[1];
        double total = solver.total_heat(), mine = solver.local_heat(), expect = 0;
        MPI_Reduce(&mine, &expect, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        bad += rank == 0 && std::fabs(total - expect) > 1e-12;
    }
    int total;
    MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (total)
        std::fprintf(stderr, "rank %d: %d wrong results\n", rank, bad);
    else if (rank == 0)
        std::printf("ok_member_collective: OK\n");
    MPI_Finalize();
    return total != 0;
}
