! ranks: 4
!
! A small library in the style of an old code (mpif.h) that collects the
! first row of every rank's block of a column-major matrix at the top
! rank of each grid column: on its first call it splits MPI_COMM_WORLD
! into column communicators and builds a vector type for a row (n
! elements, n apart), keeps both in SAVE variables for later calls, and
! has no routine that frees them. MPI-4.1 §7.4.3 and §5.1.9: communicators
! are freed with MPI_COMM_FREE, derived datatypes with MPI_TYPE_FREE; a
! program that creates them in a loop runs out. mpidbg must report
! leak-comm and leak-type (warnings) at MPI_Finalize, against the lines
! that created them (the MPI_Comm_split and the MPI_Type_vector, every
! rank).
program bug_leak_type_comm
  implicit none
  include 'mpif.h'
  integer, parameter :: n = 8, ncol = 2
  double precision :: a(n, n), rows(n, 4)
  integer :: ierr, rank, i, j, step

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  do step = 1, 3
    do j = 1, n
      do i = 1, n
        a(i, j) = dble(100 * rank + 10 * i + j + step)
      end do
    end do
    call gather_first_rows(a, n, ncol, rows)
  end do
  if (rank < ncol .and. rows(n, 1) < 0d0) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  call MPI_Finalize(ierr)
end program bug_leak_type_comm

! gather_first_rows: row 1 of a (n x n, column-major) from every rank of
! this rank's grid column into rows at the column's top rank
subroutine gather_first_rows(a, n, ncol, rows)
  implicit none
  include 'mpif.h'
  integer :: n, ncol
  double precision :: a(n, n), rows(n, *)
  integer, save :: colcomm = MPI_COMM_NULL, row_t = MPI_DATATYPE_NULL
  integer :: ierr, rank

  if (colcomm == MPI_COMM_NULL) then
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, ncol), rank, colcomm, ierr) ! want "leak-comm" "1 communicator made here never freed"
    call MPI_Type_vector(n, 1, n, MPI_DOUBLE_PRECISION, row_t, ierr) ! want "leak-type" "1 datatype made here never freed"
    call MPI_Type_commit(row_t, ierr)
  end if
  call MPI_Gather(a, 1, row_t, rows, n, MPI_DOUBLE_PRECISION, 0, colcomm, ierr)
end subroutine gather_first_rows
