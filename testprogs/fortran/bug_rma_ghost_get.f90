! ranks: 2
!
! A 1-D upwind advection step in the style of an old code (mpif.h, the
! fields in COMMON blocks). Each rank exposes its cells u(1:n) in a window
! and fetches the first ng cells of its right neighbour with MPI_Get in a
! fence epoch; it computes the flux at its right boundary from those ghost
! cells before the fence that ends the epoch, then the interior fluxes.
! MPI-4.1 §12.3.2 and §12.5.1: the result buffer of MPI_Get must not be
! accessed until the operation completes at the origin (the closing
! MPI_Win_fence); until then it may hold old data, new data or a mix.
! mpidbg must report rma-origin-race at the load of ghost(1), with the
! MPI_Get as the related place.
program bug_rma_ghost_get
  implicit none
  include 'mpif.h'
  integer, parameter :: n = 2048, ng = 2, steps = 3
  double precision :: u(n), ghost(ng), flux(0:n)
  common /field/ u
  common /halo/ ghost
  integer :: ierr, rank, nprocs, right, left, win, step, i
  integer(kind=MPI_ADDRESS_KIND) :: winsize, disp
  double precision :: c, mass, total

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)
  c = 0.4d0

  do i = 1, n
    u(i) = 1d0 + dble(mod(rank * n + i, 17)) / 17d0
  end do
  ghost = 0d0
  winsize = 8 * n
  call MPI_Win_create(u, winsize, 8, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)

  disp = 0
  do step = 1, steps
    call MPI_Win_fence(MPI_MODE_NOPRECEDE, win, ierr)
    call MPI_Get(ghost, ng, MPI_DOUBLE_PRECISION, right, disp, ng, MPI_DOUBLE_PRECISION, win, ierr) ! related "rma-origin-race"
    ! the flux through the right face: the left-moving wave comes from the neighbour's first cell
    flux(n) = c * u(n) - 0.1d0 * (ghost(1) - u(n)) ! want "rma-origin-race" "loaded from the result buffer at offset 0.* before the MPI_Get completed"
    call MPI_Win_fence(MPI_MODE_NOSTORE + MPI_MODE_NOPUT + MPI_MODE_NOSUCCEED, win, ierr)
    do i = 1, n - 1
      flux(i) = c * u(i) - 0.1d0 * (u(i + 1) - u(i))
    end do
    ! the left face's flux is the left neighbour's right one: a periodic ring, exchanged
    call MPI_Sendrecv(flux(n), 1, MPI_DOUBLE_PRECISION, right, step, flux(0), 1, MPI_DOUBLE_PRECISION, &
                      left, step, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    ! no access to u by others in this epoch: the window is idle between the fences
    do i = 1, n
      u(i) = u(i) - (flux(i) - flux(i - 1))
    end do
  end do

  mass = sum(u)
  call MPI_Allreduce(mass, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (total <= 0d0) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  call MPI_Win_free(win, ierr)
  call MPI_Finalize(ierr)
end program bug_rma_ghost_get
