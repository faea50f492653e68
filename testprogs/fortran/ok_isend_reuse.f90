! ranks: 2
!
! A pipeline written with mpif.h: each step sends a slab with MPI_Isend
! and fills the next slab only after MPI_Wait (the correct twin of
! bug_isend_reuse).
program ok_isend_reuse
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
      call MPI_Wait(req, status, ierr)
      do i = 1, n
        slab(i) = dble(i + step * n)
      end do
    end do
  else
    do step = 1, steps
      call MPI_Recv(recvd, n, MPI_DOUBLE_PRECISION, 0, step, MPI_COMM_WORLD, status, ierr)
      checksum = checksum + sum(recvd)
    end do
    if (abs(checksum - dble(n) * dble(n + 1) / 2 * steps - dble(n) * dble(n) * 15) > 1d-3) &
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    print '(a)', 'ok_isend_reuse: OK'
  end if
  call MPI_Finalize(ierr)
end program ok_isend_reuse
