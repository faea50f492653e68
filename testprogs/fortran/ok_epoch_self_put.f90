! ranks: 3
!
! A diagnostics board (use mpi_f08): after each step every rank deposits
! its diagnostics (kinetic energy, largest speed, particle count) into
! its own row of rank 0's window with MPI_Put under an exclusive lock,
! rank 0 too, which locks its own window like any other target (the
! correct twin of bug_epoch_self_put). Rank 0 checks the last step's
! board against the diagnostics recomputed.
program ok_epoch_self_put
  use mpi_f08
  implicit none
  integer, parameter :: ndiag = 3, steps = 4
  double precision, allocatable, asynchronous :: board(:, :)
  double precision :: diag(ndiag)
  type(MPI_Win) :: win
  integer :: rank, nprocs, step, r, ierr
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

  do step = 1, steps
    call diagnostics(rank, step, diag)
    disp = int(ndiag * rank, MPI_ADDRESS_KIND)
    call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win)
    call MPI_Put(diag, ndiag, MPI_DOUBLE_PRECISION, 0, disp, ndiag, MPI_DOUBLE_PRECISION, win, ierr)
    if (ierr /= MPI_SUCCESS) call MPI_Abort(MPI_COMM_WORLD, 1)
    call MPI_Win_unlock(0, win)
    call MPI_Barrier(MPI_COMM_WORLD)
  end do

  if (rank == 0) then
    call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win)
    do r = 0, nprocs - 1
      call diagnostics(r, steps, diag)
      if (maxval(abs(board(:, r) - diag)) > 1d-12) then
        print '(a, i2, 3f12.6)', 'ok_epoch_self_put: wrong row ', r, board(:, r)
        call MPI_Abort(MPI_COMM_WORLD, 2)
      end if
    end do
    call MPI_Win_unlock(0, win)
    print '(a)', 'ok_epoch_self_put: OK'
  end if
  call MPI_Win_free(win)
  deallocate(board)
  call MPI_Finalize()

contains

  ! the diagnostics of rank r's particles after a step
  subroutine diagnostics(r, step, d)
    integer, intent(in) :: r, step
    double precision, intent(out) :: d(ndiag)
    double precision :: v(100)
    integer :: i
    do i = 1, size(v)
      v(i) = sin(dble(i * (r + 1) + step))
    end do
    d = [0.5d0 * sum(v**2), maxval(abs(v)), dble(size(v))]
  end subroutine diagnostics
end program ok_epoch_self_put
