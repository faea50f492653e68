! ranks: 3
!
! A distributed matrix-vector product y = A x (use mpi): the workers
! (ranks 1 and 2) each compute a block of rows of y and put it into
! rank 0's result vector, a window, in one fence epoch. The target
! displacement is the block's local start (0) instead of its global row
! offset, so both workers write y(1:m) of rank 0. MPI-4.1 §12.7:
! concurrent conflicting accesses to one window location are erroneous
! (only accumulates with the same operation and basic datatype may be
! concurrent); rank 0 ends with either block, or a mix. mpidbg must
! report rma-conflict at the MPI_Put (the first origin's; the other
! origin's call, the same line, is the related place).
program bug_rma_matvec_offset
  use mpi
  implicit none
  integer, parameter :: nrow = 96, ncol = 40
  double precision, allocatable :: y(:), yloc(:)
  double precision :: a(ncol), x(ncol)
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
      ! row first+i-1 of A, generated on the fly
      do j = 1, ncol
        a(j) = dble(first + i - 1) + dble(j) / 100d0
      end do
      yloc(i) = dot_product(a, x)
    end do
    disp = 0 ! should be first - 1: the block's global offset in y
    call MPI_Put(yloc, m, MPI_DOUBLE_PRECISION, 0, disp, m, MPI_DOUBLE_PRECISION, win, ierr) ! want "rma-conflict" "rank 1.s MPI_Put and rank 2.s MPI_Put touch the same bytes"
  end if
  call MPI_Win_fence(MPI_MODE_NOSUCCEED, win, ierr)

  if (rank == 0 .and. y(1) < 0d0) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  call MPI_Win_free(win, ierr)
  deallocate(y)
  if (allocated(yloc)) deallocate(yloc)
  call MPI_Finalize(ierr)
end program bug_rma_matvec_offset
