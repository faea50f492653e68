! ranks: 3
! native: hangs
!
! A solver step (use mpi): rank 0 broadcasts the new time step before the
! global residual is reduced, the other ranks reduce first (MPI-4.1
! §6.12: all processes must call collectives on a communicator in the
! same order). The job hangs natively; mpidbg reports and ends it.
program bug_collective_order
  use mpi
  implicit none
  integer :: ierr, rank
  double precision :: dt, resid, total

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  dt = 0.1d0
  resid = 1d0 / dble(rank + 1)
  if (rank == 0) then
    dt = 0.05d0
    call MPI_Bcast(dt, 1, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr) ! want "collective-mismatch"
    call MPI_Allreduce(resid, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr) ! want "deadlock"
  else
    call MPI_Allreduce(resid, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr) ! related "collective-mismatch"
    call MPI_Bcast(dt, 1, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
  end if
  if (dt < 0d0 .or. total < 0d0) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  call MPI_Finalize(ierr)
end program bug_collective_order
