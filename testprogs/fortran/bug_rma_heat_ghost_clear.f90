! ranks: 2
!
! An explicit 1-D heat equation (use mpi_f08) on a line of ranks with
! zero (Dirichlet) ends. Each rank exposes its cells and two ghost cells,
! u(0:n+1), in a window, and every step puts its first and last cell
! into its neighbours' ghost cells in a fence epoch. The ghost cells are
! cleared for the step after the fence that opens the epoch, while the
! neighbour's MPI_Put may already be writing them. MPI-4.1 §12.7: a
! location updated by a put must not be accessed by a load or store at
! the target until the update completes there; whichever value lands
! last remains. mpidbg must report rma-target-race at each rank's store
! into the ghost cell its neighbour puts into (rank 0: u(n+1), rank 1:
! u(0)), with the neighbour's MPI_Put as the related place.
program bug_rma_heat_ghost_clear
  use mpi_f08
  implicit none
  integer, parameter :: n = 512, steps = 4
  double precision, allocatable, asynchronous :: u(:)
  double precision :: unew(n), alpha, heat, total
  type(MPI_Win) :: win
  integer :: rank, nprocs, left, right, step, i
  integer(kind=MPI_ADDRESS_KIND) :: winsize

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  left = rank - 1
  right = rank + 1
  if (left < 0) left = MPI_PROC_NULL
  if (right >= nprocs) right = MPI_PROC_NULL
  alpha = 0.25d0

  allocate(u(0:n + 1))
  do i = 0, n + 1
    u(i) = sin(3.14159265358979d0 * dble(rank * n + i) / dble(nprocs * n + 1))
  end do
  winsize = 8 * (n + 2)
  call MPI_Win_create(u, winsize, 8, MPI_INFO_NULL, MPI_COMM_WORLD, win)

  do step = 1, steps
    call MPI_Win_fence(0, win)
    ! my first cell is the left neighbour's right ghost u(n+1), my last the right neighbour's u(0)
    call MPI_Put(u(1), 1, MPI_DOUBLE_PRECISION, left, int(n + 1, MPI_ADDRESS_KIND), 1, MPI_DOUBLE_PRECISION, win) ! related "rma-target-race"
    call MPI_Put(u(n), 1, MPI_DOUBLE_PRECISION, right, 0_MPI_ADDRESS_KIND, 1, MPI_DOUBLE_PRECISION, win) ! related "rma-target-race"
    ! zero ends: a ghost no neighbour fills stays 0
    u(0) = 0d0 ! want "rma-target-race" "rank 1 stores to its own window memory .* while rank 0's MPI_Put updates the same bytes"
    u(n + 1) = 0d0 ! want "rma-target-race" "rank 0 stores to its own window memory .* while rank 1's MPI_Put updates the same bytes"
    call MPI_Win_fence(0, win)
    do i = 1, n
      unew(i) = u(i) + alpha * (u(i - 1) - 2d0 * u(i) + u(i + 1))
    end do
    u(1:n) = unew
  end do

  heat = sum(u(1:n))
  call MPI_Allreduce(heat, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  if (total < 0d0) call MPI_Abort(MPI_COMM_WORLD, 1)
  call MPI_Win_free(win)
  deallocate(u)
  call MPI_Finalize()
end program bug_rma_heat_ghost_clear
