! ranks: 2
!
! A particle exchange between two subdomains (use mpi_f08): each rank
! swaps its count of crossing particles with its partner's in one
! MPI_Sendrecv, then the particles in another, so neither waits for a
! send the other has not reached (the correct twin of
! bug_deadlock_recv_first). Each rank checks what it received.
program ok_deadlock_recv_first
  use mpi_f08
  implicit none
  integer, parameter :: maxp = 100
  integer :: rank, partner, nout, nin, i, got
  type(MPI_Status) :: status
  double precision :: xout(3, maxp), xin(3, maxp)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  partner = 1 - rank
  ! the particles of this subdomain that left it through the interface
  nout = 10 + 7 * rank
  do i = 1, nout
    xout(:, i) = [dble(rank) + 0.01d0 * dble(i), 0.5d0, 0.25d0]
  end do

  call MPI_Sendrecv(nout, 1, MPI_INTEGER, partner, 1, nin, 1, MPI_INTEGER, partner, 1, MPI_COMM_WORLD, status)
  call MPI_Sendrecv(xout, 3 * nout, MPI_DOUBLE_PRECISION, partner, 2, xin, 3 * maxp, MPI_DOUBLE_PRECISION, &
                    partner, 2, MPI_COMM_WORLD, status)
  call MPI_Get_count(status, MPI_DOUBLE_PRECISION, got)

  if (nin /= 10 + 7 * partner .or. got /= 3 * nin .or. abs(xin(1, nin) - (dble(partner) + 0.01d0 * dble(nin))) > 1d-12) then
    print '(a, 2i4)', 'ok_deadlock_recv_first: wrong particles ', nin, got
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end if
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a)', 'ok_deadlock_recv_first: OK'
  call MPI_Finalize()
end program ok_deadlock_recv_first
