! ranks: 4
!
! A prefix sum along the rows of a 2 x 2 grid of ranks (use mpi_f08):
! MPI_Comm_split makes a communicator per row, and each rank passes its
! running sum to its right neighbour in the row with MPI_Sendrecv; the
! boundary test compares the neighbour with the row's size (the correct
! twin of bug_arg_rank_outside). Every rank checks its prefix sum.
program ok_arg_rank_outside
  use mpi_f08
  implicit none
  integer, parameter :: ncol = 2
  type(MPI_Comm) :: row
  integer :: rank, myrow, rrank, rsize, left, right, ierr, c
  double precision :: mine, carry, prefix, want

  call MPI_Init()
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  myrow = rank / ncol
  call MPI_Comm_split(MPI_COMM_WORLD, myrow, rank, row)
  call MPI_Comm_rank(row, rrank)
  call MPI_Comm_size(row, rsize)

  left = rrank - 1
  if (left < 0) left = MPI_PROC_NULL
  right = rrank + 1
  if (right >= rsize) right = MPI_PROC_NULL
  mine = dble(10 * rank + 1)
  ! a chain along the row: each rank waits for its left neighbour's sum
  carry = 0d0
  if (left /= MPI_PROC_NULL) call MPI_Recv(carry, 1, MPI_DOUBLE_PRECISION, left, 0, row, MPI_STATUS_IGNORE)
  prefix = carry + mine
  call MPI_Send(prefix, 1, MPI_DOUBLE_PRECISION, right, 0, row, ierr)
  if (ierr /= MPI_SUCCESS) call MPI_Abort(MPI_COMM_WORLD, 1)

  want = 0d0
  do c = 0, rrank
    want = want + dble(10 * (myrow * ncol + c) + 1)
  end do
  if (abs(prefix - want) > 1d-12) then
    print '(a, i2, 2f8.1)', 'ok_arg_rank_outside: rank ', rank, prefix, want
    call MPI_Abort(MPI_COMM_WORLD, 2)
  end if
  call MPI_Comm_free(row)
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a)', 'ok_arg_rank_outside: OK'
  call MPI_Finalize()
end program ok_arg_rank_outside
