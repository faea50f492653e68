// ranks: 2
//
// bug_vector_realloc_irecv.cpp: rank 1 posts an MPI_Irecv of the particles
// rank 0 migrates into a std::vector sized for them, then, before
// MPI_Wait, appends a particle it created itself with push_back. The
// vector is full, so push_back reallocates: it moves every particle to new
// storage, reading the pending receive's buffer, and frees the old
// storage, which MPI still owns. Particle counts its live instances, so
// its move constructor is the program's own code: the read is at its
// line.
// Breaks MPI-4.1 §3.7.2: the receiver must not access any part of the
// receive buffer until the receive completes (and here the buffer is freed
// memory by then: a receive completing later writes into the heap).
// Expected: buffer-access-latent at the move constructor's read (rank 1),
// with the MPI_Irecv as the related location.
//
// Rank 0 sends before a barrier that rank 1 leaves before posting the
// receive: the small message has arrived, so MPI copies it inside
// MPI_Irecv (the tracker watches the buffer from before that call and
// sees the copy), the move reads the right particles by chance, and
// nothing writes the freed storage later. A larger message, or one that
// came later, would be read half-arrived and written into freed memory. A
// std::vector<double> would be moved by memmove inside libstdc++: the
// read is then reported in the library's header (stl_uninitialized.h, in
// std::__relocate_a_1<double, double>(...)), a line no annotation here can
// name.
#include <mpi.h>

#include <vector>

namespace md {

struct Particle {
    static int live;
    double x, y, z, mass;

    Particle(double x_, double y_, double z_, double m) : x(x_), y(y_), z(z_), mass(m) { live++; }
    Particle() : Particle(0, 0, 0, 0) {}
    Particle(const Particle &o) : x(o.x), y(o.y), z(o.z), mass(o.mass) { live++; }
    Particle(Particle &&o) noexcept : x(o.x), y(o.y), z(o.z), mass(o.mass) { live++; } // want "buffer-access-latent" "load from the receive buffer .* after the data arrived"
    Particle &operator=(const Particle &) = default;
    ~Particle() { live--; }
};
int Particle::live = 0;

class Migration {
  public:
    explicit Migration(MPI_Comm comm) : comm_(comm)
    {
        MPI_Type_contiguous(4, MPI_DOUBLE, &type_);
        MPI_Type_commit(&type_);
    }
    ~Migration() { MPI_Type_free(&type_); }

    void send(const std::vector<Particle> &out, int to)
    {
        MPI_Send(out.data(), (int)out.size(), type_, to, 3, comm_);
    }

    // post_receive starts the receive of n particles into incoming.
    void post_receive(std::vector<Particle> &incoming, int n, int from)
    {
        incoming.resize(n);
        MPI_Irecv(incoming.data(), n, type_, from, 3, comm_, &req_); // related "buffer-access-latent"
    }

    void wait() { MPI_Wait(&req_, MPI_STATUS_IGNORE); }

  private:
    MPI_Comm comm_;
    MPI_Datatype type_;
    MPI_Request req_ = MPI_REQUEST_NULL;
};

} // namespace md

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    {
        md::Migration mig(MPI_COMM_WORLD);
        const int n = 8;
        if (rank == 0) {
            std::vector<md::Particle> leaving;
            for (int i = 0; i < n; i++)
                leaving.emplace_back(i, 2.0 * i, 3.0 * i, 1.0);
            mig.send(leaving, 1);
            MPI_Barrier(MPI_COMM_WORLD);
        } else {
            std::vector<md::Particle> particles;
            MPI_Barrier(MPI_COMM_WORLD);
            mig.post_receive(particles, n, 0);
            particles.push_back(md::Particle(0.5, 0.5, 0.5, 2.0)); // bug: reallocates under the pending receive
            mig.wait();
        }
    }
    MPI_Finalize();
    return 0;
}
