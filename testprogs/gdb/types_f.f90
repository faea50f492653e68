! types_f.f90: datatypes of a Fortran program for the gdb tests (mpi_f08):
! a column of a 4x3 matrix of DOUBLE PRECISION as an MPI_Type_vector held
! as TYPE(MPI_Datatype), its INTEGER handle (MPI_VAL), and the matrix to
! show through it. One rank is enough.
program types_f
  use mpi_f08
  implicit none
  double precision :: a(4, 3)
  type(MPI_Datatype) :: row_t
  integer :: row_int, i, j

  call MPI_Init()
  do j = 1, 3
    do i = 1, 4
      a(i, j) = dble(10 * i + j)
    end do
  end do
  ! a row of the column-major matrix: 3 elements, 4 apart
  call MPI_Type_vector(3, 1, 4, MPI_DOUBLE_PRECISION, row_t)
  call MPI_Type_commit(row_t)
  call MPI_Type_set_name(row_t, 'row_t')
  row_int = row_t%MPI_VAL
  call MPI_Barrier(MPI_COMM_WORLD) ! stop here
  print '(f6.1, i12)', a(2, 3), row_int
  call MPI_Type_free(row_t)
  call MPI_Finalize()
end program types_f
