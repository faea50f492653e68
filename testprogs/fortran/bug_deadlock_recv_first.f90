! ranks: 2
! native: hangs
!
! A particle exchange between two subdomains (use mpi_f08): each rank
! first receives the number of particles that cross over from its
! partner, then sends its own count, then the particles. Both ranks start with the blocking MPI_Recv, so each waits
! for a send the other makes only after its receive returns. MPI-4.1
! §3.5 (the example of two processes that both receive first): this
! program deadlocks whatever the buffering. mpidbg must report deadlock
! at rank 0's MPI_Recv, the call where the lowest rank of the cycle
! blocks, with the deadlock's wait-for cycle (rank 0 -> rank 1 -> rank 0),
! and end the job.
program bug_deadlock_recv_first
  use mpi_f08
  implicit none
  integer, parameter :: maxp = 100
  integer :: rank, partner, nout, nin, i
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

  call MPI_Recv(nin, 1, MPI_INTEGER, partner, 1, MPI_COMM_WORLD, status) ! want "deadlock" "a cycle: rank 0 → rank 1 → rank 0"
  call MPI_Send(nout, 1, MPI_INTEGER, partner, 1, MPI_COMM_WORLD)
  call MPI_Recv(xin, 3 * nin, MPI_DOUBLE_PRECISION, partner, 2, MPI_COMM_WORLD, status)
  call MPI_Send(xout, 3 * nout, MPI_DOUBLE_PRECISION, partner, 2, MPI_COMM_WORLD)

  if (nin < 0 .or. xin(1, 1) < 0d0) call MPI_Abort(MPI_COMM_WORLD, 1)
  call MPI_Finalize()
end program bug_deadlock_recv_first
