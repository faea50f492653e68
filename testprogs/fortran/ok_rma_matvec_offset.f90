! ranks: 3
!
! A distributed matrix-vector product y = A x (use mpi): the workers
! (ranks 1 and 2) each compute a block of rows of y and put it into
! rank 0's result vector, a window, at the block's global row offset, in
! one fence epoch (the correct twin of bug_rma_matvec_offset). Rank 0
! checks every row.
program ok_rma_matvec_offset
  use mpi
  implicit none
  integer, parameter :: nrow = 96, ncol = 40
  double precision, allocatable :: y(:), yloc(:)
  double precision :: x(ncol)
  integer :: ierr, rank, nprocs, win, m, first, i, j
  integer(kind=MPI_ADDRESS_KIND) :: winsize, disp

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  m = nrow / (nprocs - 1)

  if (rank == 0) then
    allocate(y(nrow))
    winsize = 8 * nrow
  else
    allocate(y(1))
    winsize = 0
  end if
  y = 0d0
  call MPI_Win_create(y, winsize, 8, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)

  do j = 1, ncol
    x(j) = 1d0 / dble(j)
  end do
  call MPI_Win_fence(MPI_MODE_NOPRECEDE, win, ierr)
  if (rank /= 0) then
    first = (rank - 1) * m + 1
    allocate(yloc(m))
    do i = 1, m
      yloc(i) = dot_product(row(first + i - 1), x)
    end do
    disp = first - 1
    call MPI_Put(yloc, m, MPI_DOUBLE_PRECISION, 0, disp, m, MPI_DOUBLE_PRECISION, win, ierr)
  end if
  call MPI_Win_fence(MPI_MODE_NOSUCCEED, win, ierr)

  if (rank == 0) then
    do i = 1, nrow
      if (abs(y(i) - dot_product(row(i), x)) > 1d-9 * abs(y(i))) then
        print '(a, i4, f14.6)', 'ok_rma_matvec_offset: wrong row ', i, y(i)
        call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
      end if
    end do
    print '(a)', 'ok_rma_matvec_offset: OK'
  end if
  call MPI_Win_free(win, ierr)
  deallocate(y)
  if (allocated(yloc)) deallocate(yloc)
  call MPI_Finalize(ierr)

contains

  ! row i of A, generated on the fly
  function row(i)
    integer, intent(in) :: i
    double precision :: row(ncol)
    integer :: k
    do k = 1, ncol
      row(k) = dble(i) + dble(k) / 100d0
    end do
  end function row
end program ok_rma_matvec_offset
