! ranks: 3
!
! Workers report their particle counts per cell to rank 0 as INTEGERs;
! rank 0 receives them as REALs (same size, different type: MPI-4.1
! §3.3.1, the types must match).
program bug_integer_as_real
  use mpi
  implicit none
  integer, parameter :: ncell = 16
  integer :: ierr, rank, nprocs, src, i
  integer :: counts(ncell)
  real :: incoming(ncell), total(ncell)
  integer :: status(MPI_STATUS_SIZE)

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
      call MPI_Recv(incoming, ncell, MPI_REAL, src, 7, MPI_COMM_WORLD, status, ierr) ! want "type-mismatch" "sends MPI_INTEGER\(1\) where rank 0 receives MPI_REAL\(1\): element 1 "
      total = total + incoming
    end do
    if (sum(total) < 0.0) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  call MPI_Finalize(ierr)
end program bug_integer_as_real
