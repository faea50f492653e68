! planted_f.f90: planted.c in Fortran (use mpi), for the DAP tests: rank
! 2's send reads elements 1-4 of buf while the receive it posted just
! before writes elements 3-6 (buffer-overlap, MPI-4.1 §3.7.2). The other
! ranks use separate halves. Run with 4 ranks.
program planted_f
  use mpi
  implicit none
  integer :: ierr, rank, i, reqs(2), first
  integer :: buf(8)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  buf = [(i - 1, i = 1, 8)]
  first = 5
  if (rank == 2) first = 3
  call MPI_Irecv(buf(first), 4, MPI_INTEGER, rank, 1, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(buf(1), 4, MPI_INTEGER, rank, 1, MPI_COMM_WORLD, reqs(2), ierr) ! FAULT buffer-overlap
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a)', 'done'
  call MPI_Finalize(ierr)
end program planted_f
