! ranks: 4
!
! A task farm (use mpi) that tabulates a cumulative distribution: rank 0
! sends each worker the bounds of one subinterval, the workers integrate
! the density over theirs with Simpson's rule, and rank 0 receives the
! integrals from each worker by rank, in subinterval order, before it
! sums them up into the distribution (the correct twin of
! bug_message_race_farm). Rank 0 checks the table against 1 - exp(-x).
program ok_message_race_farm
  use mpi
  implicit none
  integer, parameter :: tag_task = 1, tag_result = 2, npts = 200
  integer :: ierr, rank, nprocs, nworker, w, i
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
    do w = 1, nworker
      call MPI_Recv(part, 1, MPI_DOUBLE_PRECISION, w, tag_result, MPI_COMM_WORLD, status, ierr)
      piece(w) = part
    end do
    cdf(0) = 0d0
    do w = 1, nworker
      cdf(w) = cdf(w - 1) + piece(w)
      if (abs(cdf(w) - (1d0 - exp(-3d0 * dble(w) / dble(nworker)))) > 1d-8) then
        print '(a, i2, f12.8)', 'ok_message_race_farm: wrong entry ', w, cdf(w)
        call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
      end if
    end do
    print '(a)', 'ok_message_race_farm: OK'
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
end program ok_message_race_farm
