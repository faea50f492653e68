! ranks: 2
!
! A row of a column-major matrix described by MPI_Type_vector
! (use mpi_f08), committed before it is sent (the correct twin of
! bug_f08_uncommitted).
program ok_f08_uncommitted
  use mpi_f08
  implicit none
  integer, parameter :: n = 6
  double precision :: a(n, n), row(n)
  type(MPI_Datatype) :: row_t
  type(MPI_Status) :: st
  integer :: rank, i, j, got

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Type_vector(n, 1, n, MPI_DOUBLE_PRECISION, row_t)
  call MPI_Type_commit(row_t)
  if (rank == 0) then
    do j = 1, n
      do i = 1, n
        a(i, j) = dble(10 * i + j)
      end do
    end do
    call MPI_Send(a(2, 1), 1, row_t, 1, 0, MPI_COMM_WORLD)
  else
    row = 0d0
    call MPI_Recv(row, n, MPI_DOUBLE_PRECISION, 0, 0, MPI_COMM_WORLD, st)
    call MPI_Get_count(st, MPI_DOUBLE_PRECISION, got)
    if (got /= n .or. int(row(n)) /= 20 + n) call MPI_Abort(MPI_COMM_WORLD, 1)
    print '(a)', 'ok_f08_uncommitted: OK'
  end if
  call MPI_Type_free(row_t)
  call MPI_Finalize()
end program ok_f08_uncommitted
