! ranks: 2
!
! One step of a sample sort (use mpi): rank 0 holds sorted keys and sends
! rank 1 the bucket between two splitters, first its length, then the
! keys. The splitters were gathered in descending order, so the bucket's
! first index lies past its last and the count hi - lo + 1 is -2.
! MPI-4.1 §3.2.2: count is a non-negative integer. MPICH and Open MPI
! reject the send (MPI_ERR_COUNT; MPI_COMM_WORLD has MPI_ERRORS_RETURN),
! which rank 0 sees in ierror; rank 1, told a length below 1, receives no
! keys. mpidbg must report negative-count at the MPI_Send of the keys.
program bug_arg_negative_count
  use mpi
  use, intrinsic :: iso_fortran_env, only: error_unit
  implicit none
  integer, parameter :: nkey = 40
  integer :: ierr, rank, keys(nkey), bucket(nkey), splitter(2), lo, hi, n, i

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)

  if (rank == 0) then
    do i = 1, nkey
      keys(i) = 2 * i
    end do
    ! rank 1's bucket is [24, 30]; the splitters came in descending order
    splitter = [30, 24]
    lo = 1
    do while (lo <= nkey .and. keys(lo) < splitter(1))
      lo = lo + 1
    end do
    hi = nkey
    do while (hi >= 1 .and. keys(hi) > splitter(2))
      hi = hi - 1
    end do
    n = hi - lo + 1
    call MPI_Send(n, 1, MPI_INTEGER, 1, 1, MPI_COMM_WORLD, ierr)
    call MPI_Send(keys(lo), n, MPI_INTEGER, 1, 2, MPI_COMM_WORLD, ierr) ! want "negative-count" "MPI_Send: count -2 must be non-negative"
    if (ierr /= MPI_SUCCESS) write (error_unit, '(a, i4)') 'bug_arg_negative_count: the bucket was not sent, count ', n
  else
    call MPI_Recv(n, 1, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    if (n > 0) call MPI_Recv(bucket, n, MPI_INTEGER, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  end if
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program bug_arg_negative_count
