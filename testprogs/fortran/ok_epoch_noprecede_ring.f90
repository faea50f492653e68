! ranks: 2
!
! Advection on a periodic ring of ranks (use mpi_f08): each step a rank
! moves a fraction of its last cell's mass out and puts that outflow
! into one half of its right neighbour's inbox window (the halves
! alternate, so that the inflow delivered by a fence is read while the
! next outflow lands in the other half). The fence at the top of the
! loop completes the previous step's put and opens the next epoch; only
! the first asserts MPI_MODE_NOPRECEDE (the correct twin of
! bug_epoch_noprecede_ring). The ring conserves mass, which rank 0 checks.
program ok_epoch_noprecede_ring
  use mpi_f08
  implicit none
  integer, parameter :: n = 32, steps = 6
  double precision, allocatable, asynchronous :: inbox(:)
  double precision :: u(n), flux(n), outflow, mass, total
  type(MPI_Win) :: win
  integer :: rank, nprocs, right, step, half
  integer(kind=MPI_ADDRESS_KIND) :: winsize

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  right = mod(rank + 1, nprocs)
  allocate(inbox(0:1))
  inbox = 0d0
  winsize = 8 * 2
  call MPI_Win_create(inbox, winsize, 8, MPI_INFO_NULL, MPI_COMM_WORLD, win)
  u = dble(rank + 1)

  do step = 1, steps
    ! nothing precedes the first fence; every later one completes a put
    if (step == 1) then
      call MPI_Win_fence(MPI_MODE_NOPRECEDE, win)
    else
      call MPI_Win_fence(0, win)
    end if
    half = mod(step, 2)
    ! the inflow the fence just delivered, from the step before
    if (step > 1) then
      u(1) = u(1) + inbox(1 - half)
      inbox(1 - half) = 0d0
    end if
    ! upwind: a tenth of every cell moves one cell right
    flux = 0.1d0 * u
    u = u - flux
    u(2:n) = u(2:n) + flux(1:n - 1)
    outflow = flux(n)
    call MPI_Put(outflow, 1, MPI_DOUBLE_PRECISION, right, int(half, MPI_ADDRESS_KIND), 1, MPI_DOUBLE_PRECISION, &
                 win)
  end do
  call MPI_Win_fence(MPI_MODE_NOSUCCEED, win)
  mass = sum(u) + inbox(mod(steps, 2))

  call MPI_Allreduce(mass, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  if (abs(total - dble(n * nprocs * (nprocs + 1) / 2)) > 1d-9 * total) then
    print '(a, f12.6)', 'ok_epoch_noprecede_ring: mass not conserved ', total
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end if
  if (rank == 0) print '(a)', 'ok_epoch_noprecede_ring: OK'
  call MPI_Win_free(win)
  deallocate(inbox)
  call MPI_Finalize()
end program ok_epoch_noprecede_ring
