! ranks: 2
!
! A column of a matrix is described by MPI_Type_vector (use mpi_f08) and
! sent without MPI_Type_commit (MPI-4.1 §5.1.9: a datatype must be
! committed before it is used in communication). The library rejects
! the send (MPI_ERRORS_RETURN is set) and the program falls back to
! copying the row; mpidbg reports the call.
program bug_f08_uncommitted
  use mpi_f08
  implicit none
  integer, parameter :: n = 6
  double precision :: a(n, n), col(n)
  type(MPI_Datatype) :: row_t
  integer :: rank, i, j, ierr

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  ! a row of a column-major matrix: n elements, n apart
  call MPI_Type_vector(n, 1, n, MPI_DOUBLE_PRECISION, row_t)
  if (rank == 0) then
    do j = 1, n
      do i = 1, n
        a(i, j) = dble(10 * i + j)
      end do
    end do
    call MPI_Send(a(2, 1), 1, row_t, 1, 0, MPI_COMM_WORLD, ierr) ! want "type-not-committed"
    if (ierr /= MPI_SUCCESS) then
      col = a(2, :)
      call MPI_Send(col, n, MPI_DOUBLE_PRECISION, 1, 0, MPI_COMM_WORLD)
    end if
  else
    col = 0d0
    call MPI_Recv(col, n, MPI_DOUBLE_PRECISION, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  end if
  call MPI_Type_free(row_t)
  call MPI_Finalize()
end program bug_f08_uncommitted
