! ranks: 2
!
! A two-stage pipeline with one-sided double buffering (use mpi_f08):
! rank 0 produces a source profile each step and puts it into one half
! of rank 1's window (MPI_Win_allocate, viewed through c_f_pointer as
! buf(n, 2)); rank 1 integrates the profile of the step before, from the
! other half, which the fence that opened the step delivered (the
! correct twin of bug_rma_double_buffer). Rank 1 checks the integral.
program ok_rma_double_buffer
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  implicit none
  integer, parameter :: n = 256, steps = 5
  type(MPI_Win) :: win
  type(c_ptr) :: base
  double precision, pointer, asynchronous :: buf(:, :)
  double precision :: profile(n), acc, want
  integer :: rank, step, slot
  integer(kind=MPI_ADDRESS_KIND) :: winsize, disp

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  winsize = 0
  if (rank == 1) winsize = 8 * 2 * n
  call MPI_Win_allocate(winsize, 8, MPI_INFO_NULL, MPI_COMM_WORLD, base, win)
  if (rank == 1) then
    call c_f_pointer(base, buf, [n, 2])
    buf = 0d0
  end if

  acc = 0d0
  call MPI_Win_fence(MPI_MODE_NOPRECEDE, win)
  do step = 1, steps
    if (rank == 0) then
      call make_profile(step, profile)
      slot = mod(step, 2)
      disp = int(slot * n, MPI_ADDRESS_KIND)
      call MPI_Put(profile, n, MPI_DOUBLE_PRECISION, 1, disp, n, MPI_DOUBLE_PRECISION, win)
    else if (step > 1) then
      ! the profile of step-1, which the last fence completed
      slot = mod(step - 1, 2)
      acc = acc + sum(buf(:, slot + 1))
    end if
    call MPI_Win_fence(0, win)
  end do
  call MPI_Win_fence(MPI_MODE_NOSUCCEED, win)

  if (rank == 1) then
    want = 0d0
    do step = 1, steps - 1
      call make_profile(step, profile)
      want = want + sum(profile)
    end do
    if (abs(acc - want) > 1d-9 * want) then
      print '(a, 2f14.6)', 'ok_rma_double_buffer: integral ', acc, want
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
    print '(a)', 'ok_rma_double_buffer: OK'
  end if
  call MPI_Win_free(win)
  call MPI_Finalize()

contains

  subroutine make_profile(step, p)
    integer, intent(in) :: step
    double precision, intent(out) :: p(n)
    integer :: k
    do k = 1, n
      p(k) = exp(-dble(k - n / 2)**2 / dble(step * 100))
    end do
  end subroutine make_profile
end program ok_rma_double_buffer
