// ranks: 2
//
// ok_halo_template.cpp: the correct twin of bug_halo_template_precision.cpp.
// The 2-D heat stencil's halo exchange is the class template Halo<T>
// (columns as MPI_Type_vector of mpi_type<T>(), nonblocking receives and
// sends, MPI_Waitall), and the ranks agree on the precision: the narrowest
// sub-domain decides for all (MPI_Allreduce with MPI_MIN), so every rank
// instantiates Halo<float>. A second field, kept in double by every rank,
// is exchanged through Halo<double> in the same steps (two instantiations
// alive at once, each matched by the same one on the other rank). Checks
// the ghost columns after the first exchange of each, then runs the
// stencil.
// Correct: must produce no findings.
#include <mpi.h>

#include <cstdio>
#include <vector>

namespace heat {

template <typename T> MPI_Datatype mpi_type();
template <> MPI_Datatype mpi_type<float>() { return MPI_FLOAT; }
template <> MPI_Datatype mpi_type<double>() { return MPI_DOUBLE; }

template <typename T> class Halo {
  public:
    Halo(int nx, int ny, MPI_Comm comm) : nx_(nx), ny_(ny), comm_(comm)
    {
        int rank, size;
        MPI_Comm_rank(comm, &rank);
        MPI_Comm_size(comm, &size);
        left_ = (rank + size - 1) % size;
        right_ = (rank + 1) % size;
        MPI_Type_vector(ny, 1, nx + 2, mpi_type<T>(), &column_);
        MPI_Type_commit(&column_);
    }
    ~Halo() { MPI_Type_free(&column_); }
    Halo(const Halo &) = delete;
    Halo &operator=(const Halo &) = delete;

    void exchange(std::vector<T> &f)
    {
        MPI_Request r[4];
        T *first = &f[(nx_ + 2) + 1], *last = &f[(nx_ + 2) + nx_];
        MPI_Irecv(first - 1, 1, column_, left_, 0, comm_, &r[0]);
        MPI_Irecv(last + 1, 1, column_, right_, 1, comm_, &r[1]);
        MPI_Isend(last, 1, column_, right_, 0, comm_, &r[2]);
        MPI_Isend(first, 1, column_, left_, 1, comm_, &r[3]);
        MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    }

    int left() const { return left_; }
    int right() const { return right_; }

  private:
    int nx_, ny_, left_, right_;
    MPI_Comm comm_;
    MPI_Datatype column_;
};

// Field is one quantity on the sub-domain, with its halo.
template <typename T> struct Field {
    int nx, ny;
    std::vector<T> v, next;
    Halo<T> halo;

    Field(int nx_, int ny_, int rank, MPI_Comm comm) : nx(nx_), ny(ny_), v((nx_ + 2) * (ny_ + 2)), halo(nx_, ny_, comm)
    {
        for (int j = 1; j <= ny; j++)
            for (int i = 1; i <= nx; i++)
                at(i, j) = T(rank * 1000 + j * 10 + (i == 1 ? 1 : i == nx ? 2 : 0));
        next = v;
    }
    T &at(int i, int j) { return v[j * (nx + 2) + i]; }

    // ghosts_ok checks the ghost columns the first exchange filled.
    int ghosts_ok()
    {
        int bad = 0;
        for (int j = 1; j <= ny; j++) {
            bad += at(0, j) != T(halo.left() * 1000 + j * 10 + 2);
            bad += at(nx + 1, j) != T(halo.right() * 1000 + j * 10 + 1);
        }
        return bad;
    }

    void step()
    {
        for (int j = 1; j <= ny; j++)
            for (int i = 1; i <= nx; i++) {
                int k = j * (nx + 2) + i;
                next[k] = T(0.25) * (v[k - 1] + v[k + 1] + v[k - nx - 2] + v[k + nx + 2]);
            }
        v.swap(next);
    }
};

template <typename T> int run(int nx, int ny, int rank, MPI_Comm comm)
{
    Field<T> temperature(nx, ny, rank, comm);
    Field<double> pressure(nx, ny, rank, comm);
    int bad = 0;
    for (int it = 0; it < 3; it++) {
        temperature.halo.exchange(temperature.v);
        pressure.halo.exchange(pressure.v);
        if (it == 0)
            bad += temperature.ghosts_ok() + pressure.ghosts_ok();
        temperature.step();
        pressure.step();
    }
    return bad;
}

} // namespace heat

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int NX = 31, NY = 15;
    int nx = NX / size + (rank < NX % size), narrowest;
    MPI_Allreduce(&nx, &narrowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    int bad = narrowest < 16 ? heat::run<float>(nx, NY, rank, MPI_COMM_WORLD)
                             : heat::run<double>(nx, NY, rank, MPI_COMM_WORLD);
    int total;
    MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (total)
        std::fprintf(stderr, "rank %d: %d wrong ghost cells\n", rank, bad);
    else if (rank == 0)
        std::printf("ok_halo_template: OK\n");
    MPI_Finalize();
    return total != 0;
}
