! ranks: 3
!
! A distributed lookup table in the style of an old code (mpif.h): rank 0
! owns a table of coefficients in a window, and every rank fetches the
! rows of its own block with MPI_Get under a shared lock, in a subroutine
! whose early exit for an empty block jumps to the label of the cleanup,
! MPI_Win_unlock, past the MPI_Win_lock. The last rank's block is empty.
! MPI-4.1 §12.5.3: MPI_Win_unlock completes an access epoch that
! MPI_Win_lock on that target started; there is none. MPICH and Open MPI
! fail the call with MPI_ERR_RMA_SYNC (the window has MPI_ERRORS_RETURN),
! which the caller sees in ierror. mpidbg must report unlock-without-lock
! at the MPI_Win_unlock (the last rank only).
program bug_epoch_unlock_unlocked
  implicit none
  include 'mpif.h'
  integer, parameter :: nrow = 40, ncoef = 4
  double precision :: table(ncoef, nrow), rows(ncoef, nrow)
  integer :: ierr, rank, nprocs, win, first, nmine, i, rejected
  integer(kind=MPI_ADDRESS_KIND) :: winsize

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  do i = 1, nrow
    table(:, i) = dble(i) * [1d0, 0.5d0, 0.25d0, 0.125d0]
  end do
  winsize = 0
  if (rank == 0) winsize = 8 * ncoef * nrow
  call MPI_Win_create(table, winsize, 8, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN, ierr)

  ! blocks of ceiling(nrow / (nprocs - 1)) rows: the last rank gets none
  nmine = (nrow + nprocs - 2) / (nprocs - 1)
  first = rank * nmine + 1
  nmine = max(0, min(nmine, nrow - first + 1))
  rows = 0d0
  call fetch_rows(win, 0, first, nmine, rows, ierr)
  rejected = 0
  if (ierr /= MPI_SUCCESS) rejected = 1

  call MPI_Allreduce(MPI_IN_PLACE, rejected, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rejected >= nprocs) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  call MPI_Win_free(win, ierr)
  call MPI_Finalize(ierr)
end program bug_epoch_unlock_unlocked

! fetch_rows: rows first .. first+n-1 of the owner's table into buf
subroutine fetch_rows(win, owner, first, n, buf, ierr)
  implicit none
  include 'mpif.h'
  integer, parameter :: ncoef = 4
  integer :: win, owner, first, n, ierr
  double precision :: buf(ncoef, *)
  integer(kind=MPI_ADDRESS_KIND) :: disp

  ierr = MPI_SUCCESS
  if (n <= 0) goto 90
  call MPI_Win_lock(MPI_LOCK_SHARED, owner, 0, win, ierr)
  if (ierr /= MPI_SUCCESS) return
  disp = ncoef * (first - 1)
  call MPI_Get(buf, ncoef * n, MPI_DOUBLE_PRECISION, owner, disp, ncoef * n, MPI_DOUBLE_PRECISION, win, ierr)
90 call MPI_Win_unlock(owner, win, ierr) ! want "unlock-without-lock" "target rank 0 is not locked by this process"
end subroutine fetch_rows
