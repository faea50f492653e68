! ranks: 3
! needs: debug-registers
!
! A Monte Carlo tally (use mpi): every worker scores samples into a
! histogram, and after each batch deposits the batch's histogram into its
! own slot of rank 0's window (MPI_Win_create on an allocatable array)
! with MPI_Put under a shared lock. To start the next batch sooner it
! clears the histogram before MPI_Win_unlock. MPI-4.1 §12.3.1 and
! §12.5.3: the origin buffer of MPI_Put must not be updated until the
! operation completes at the origin (MPI_Win_unlock here); MPI may read
! it until then, so rank 0 may receive zeros, the batch or a mix.
! mpidbg must report rma-origin-race at the store that clears the
! histogram, with the MPI_Put as the related place.
!
! tally, a local array of the main program, lives on the stack in
! gfortran's frame of MAIN__, just above the stack pointer at the call:
! too large for the debug registers that watch a stack buffer's first
! page, so the tracker watches its first bytes, which the clearing
! store reaches first (docs/races.md, "Stack buffers").
program bug_rma_tally_reset
  use mpi
  implicit none
  integer, parameter :: nbin = 64, nbatch = 4, nsample = 2000
  integer, allocatable :: slots(:)
  integer :: tally(nbin)
  integer :: ierr, rank, nprocs, win, batch, s, bin, nworker
  integer(kind=MPI_ADDRESS_KIND) :: winsize, disp
  double precision :: x
  integer :: seed

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  nworker = nprocs - 1

  ! rank 0 exposes one histogram per worker and batch; the workers expose nothing
  if (rank == 0) then
    allocate(slots(nbin * nbatch * nworker))
  else
    allocate(slots(1))
  end if
  slots = 0
  winsize = size(slots) * 4
  if (rank /= 0) winsize = 0
  call MPI_Win_create(slots, winsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)

  if (rank /= 0) then
    seed = 12345 + 977 * rank
    tally = 0
    do batch = 1, nbatch
      do s = 1, nsample
        x = next_uniform(seed)
        bin = 1 + int(x * x * nbin)
        tally(bin) = tally(bin) + 1
      end do
      disp = int(((rank - 1) * nbatch + batch - 1) * nbin, MPI_ADDRESS_KIND)
      call MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win, ierr)
      call MPI_Put(tally, nbin, MPI_INTEGER, 0, disp, nbin, MPI_INTEGER, win, ierr) ! related "rma-origin-race"
      tally = 0 ! want "rma-origin-race" "stored to the origin buffer at offset 0.* before the MPI_Put completed"
      call MPI_Win_unlock(0, win, ierr)
    end do
  end if
  call MPI_Barrier(MPI_COMM_WORLD, ierr)

  if (rank == 0) then
    call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win, ierr)
    ! fewer samples than scored if a batch was cleared before its put read it
    if (sum(slots) > nworker * nbatch * nsample) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    call MPI_Win_unlock(0, win, ierr)
  end if
  call MPI_Win_free(win, ierr)
  deallocate(slots)
  call MPI_Finalize(ierr)

contains

  ! a linear congruential generator: the same samples on every run
  double precision function next_uniform(state)
    integer, intent(inout) :: state
    state = int(mod(int(state, 8) * 16807_8, 2147483647_8))
    next_uniform = dble(state) / 2147483647d0
  end function next_uniform
end program bug_rma_tally_reset
