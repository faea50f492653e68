// ranks: 2
//
// ok_vector_irecv_reserve.cpp: the correct twin of
// bug_vector_realloc_irecv.cpp. Rank 1 receives migrating particles into a
// std::vector with MPI_Irecv and adds particles of its own while the
// receive is pending, without touching the receive's buffer: the vector
// reserved room for them before the receive was posted, so push_back
// constructs them past the buffer's end (on the same page) and never
// reallocates. Particles added after MPI_Wait may reallocate: the receive
// is complete. Checks every particle and the count of live ones.
// Correct: must produce no findings.
#include <mpi.h>

#include <cstdio>
#include <vector>

namespace md {

struct Particle {
    static int live;
    double x, y, z, mass;

    Particle(double x_, double y_, double z_, double m) : x(x_), y(y_), z(z_), mass(m) { live++; }
    Particle() : Particle(0, 0, 0, 0) {}
    Particle(const Particle &o) : x(o.x), y(o.y), z(o.z), mass(o.mass) { live++; }
    Particle(Particle &&o) noexcept : x(o.x), y(o.y), z(o.z), mass(o.mass) { live++; }
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

    // post_receive starts the receive of n particles into incoming, with
    // room for extra more particles after them.
    void post_receive(std::vector<Particle> &incoming, int n, int extra, int from)
    {
        incoming.reserve(n + extra);
        incoming.resize(n);
        MPI_Irecv(incoming.data(), n, type_, from, 3, comm_, &req_);
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
    int rank, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    {
        md::Migration mig(MPI_COMM_WORLD);
        const int n = 8, extra = 2;
        if (rank == 0) {
            std::vector<md::Particle> leaving;
            for (int i = 0; i < n; i++)
                leaving.emplace_back(i, 2.0 * i, 3.0 * i, 1.0);
            mig.send(leaving, 1);
            MPI_Barrier(MPI_COMM_WORLD);
        } else if (rank == 1) {
            std::vector<md::Particle> particles;
            MPI_Barrier(MPI_COMM_WORLD);
            mig.post_receive(particles, n, extra, 0);
            const md::Particle *buffer = particles.data();
            for (int i = 0; i < extra; i++)
                particles.push_back(md::Particle(0.5, 0.5, 0.5, 2.0)); // within the reserved room
            bad += particles.data() != buffer;
            mig.wait();
            for (int i = 0; i < 100; i++) // may reallocate: the receive is complete
                particles.emplace_back(1.0, 1.0, 1.0, 0.5);
            for (int i = 0; i < n; i++)
                bad += particles[i].x != i || particles[i].y != 2.0 * i || particles[i].z != 3.0 * i || particles[i].mass != 1.0;
            bad += particles[n].mass != 2.0 || particles[n + extra].mass != 0.5;
            bad += md::Particle::live != (int)particles.size();
        } else {
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }
    int total;
    MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (total)
        std::fprintf(stderr, "rank %d: %d wrong particles\n", rank, bad);
    else if (rank == 0)
        std::printf("ok_vector_irecv_reserve: OK\n");
    MPI_Finalize();
    return total != 0;
}
