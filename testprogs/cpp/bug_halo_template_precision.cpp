// ranks: 2
//
// bug_halo_template_precision.cpp: a 2-D heat stencil whose halo exchange
// is a class template, Halo<T>, over the element type: columns are
// MPI_Type_vector types of mpi_type<T>(). Each rank picks the precision of
// its field from its own sub-domain (a narrow one is run in float to save
// memory bandwidth), so the ranks instantiate different templates: the
// 31 columns split into 16 and 15, rank 0 runs Halo<double> and rank 1
// Halo<float>, and their column types differ.
// Breaks MPI-4.1 §3.3.1: the type signature of the send (15 FLOAT, or 15
// DOUBLE) must match that of the receive (DOUBLE, or FLOAT).
// Expected: type-mismatch at the MPI_Irecv in Halo<T>::exchange on both
// ranks (one line, two instantiations). Rank 1's receive of 15 floats is
// shorter than rank 0's message of 15 doubles: natively MPI_ERR_TRUNCATE,
// returned (MPI_ERRORS_RETURN) and ignored, as the program's halo code
// does.
#include <mpi.h>

#include <cstdio>
#include <vector>

namespace heat {

template <typename T> MPI_Datatype mpi_type();
template <> MPI_Datatype mpi_type<float>() { return MPI_FLOAT; }
template <> MPI_Datatype mpi_type<double>() { return MPI_DOUBLE; }

// Halo exchanges the first and last interior columns of a (ny+2) x (nx+2)
// row-major field with the left and right neighbours (periodic in x).
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

    void exchange(std::vector<T> &f)
    {
        MPI_Request r[4];
        T *first = &f[(nx_ + 2) + 1], *last = &f[(nx_ + 2) + nx_];
        MPI_Irecv(first - 1, 1, column_, left_, 0, comm_, &r[0]); // want "type-mismatch" "MPI_FLOAT on the sending side and MPI_DOUBLE on the receiving side"
        MPI_Irecv(last + 1, 1, column_, right_, 1, comm_, &r[1]); // want "type-mismatch" "MPI_DOUBLE on the sending side and MPI_FLOAT on the receiving side"
        MPI_Isend(last, 1, column_, right_, 0, comm_, &r[2]);
        MPI_Isend(first, 1, column_, left_, 1, comm_, &r[3]);
        MPI_Status st[4];
        if (MPI_Waitall(4, r, st) != MPI_SUCCESS) {
            // a failed operation is complete; the others may still be pending
            for (int i = 0; i < 4; i++)
                if (st[i].MPI_ERROR == MPI_ERR_PENDING)
                    MPI_Wait(&r[i], MPI_STATUS_IGNORE);
            errors_++;
        }
    }
    int errors() const { return errors_; }

  private:
    int nx_, ny_, left_, right_, errors_ = 0;
    MPI_Comm comm_;
    MPI_Datatype column_;
};

template <typename T> int step(int nx, int ny, MPI_Comm comm)
{
    std::vector<T> f((nx + 2) * (ny + 2), T(1)), g(f);
    Halo<T> halo(nx, ny, comm);
    for (int it = 0; it < 3; it++) {
        halo.exchange(f);
        for (int j = 1; j <= ny; j++)
            for (int i = 1; i <= nx; i++) {
                int k = j * (nx + 2) + i;
                g[k] = T(0.25) * (f[k - 1] + f[k + 1] + f[k - nx - 2] + f[k + nx + 2]);
            }
        f.swap(g);
    }
    return halo.errors();
}

} // namespace heat

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int NX = 31, NY = 15;
    int nx = NX / size + (rank < NX % size);
    int failed;
    if (nx < 16) // bug: each rank decides alone; the halo's neighbours must agree
        failed = heat::step<float>(nx, NY, MPI_COMM_WORLD);
    else
        failed = heat::step<double>(nx, NY, MPI_COMM_WORLD);
    if (failed)
        std::fprintf(stderr, "rank %d: %d failed halo exchanges\n", rank, failed);
    MPI_Finalize();
    return 0;
}
