program ring
  use mpi_f08
  implicit none
  integer :: rank, size, left, right, ierr
  double precision :: inbuf(5)
  integer :: out(5)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  right = mod(rank + 1, size)
  left = mod(rank + size - 1, size)
  call MPI_SENDRECV(out, 5, MPI_INTEGER, right, 0, inbuf, 5, MPI_DOUBLE_PRECISION, & ! receive as doubles
                    left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call mpi_recv(inbuf, 5, MPI_DOUBLE_PRECISION, source=MPI_ANY_SOURCE, tag=0, comm=MPI_COMM_WORLD, status=MPI_STATUS_IGNORE)
  call MPI_Finalize(ierr)
end program ring
