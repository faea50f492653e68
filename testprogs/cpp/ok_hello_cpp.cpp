// ranks: 3
//
// ok_hello_cpp.cpp: MPI's C functions from C++17 (the C++ bindings left
// MPI in 3.0) with buffers in standard containers: a ring in which each
// rank passes a std::vector<int> to its right neighbour and receives its
// left neighbour's with MPI_Sendrecv (MPI-4.1 §3.10), size times, so that
// after step i a rank holds the values of the rank i places to its left
// and after the last step its own again; the status names the left
// neighbour and the count. MPI_Allreduce (MPI-4.1 §6.9.6) then sums a
// std::array<double, 4> elementwise, in place (MPI_IN_PLACE, MPI-4.1
// §6.9.1). Every value is checked. The harness's smallest C++ program
// (the name ok_hello is ok_hello.f90's: names are unique across
// languages).
// Correct: must produce no findings.
#include <mpi.h>

#include <array>
#include <cstdio>
#include <vector>

namespace {

int errors;

template <typename... Args>
void check(bool cond, const char *fmt, Args... args)
{
    if (!cond) {
        errors++;
        std::fprintf(stderr, fmt, args...);
    }
}

// values is what rank r sends in the ring: n values that name it
std::vector<int> values(int r, int n)
{
    std::vector<int> v(n);
    for (int k = 0; k < n; k++)
        v[k] = 100 * r + k;
    return v;
}

} // namespace

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    const int n = 5;

    std::vector<int> out = values(rank, n), in(n);
    for (int step = 1; step <= size; step++) {
        MPI_Status st;
        MPI_Sendrecv(out.data(), n, MPI_INT, right, step, in.data(), n, MPI_INT, left, step, MPI_COMM_WORLD, &st);
        int count;
        MPI_Get_count(&st, MPI_INT, &count);
        check(in == values((rank - step + size) % size, n) && st.MPI_SOURCE == left && count == n,
              "rank %d: step %d from %d, %d values\n", rank, step, st.MPI_SOURCE, count);
        out.swap(in);
    }
    check(out == values(rank, n), "rank %d: the ring did not bring its values back\n", rank);

    std::array<double, 4> sums;
    for (std::size_t k = 0; k < sums.size(); k++)
        sums[k] = rank + 0.5 * k;
    MPI_Allreduce(MPI_IN_PLACE, sums.data(), int(sums.size()), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (std::size_t k = 0; k < sums.size(); k++) {
        // halves and small integers: the sum is exact in any order
        const double want = size * (size - 1) / 2 + size * 0.5 * k;
        check(sums[k] == want, "rank %d: sums[%zu] = %g, want %g\n", rank, k, sums[k], want);
    }

    int total;
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        std::printf("ok_hello_cpp: OK\n");
    MPI_Finalize();
    return total != 0;
}
