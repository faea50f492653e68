! ranks: 4
!
! The west ghost row is placed one row too far in (row 1, the first
! interior row, which the west send reads while the receive writes it;
! the first and last interior columns share its corners). MPI-4.1 §3.7.2.
! A Jacobi sweep on a 2-D Cartesian grid of ranks (use mpi_f08). Each
! rank owns u(1:nx, 1:ny) of a column-major array with one ghost layer;
! the four faces are described by MPI_ORDER_FORTRAN subarrays (rows are
! strided, columns contiguous) and exchanged with Irecv/Isend/Waitall.
program bug_halo2d_ghost
  use mpi_f08
  implicit none
  integer, parameter :: nx = 12, ny = 10, steps = 20
  double precision :: u(0:nx+1, 0:ny+1), unew(nx, ny)
  type(MPI_Comm) :: grid
  type(MPI_Datatype) :: send_t(4), recv_t(4)
  type(MPI_Request) :: reqs(8)
  integer :: dims(2), coords(2), nbr(4), rank, nprocs, step, k
  logical :: periods(2)
  double precision :: resid, total

  call MPI_Init()
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  dims = 0
  call MPI_Dims_create(nprocs, 2, dims)
  periods = .true.
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .true., grid)
  call MPI_Comm_rank(grid, rank)
  call MPI_Cart_coords(grid, rank, 2, coords)
  ! neighbours: 1 west (i-1), 2 east (i+1), 3 south (j-1), 4 north (j+1)
  call MPI_Cart_shift(grid, 0, 1, nbr(1), nbr(2))
  call MPI_Cart_shift(grid, 1, 1, nbr(3), nbr(4))

  ! faces: what a rank sends from its interior, where it receives into its ghosts
  call face(1, 1, 1, ny, send_t(1))          ! first interior row
  call face(nx, 1, 1, ny, send_t(2))         ! last interior row
  call face(1, nx, 1, 1, send_t(3))          ! first interior column
  call face(1, nx, ny, 1, send_t(4))         ! last interior column
  call face(1, 1, 1, ny, recv_t(1))          ! west ghost row: off by one, the first interior row
  call face(nx + 1, 1, 1, ny, recv_t(2))     ! east ghost row
  call face(1, nx, 0, 1, recv_t(3))          ! south ghost column
  call face(1, nx, ny + 1, 1, recv_t(4))     ! north ghost column

  u = 0d0
  u(1:nx, 1:ny) = dble(rank + 1)
  do step = 1, steps
    do k = 1, 4
      call MPI_Irecv(u, 1, recv_t(k), nbr(k), k, grid, reqs(k))
    end do
    ! what goes west arrives as the neighbour's east ghost: tag of the receiving side
    call MPI_Isend(u, 1, send_t(1), nbr(1), 2, grid, reqs(5)) ! want "buffer-overlap" "reads memory that the MPI_Irecv still in progress writes.* element \(SUBARRAY\)\(1,1\)\(DOUBLE_PRECISION\) here"
    call MPI_Isend(u, 1, send_t(2), nbr(2), 1, grid, reqs(6))
    call MPI_Isend(u, 1, send_t(3), nbr(3), 4, grid, reqs(7)) ! want "buffer-overlap"
    call MPI_Isend(u, 1, send_t(4), nbr(4), 3, grid, reqs(8)) ! want "buffer-overlap"
    call MPI_Waitall(8, reqs, MPI_STATUSES_IGNORE)
    unew = 0.25d0 * (u(0:nx-1, 1:ny) + u(2:nx+1, 1:ny) + u(1:nx, 0:ny-1) + u(1:nx, 2:ny+1))
    resid = sum((unew - u(1:nx, 1:ny))**2)
    u(1:nx, 1:ny) = unew
  end do
  call MPI_Allreduce(resid, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, grid)

  do k = 1, 4
    call MPI_Type_free(send_t(k))
    call MPI_Type_free(recv_t(k))
  end do
  call MPI_Comm_free(grid)
  call MPI_Finalize()

contains

  ! face: the block of rows i0..i0+ni-1 and columns j0..j0+nj-1 of u
  subroutine face(i0, ni, j0, nj, t)
    integer, intent(in) :: i0, ni, j0, nj
    type(MPI_Datatype), intent(out) :: t
    call MPI_Type_create_subarray(2, [nx + 2, ny + 2], [ni, nj], [i0, j0], MPI_ORDER_FORTRAN, &
                                  MPI_DOUBLE_PRECISION, t)
    call MPI_Type_commit(t)
  end subroutine face
end program bug_halo2d_ghost
