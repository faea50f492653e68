! ranks: 2
!
! An explicit 1-D heat equation (use mpi_f08) on a line of ranks with
! zero (Dirichlet) ends. Each rank exposes its cells and two ghost cells,
! u(0:n+1), in a window, and every step puts its first and last cell
! into its neighbours' ghost cells in a fence epoch. The ghost cells are
! cleared before the fence that opens the epoch (the correct twin of
! bug_rma_heat_ghost_clear). Every rank checks its cells against the
! same computation done serially.
program ok_rma_heat_ghost_clear
  use mpi_f08
  implicit none
  integer, parameter :: n = 512, steps = 4
  double precision, allocatable, asynchronous :: u(:)
  double precision, allocatable :: g(:), gnew(:)
  double precision :: unew(n), alpha
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
    u(i) = initial(rank * n + i)
  end do
  winsize = 8 * (n + 2)
  call MPI_Win_create(u, winsize, 8, MPI_INFO_NULL, MPI_COMM_WORLD, win)

  do step = 1, steps
    ! zero ends: a ghost no neighbour fills stays 0
    u(0) = 0d0
    u(n + 1) = 0d0
    call MPI_Win_fence(0, win)
    ! my first cell is the left neighbour's right ghost u(n+1), my last the right neighbour's u(0)
    call MPI_Put(u(1), 1, MPI_DOUBLE_PRECISION, left, int(n + 1, MPI_ADDRESS_KIND), 1, MPI_DOUBLE_PRECISION, win)
    call MPI_Put(u(n), 1, MPI_DOUBLE_PRECISION, right, 0_MPI_ADDRESS_KIND, 1, MPI_DOUBLE_PRECISION, win)
    call MPI_Win_fence(0, win)
    do i = 1, n
      unew(i) = u(i) + alpha * (u(i - 1) - 2d0 * u(i) + u(i + 1))
    end do
    u(1:n) = unew
  end do

  ! the whole line on one rank, for comparison
  allocate(g(0:nprocs * n + 1), gnew(nprocs * n))
  do i = 0, nprocs * n + 1
    g(i) = initial(i)
  end do
  do step = 1, steps
    g(0) = 0d0
    g(nprocs * n + 1) = 0d0
    do i = 1, nprocs * n
      gnew(i) = g(i) + alpha * (g(i - 1) - 2d0 * g(i) + g(i + 1))
    end do
    g(1:nprocs * n) = gnew
  end do
  if (maxval(abs(u(1:n) - g(rank * n + 1:rank * n + n))) > 1d-12) then
    print '(a, i3, a, es10.2)', 'ok_rma_heat_ghost_clear: rank ', rank, ' differs by ', &
      maxval(abs(u(1:n) - g(rank * n + 1:rank * n + n)))
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end if
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a)', 'ok_rma_heat_ghost_clear: OK'
  call MPI_Win_free(win)
  deallocate(u, g, gnew)
  call MPI_Finalize()

contains

  double precision function initial(i)
    integer, intent(in) :: i
    initial = sin(3.14159265358979d0 * dble(i) / dble(nprocs * n + 1))
  end function initial
end program ok_rma_heat_ghost_clear
