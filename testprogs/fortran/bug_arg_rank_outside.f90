! ranks: 4
!
! A prefix sum along the rows of a 2 x 2 grid of ranks (use mpi_f08):
! MPI_Comm_split makes a communicator per row, and each rank passes its
! running sum to its right neighbour in the row with MPI_Sendrecv. The
! boundary test compares the neighbour with the size of MPI_COMM_WORLD
! instead of the row's, so the last rank of each row sends to row rank 2
! of a 2-rank communicator. MPI-4.1 §3.2.3: dest is a rank of the
! communicator or MPI_PROC_NULL. MPICH and Open MPI reject the call
! (MPI_ERR_RANK; MPI_COMM_WORLD's MPI_ERRORS_RETURN is inherited by the
! row communicators), which those ranks see in ierror and then receive
! their left neighbour's message alone. mpidbg must report invalid-rank
! at the MPI_Sendrecv (world ranks 1 and 3).
program bug_arg_rank_outside
  use mpi_f08
  implicit none
  integer, parameter :: ncol = 2
  type(MPI_Comm) :: row
  integer :: rank, nprocs, myrow, rrank, left, right, ierr
  double precision :: mine, carry, prefix

  call MPI_Init()
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  myrow = rank / ncol
  call MPI_Comm_split(MPI_COMM_WORLD, myrow, rank, row)
  call MPI_Comm_rank(row, rrank)

  left = rrank - 1
  if (left < 0) left = MPI_PROC_NULL
  right = rrank + 1
  if (right >= nprocs) right = MPI_PROC_NULL ! should be the row's size
  mine = dble(10 * rank + 1)
  ! the first rank of a row starts the sum; the others wait for their left neighbour's
  carry = 0d0
  prefix = mine
  call MPI_Sendrecv(prefix, 1, MPI_DOUBLE_PRECISION, right, 0, carry, 1, MPI_DOUBLE_PRECISION, left, 0, row, &
                    MPI_STATUS_IGNORE, ierr) ! want "invalid-rank" "MPI_Sendrecv: dest 2 is not a rank of the communicator \(size 2\)"
  if (ierr /= MPI_SUCCESS) then
    call MPI_Recv(carry, 1, MPI_DOUBLE_PRECISION, left, 0, row, MPI_STATUS_IGNORE)
  end if
  prefix = carry + mine
  if (prefix < 0d0) call MPI_Abort(MPI_COMM_WORLD, 1)
  call MPI_Comm_free(row)
  call MPI_Finalize()
end program bug_arg_rank_outside
