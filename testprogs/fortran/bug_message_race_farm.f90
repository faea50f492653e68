! ranks: 4
! flags: --checks=+message-race-info
!
! A task farm (use mpi) that tabulates a cumulative distribution: rank 0
! sends each worker the bounds of one subinterval, the workers integrate
! the density over theirs with Simpson's rule, and rank 0 collects the
! integrals with MPI_ANY_SOURCE, storing each in the slot of its arrival
! instead of the slot of its sender (status(MPI_SOURCE)), then sums them
! up into the distribution. MPI-4.1 §3.5: with MPI_ANY_SOURCE the message
! matched depends on arrival order, which MPI does not fix; nothing
! orders the workers' sends, so the table comes out permuted from run to
! run. Every candidate message fits the receive, so no other order makes
! MPI fail: the bug is in what the program does with the order, which
! mpidbg reports only when asked: message-race-info at the MPI_Recv, with
! --checks +message-race-info.
program bug_message_race_farm
  use mpi
  implicit none
  integer, parameter :: tag_task = 1, tag_result = 2, npts = 200
  integer :: ierr, rank, nprocs, nworker, w, i, k
  integer :: status(MPI_STATUS_SIZE)
  double precision :: bounds(2), part, h, x
  double precision, allocatable :: piece(:), cdf(:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  nworker = nprocs - 1

  if (rank == 0) then
    allocate(piece(nworker), cdf(0:nworker))
    do w = 1, nworker
      bounds = [dble(w - 1), dble(w)] * 3d0 / dble(nworker)
      call MPI_Send(bounds, 2, MPI_DOUBLE_PRECISION, w, tag_task, MPI_COMM_WORLD, ierr)
    end do
    do k = 1, nworker
      call MPI_Recv(part, 1, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, tag_result, MPI_COMM_WORLD, status, ierr) ! want "message-race-info" "can match the message of rank [1-3]"
      piece(k) = part ! should be piece(status(MPI_SOURCE))
    end do
    cdf(0) = 0d0
    do w = 1, nworker
      cdf(w) = cdf(w - 1) + piece(w)
    end do
    if (cdf(nworker) <= 0d0) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  else
    call MPI_Recv(bounds, 2, MPI_DOUBLE_PRECISION, 0, tag_task, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    ! Simpson's rule for the density exp(-x) on [a, b]
    h = (bounds(2) - bounds(1)) / dble(npts)
    part = exp(-bounds(1)) + exp(-bounds(2))
    do i = 1, npts - 1
      x = bounds(1) + dble(i) * h
      part = part + dble(2 + 2 * mod(i, 2)) * exp(-x)
    end do
    part = part * h / 3d0
    call MPI_Send(part, 1, MPI_DOUBLE_PRECISION, 0, tag_result, MPI_COMM_WORLD, ierr)
  end if
  call MPI_Finalize(ierr)
end program bug_message_race_farm
