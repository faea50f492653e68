! ranks: 3
!
! Workers report their particle counts per cell to rank 0 as INTEGERs
! and rank 0 receives INTEGERs, then converts (the correct twin of
! bug_integer_as_real).
program ok_integer_as_real
  use mpi
  implicit none
  integer, parameter :: ncell = 16
  integer :: ierr, rank, nprocs, src, i
  integer :: counts(ncell), incoming(ncell)
  real :: total(ncell)
  integer :: status(MPI_STATUS_SIZE), got

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  if (rank /= 0) then
    do i = 1, ncell
      counts(i) = rank * i
    end do
    call MPI_Send(counts, ncell, MPI_INTEGER, 0, 7, MPI_COMM_WORLD, ierr)
  else
    total = 0.0
    do src = 1, nprocs - 1
      call MPI_Recv(incoming, ncell, MPI_INTEGER, src, 7, MPI_COMM_WORLD, status, ierr)
      call MPI_Get_count(status, MPI_INTEGER, got, ierr)
      if (got /= ncell .or. status(MPI_SOURCE) /= src) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
      total = total + real(incoming)
    end do
    if (abs(sum(total) - real(136 * (nprocs - 1) * nprocs / 2)) > 0.5) call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
    print '(a)', 'ok_integer_as_real: OK'
  end if
  call MPI_Finalize(ierr)
end program ok_integer_as_real
