! ranks: 4
!
! A program in the style of an old code (mpif.h) that collects the first
! row of every rank's block of a column-major matrix at the top rank of
! each grid column: on its first call the gathering routine splits
! MPI_COMM_WORLD into column communicators and builds a vector type for
! a row, keeps both for later calls, and a finalize routine frees them
! before MPI_Finalize (the correct twin of bug_leak_type_comm). The top
! ranks check the rows they gathered.
program ok_leak_type_comm
  implicit none
  include 'mpif.h'
  integer, parameter :: n = 8, ncol = 2
  double precision :: a(n, n), rows(n, 4)
  integer :: ierr, rank, nprocs, i, j, k, step
  integer :: colcomm = MPI_COMM_NULL, row_t = MPI_DATATYPE_NULL

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  do step = 1, 3
    do j = 1, n
      do i = 1, n
        a(i, j) = dble(100 * rank + 10 * i + j + step)
      end do
    end do
    call gather_first_rows()
  end do
  call finalize_rows()
  if (rank < ncol) then
    ! rows(:, k): row 1 of grid-column member k, world rank rank + (k - 1) * ncol, in the last step
    do k = 1, nprocs / ncol
      do j = 1, n
        if (abs(rows(j, k) - dble(100 * (rank + (k - 1) * ncol) + 10 + j + 3)) > 0.5d0) then
          print '(a, 2i3, f8.1)', 'ok_leak_type_comm: wrong row element ', j, k, rows(j, k)
          call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
        end if
      end do
    end do
  end if
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a)', 'ok_leak_type_comm: OK'
  call MPI_Finalize(ierr)

contains

  ! gather_first_rows: row 1 of a from every rank of this rank's grid
  ! column into rows at the column's top rank
  subroutine gather_first_rows()
    if (colcomm == MPI_COMM_NULL) then
      call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, ncol), rank, colcomm, ierr)
      call MPI_Type_vector(n, 1, n, MPI_DOUBLE_PRECISION, row_t, ierr)
      call MPI_Type_commit(row_t, ierr)
    end if
    call MPI_Gather(a, 1, row_t, rows, n, MPI_DOUBLE_PRECISION, 0, colcomm, ierr)
  end subroutine gather_first_rows

  subroutine finalize_rows()
    if (colcomm /= MPI_COMM_NULL) then
      call MPI_Comm_free(colcomm, ierr)
      call MPI_Type_free(row_t, ierr)
    end if
  end subroutine finalize_rows
end program ok_leak_type_comm
