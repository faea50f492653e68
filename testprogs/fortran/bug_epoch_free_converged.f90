! ranks: 2
!
! A Jacobi solver (use mpi) that records the history of every rank's
! residual in rank 0's window: each iteration puts the rank's residual
! into its entry under a shared lock. When the global residual is small
! enough the loop exits between the MPI_Put and the MPI_Win_unlock, and
! the window is freed with that lock epoch still open. MPI-4.1 §12.2.5:
! MPI_Win_free may be called only after the process completed its
! involvement in RMA on the window (MPI_Win_unlock after MPI_Win_lock).
! MPICH fails MPI_Win_free with MPI_ERR_RMA_SYNC (the window has
! MPI_ERRORS_RETURN: the program sees ierror, unlocks and frees again);
! Open MPI frees the window natively; under mpidbg, whose shim steers
! Open MPI's one-sided traffic to its ucx component (docs/openmpi.md),
! MPI_Win_free waits there for the lock to be released, and mpidbg ends
! the job after its report. mpidbg must report epoch-left-open at the
! first MPI_Win_free, with the MPI_Win_lock as the related place.
!
! With Open MPI's use mpi (ierror INTENT(OUT)), gfortran 12 puts this
! call, whose arguments are all variables, on the line of end program in
! its line table; mpidbg takes its line back from the rows around it
! (internal/symbolize).
program bug_epoch_free_converged
  use mpi
  implicit none
  integer, parameter :: n = 4, maxiter = 1000
  double precision, parameter :: tol = 0.05d0
  double precision, allocatable :: history(:)
  double precision :: x(0:n + 1), xnew(n), b(n), resid, global, first
  integer :: ierr, rank, nprocs, win, iter, i, left, right, last
  integer(kind=MPI_ADDRESS_KIND) :: winsize, disp

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  left = rank - 1
  right = rank + 1
  if (left < 0) left = MPI_PROC_NULL
  if (right >= nprocs) right = MPI_PROC_NULL
  allocate(history(nprocs * maxiter))
  history = -1d0
  winsize = 0
  if (rank == 0) winsize = 8 * size(history)
  call MPI_Win_create(history, winsize, 8, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN, ierr)

  ! -x'' = b on a line of ranks, x = 0 at both ends
  b = 1d0 / dble(n * nprocs)
  x = 0d0
  last = maxiter
  do iter = 1, maxiter
    call MPI_Sendrecv(x(1), 1, MPI_DOUBLE_PRECISION, left, 0, x(n + 1), 1, MPI_DOUBLE_PRECISION, right, 0, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Sendrecv(x(n), 1, MPI_DOUBLE_PRECISION, right, 1, x(0), 1, MPI_DOUBLE_PRECISION, left, 1, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    do i = 1, n
      xnew(i) = 0.5d0 * (x(i - 1) + x(i + 1) + b(i))
    end do
    resid = sum((xnew - x(1:n))**2)
    x(1:n) = xnew
    call MPI_Allreduce(resid, global, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (iter == 1) first = global

    disp = int(nprocs * (iter - 1) + rank, MPI_ADDRESS_KIND)
    call MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win, ierr)
    call MPI_Put(resid, 1, MPI_DOUBLE_PRECISION, 0, disp, 1, MPI_DOUBLE_PRECISION, win, ierr)
    if (sqrt(global / first) < tol) then
      last = iter
      exit
    end if
    call MPI_Win_unlock(0, win, ierr)
  end do

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Win_free(win, ierr) ! want "epoch-left-open" "the access epoch MPI_Win_lock opened .* is still open"
  if (ierr /= MPI_SUCCESS) then
    call MPI_Win_unlock(0, win, ierr)
    call MPI_Win_free(win, ierr)
  end if
  if (rank == 0 .and. (history(1) < 0d0 .or. last > maxiter)) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  deallocate(history)
  call MPI_Finalize(ierr)
end program bug_epoch_free_converged
