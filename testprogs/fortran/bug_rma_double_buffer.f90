! ranks: 2
!
! A two-stage pipeline with one-sided double buffering (use mpi_f08):
! rank 0 produces a source profile each step and puts it into one half
! of rank 1's window (MPI_Win_allocate, viewed through c_f_pointer as
! buf(n, 2)); rank 1 integrates the profile of the step before, which
! the fence that opened the step delivered into the other half. The
! consumer picks its half with the producer's parity, mod(step, 2),
! instead of mod(step - 1, 2), so it reads the half rank 0 is writing in
! the same fence epoch. MPI-4.1 §12.7: a location updated by a put must
! not be accessed by a load at the target until the update completes
! there (the next fence); the load may see the old value, the new one or
! a mix. mpidbg must report rma-target-race at rank 1's load, with rank
! 0's MPI_Put as the related place.
program bug_rma_double_buffer
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  implicit none
  integer, parameter :: n = 256, steps = 5
  type(MPI_Win) :: win
  type(c_ptr) :: base
  double precision, pointer, asynchronous :: buf(:, :)
  double precision :: profile(n), acc
  integer :: rank, step, i, slot
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
    slot = mod(step, 2)
    if (rank == 0) then
      do i = 1, n
        profile(i) = exp(-dble(i - n / 2)**2 / dble(step * 100))
      end do
      disp = int(slot * n, MPI_ADDRESS_KIND)
      call MPI_Put(profile, n, MPI_DOUBLE_PRECISION, 1, disp, n, MPI_DOUBLE_PRECISION, win) ! related "rma-target-race"
    else if (step > 1) then
      ! the profile of step-1: should be column mod(step - 1, 2) + 1
      acc = acc + sum(buf(:, slot + 1)) ! want "rma-target-race" "loads from its own window memory .* while rank 0's MPI_Put updates the same bytes"
    end if
    call MPI_Win_fence(0, win)
  end do
  call MPI_Win_fence(MPI_MODE_NOSUCCEED, win)

  if (rank == 1 .and. acc < 0d0) call MPI_Abort(MPI_COMM_WORLD, 1)
  call MPI_Win_free(win)
  call MPI_Finalize()
end program bug_rma_double_buffer
