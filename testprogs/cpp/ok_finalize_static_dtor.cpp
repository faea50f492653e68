// ranks: 2
//
// ok_finalize_static_dtor.cpp: an RAII environment object at namespace
// scope initialises MPI on first use and calls MPI_Finalize in its
// destructor, which runs after main returns (static destruction, during
// exit). MPI_Finalize is called exactly once before the process ends
// (MPI-4.1 §11.2.2), from a static destructor: correct.
// Correct: must produce no findings.
#include <mpi.h>

#include <cstdio>
#include <numeric>
#include <vector>

namespace {

class Environment {
  public:
    void start(int *argc, char ***argv)
    {
        if (!started_) {
            MPI_Init(argc, argv);
            started_ = true;
        }
    }
    ~Environment()
    {
        int finalized = 0;
        MPI_Finalized(&finalized);
        if (started_ && !finalized)
            MPI_Finalize();
    }

  private:
    bool started_ = false;
};

Environment env; // constructed before main, destroyed after it returns

} // namespace

int main(int argc, char **argv)
{
    env.start(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<int> mine(4, rank + 1), sums(4, 0);
    MPI_Allreduce(mine.data(), sums.data(), 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    const int want = size * (size + 1) / 2;
    const bool good = std::accumulate(sums.begin(), sums.end(), 0) == 4 * want;
    if (rank == 0 && good)
        std::printf("ok_finalize_static_dtor: OK\n");
    return good ? 0 : 1;
}
