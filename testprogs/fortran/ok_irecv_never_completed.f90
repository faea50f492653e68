! ranks: 2
!
! A time loop (use mpi_f08) in which rank 1 pre-posts an MPI_Irecv for a
! steering command from rank 0 (write a checkpoint, or stop), polls it
! with MPI_Test every check_every steps until it arrives, and waits for
! it after the loop if it has not (the correct twin of
! bug_irecv_never_completed). Rank 1 checks it took the command.
program ok_irecv_never_completed
  use mpi_f08
  implicit none
  integer, parameter :: n = 64, steps = 20, check_every = 8
  integer, parameter :: cmd_none = 0, cmd_checkpoint = 1
  type(MPI_Request) :: steer
  integer :: rank, step, command, i, checkpoints
  logical :: arrived
  double precision :: u(n), total

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  command = cmd_none
  arrived = .false.
  checkpoints = 0
  if (rank == 1) then
    call MPI_Irecv(command, 1, MPI_INTEGER, 0, 99, MPI_COMM_WORLD, steer)
  else
    call MPI_Send(cmd_checkpoint, 1, MPI_INTEGER, 1, 99, MPI_COMM_WORLD)
  end if

  do i = 1, n
    u(i) = dble(i + rank)
  end do
  do step = 1, steps
    u(2:n - 1) = u(2:n - 1) + 0.25d0 * (u(1:n - 2) - 2d0 * u(2:n - 1) + u(3:n))
    if (rank == 1 .and. .not. arrived .and. mod(step, check_every) == 0) then
      call MPI_Test(steer, arrived, MPI_STATUS_IGNORE)
      ! not "arrived .and. command == ...": Fortran need not short-circuit,
      ! and gfortran loads command, still the pending receive's, either way
      if (arrived) then
        if (command == cmd_checkpoint) checkpoints = checkpoints + 1
      end if
    end if
  end do
  ! a command that came after the last poll is taken at the end of the run
  if (rank == 1 .and. .not. arrived) then
    call MPI_Wait(steer, MPI_STATUS_IGNORE)
    if (command == cmd_checkpoint) checkpoints = checkpoints + 1
  end if

  call MPI_Allreduce(sum(u), total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 1) then
    if (checkpoints /= 1 .or. abs(total - 4224d0) > 1d-9) then
      print '(a, i3, f12.4)', 'ok_irecv_never_completed: wrong run ', checkpoints, total
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
    print '(a)', 'ok_irecv_never_completed: OK'
  end if
  call MPI_Finalize()
end program ok_irecv_never_completed
