! ranks: 2
!
! One step of a sample sort (use mpi): rank 0 holds sorted keys and sends
! rank 1 the bucket between two splitters, gathered in ascending order,
! first its length, then the keys (the correct twin of
! bug_arg_negative_count). Rank 1 checks the bucket.
program ok_arg_negative_count
  use mpi
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
    ! rank 1's bucket is [24, 30]
    splitter = [24, 30]
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
    call MPI_Send(keys(lo), n, MPI_INTEGER, 1, 2, MPI_COMM_WORLD, ierr)
    if (ierr /= MPI_SUCCESS) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  else
    call MPI_Recv(n, 1, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    if (n > 0) call MPI_Recv(bucket, n, MPI_INTEGER, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    if (n /= 4 .or. bucket(1) /= 24 .or. bucket(4) /= 30) then
      print '(a, i4)', 'ok_arg_negative_count: wrong bucket of ', n
      call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
    end if
    print '(a)', 'ok_arg_negative_count: OK'
  end if
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program ok_arg_negative_count
