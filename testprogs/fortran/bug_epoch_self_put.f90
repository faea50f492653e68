! ranks: 3
!
! A diagnostics board (use mpi_f08): after each step every rank deposits
! its diagnostics (kinetic energy, largest speed, particle count) into
! its own row of rank 0's window with MPI_Put under an exclusive lock.
! The lock and unlock are skipped when the target is the caller itself,
! as if the own window needed no epoch, so rank 0's MPI_Put runs outside
! any epoch. MPI-4.1 §12.5: RMA communication calls must occur only
! within an access epoch, also to the calling process's own window.
! MPICH and Open MPI fail that MPI_Put with MPI_ERR_RMA_SYNC (the window
! has MPI_ERRORS_RETURN); the program sees ierror and falls back to a
! local copy. mpidbg must report rma-outside-epoch at rank 0's MPI_Put.
program bug_epoch_self_put
  use mpi_f08
  implicit none
  integer, parameter :: ndiag = 3, steps = 4
  double precision, allocatable, asynchronous :: board(:, :)
  double precision :: diag(ndiag), v(100)
  type(MPI_Win) :: win
  integer :: rank, nprocs, step, i, ierr, failed
  integer(kind=MPI_ADDRESS_KIND) :: winsize, disp

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  allocate(board(ndiag, 0:nprocs - 1))
  board = 0d0
  winsize = 0
  if (rank == 0) winsize = 8 * size(board)
  call MPI_Win_create(board, winsize, 8, MPI_INFO_NULL, MPI_COMM_WORLD, win)
  call MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN)

  failed = 0
  do step = 1, steps
    do i = 1, size(v)
      v(i) = sin(dble(i * (rank + 1) + step))
    end do
    diag = [0.5d0 * sum(v**2), maxval(abs(v)), dble(size(v))]
    disp = int(ndiag * rank, MPI_ADDRESS_KIND)
    if (rank /= 0) call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win)
    call MPI_Put(diag, ndiag, MPI_DOUBLE_PRECISION, 0, disp, ndiag, MPI_DOUBLE_PRECISION, win, ierr) ! want "rma-outside-epoch" "no access epoch of this process covers target rank 0"
    if (ierr /= MPI_SUCCESS) then
      failed = failed + 1
      board(:, rank) = diag
    end if
    if (rank /= 0) call MPI_Win_unlock(0, win)
    call MPI_Barrier(MPI_COMM_WORLD)
  end do

  if (rank == 0) then
    call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win)
    if (sum(board(1, :)) < 0d0 .or. failed > steps) call MPI_Abort(MPI_COMM_WORLD, 1)
    call MPI_Win_unlock(0, win)
  end if
  call MPI_Win_free(win)
  deallocate(board)
  call MPI_Finalize()
end program bug_epoch_self_put
