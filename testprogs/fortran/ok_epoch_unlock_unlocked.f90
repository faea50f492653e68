! ranks: 3
!
! A distributed lookup table in the style of an old code (mpif.h): rank 0
! owns a table of coefficients in a window, and every rank fetches the
! rows of its own block with MPI_Get under a shared lock, in a subroutine
! whose early exit for an empty block (the last rank's) jumps past both
! MPI_Win_lock and MPI_Win_unlock (the correct twin of
! bug_epoch_unlock_unlocked). Every rank checks the rows it fetched.
program ok_epoch_unlock_unlocked
  implicit none
  include 'mpif.h'
  integer, parameter :: nrow = 40, ncoef = 4
  double precision :: table(ncoef, nrow), rows(ncoef, nrow)
  integer :: ierr, rank, nprocs, win, first, nmine, i, bad
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
  bad = 0
  if (ierr /= MPI_SUCCESS) bad = 1
  do i = 1, nmine
    if (abs(rows(2, i) - 0.5d0 * dble(first + i - 1)) > 1d-12) bad = 1
  end do

  call MPI_Allreduce(MPI_IN_PLACE, bad, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (bad /= 0) then
    print '(a, i2, a)', 'ok_epoch_unlock_unlocked: ', bad, ' ranks fetched wrong rows'
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  if (rank == 0) print '(a)', 'ok_epoch_unlock_unlocked: OK'
  call MPI_Win_free(win, ierr)
  call MPI_Finalize(ierr)
end program ok_epoch_unlock_unlocked

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
  call MPI_Win_unlock(owner, win, ierr)
90 continue
end subroutine fetch_rows
