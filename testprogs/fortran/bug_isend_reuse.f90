! ranks: 2
! needs: debug-registers
!
! A pipeline written with mpif.h: each step sends a slab with MPI_Isend
! and starts filling the next slab into the same array before MPI_Wait
! (MPI-4.1 §3.7.3: the send buffer must not be modified until the send
! completes).
program bug_isend_reuse
  implicit none
  include 'mpif.h'
  integer, parameter :: n = 4096, steps = 6
  double precision :: slab(n), recvd(n)
  integer :: ierr, rank, req, step, i
  integer :: status(MPI_STATUS_SIZE)
  double precision :: checksum

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  checksum = 0d0
  if (rank == 0) then
    do i = 1, n
      slab(i) = dble(i)
    end do
    do step = 1, steps
      call MPI_Isend(slab, n, MPI_DOUBLE_PRECISION, 1, step, MPI_COMM_WORLD, req, ierr)
      do i = 1, n
        slab(i) = dble(i + step * n) ! want "send-buffer-write" "element \(1\)\(DOUBLE_PRECISION\), before the send completed"
      end do
      call MPI_Wait(req, status, ierr)
    end do
  else
    do step = 1, steps
      call MPI_Recv(recvd, n, MPI_DOUBLE_PRECISION, 0, step, MPI_COMM_WORLD, status, ierr)
      checksum = checksum + sum(recvd)
    end do
    if (checksum < 0d0) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  call MPI_Finalize(ierr)
end program bug_isend_reuse
