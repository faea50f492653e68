! ranks: 2
!
! A time loop (use mpi_f08) in which rank 1 pre-posts an MPI_Irecv for a
! steering command from rank 0 (write a checkpoint, or stop) and polls it
! with MPI_Test every check_every steps. Rank 0 sends its command at the
! start, but the run is shorter than check_every, so rank 1 never tests
! or waits for the request, and it is still active at MPI_Finalize.
! MPI-4.1 §3.7.3 and §11.2.2: every nonblocking operation must be
! completed (MPI_Wait, a successful MPI_Test) or its request freed, and
! all pending communication completed before MPI_FINALIZE. The message
! is small, so natively it arrives and both libraries finalize quietly.
! mpidbg must report request-never-completed at MPI_Finalize, against
! the line that started the receive (the MPI_Irecv, rank 1).
program bug_irecv_never_completed
  use mpi_f08
  implicit none
  integer, parameter :: n = 64, steps = 20, check_every = 50
  integer, parameter :: cmd_none = 0, cmd_checkpoint = 1
  type(MPI_Request) :: steer
  integer :: rank, step, command, i
  logical :: arrived
  double precision :: u(n), total

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  command = cmd_none
  if (rank == 1) then
    call MPI_Irecv(command, 1, MPI_INTEGER, 0, 99, MPI_COMM_WORLD, steer) ! want "request-never-completed" "1 operation started here never completed before MPI_Finalize"
  else
    call MPI_Send(cmd_checkpoint, 1, MPI_INTEGER, 1, 99, MPI_COMM_WORLD)
  end if

  do i = 1, n
    u(i) = dble(i + rank)
  end do
  do step = 1, steps
    u(2:n - 1) = u(2:n - 1) + 0.25d0 * (u(1:n - 2) - 2d0 * u(2:n - 1) + u(3:n))
    if (rank == 1 .and. mod(step, check_every) == 0) then
      call MPI_Test(steer, arrived, MPI_STATUS_IGNORE)
      if (arrived .and. command == cmd_checkpoint) call write_checkpoint(u, step)
    end if
  end do

  call MPI_Allreduce(sum(u), total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  if (total < 0d0) call MPI_Abort(MPI_COMM_WORLD, 1)
  call MPI_Finalize()

contains

  ! the state of a step, for a restart
  subroutine write_checkpoint(v, step)
    double precision, intent(in) :: v(:)
    integer, intent(in) :: step
    integer :: unit
    open (newunit=unit, status='scratch', form='unformatted')
    write (unit) step, v
    close (unit)
  end subroutine write_checkpoint
end program bug_irecv_never_completed
