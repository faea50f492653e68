! ranks: 2
!
! A Jacobi solver (use mpi) that records the history of every rank's
! residual in rank 0's window: each iteration puts the rank's residual
! into its entry under a shared lock, and unlocks before it tests for
! convergence, so the window is freed with no epoch open (the correct
! twin of bug_epoch_free_converged). Rank 0 checks the recorded history
! against the residuals the ranks reduced.
program ok_epoch_free_converged
  use mpi
  implicit none
  integer, parameter :: n = 4, maxiter = 1000
  double precision, parameter :: tol = 0.05d0
  double precision, allocatable :: history(:)
  double precision :: x(0:n + 1), xnew(n), b(n), resid, global, first, total(maxiter)
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
    total(iter) = global

    disp = int(nprocs * (iter - 1) + rank, MPI_ADDRESS_KIND)
    call MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win, ierr)
    call MPI_Put(resid, 1, MPI_DOUBLE_PRECISION, 0, disp, 1, MPI_DOUBLE_PRECISION, win, ierr)
    call MPI_Win_unlock(0, win, ierr)
    if (sqrt(global / first) < tol) then
      last = iter
      exit
    end if
  end do

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    call MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win, ierr)
    do iter = 1, last
      if (abs(sum(history(nprocs * (iter - 1) + 1:nprocs * iter)) - total(iter)) > 1d-12 * total(iter)) then
        print '(a, i4)', 'ok_epoch_free_converged: wrong history at iteration ', iter
        call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
      end if
    end do
    call MPI_Win_unlock(0, win, ierr)
    print '(a)', 'ok_epoch_free_converged: OK'
  end if
  call MPI_Win_free(win, ierr)
  deallocate(history)
  call MPI_Finalize(ierr)
end program ok_epoch_free_converged
