! ranks: 3
!
! A solver step (use mpi): every rank reduces the residual, then rank 0
! broadcasts the new time step (the correct twin of
! bug_collective_order).
program ok_collective_order
  use mpi
  implicit none
  integer :: ierr, rank, nprocs
  double precision :: dt, resid, total

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  dt = 0.1d0
  resid = dble(rank + 1)
  call MPI_Allreduce(resid, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. total > 1d0) dt = 0.05d0
  call MPI_Bcast(dt, 1, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
  if (abs(total - dble(nprocs * (nprocs + 1) / 2)) > 1d-9 .or. abs(dt - 0.05d0) > 1d-12) &
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  if (rank == 0) print '(a)', 'ok_collective_order: OK'
  call MPI_Finalize(ierr)
end program ok_collective_order
