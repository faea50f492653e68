! ranks: 2
!
! The correct twin of bug_face_mixed_precision: the single precision
! plane is converted to double precision before it is sent, so both sides
! describe it with MPI_DOUBLE_PRECISION subarrays of their own arrays.
program ok_face_mixed_precision
  use mpi
  implicit none
  integer, parameter :: nx = 6, ny = 5, nz = 4
  real :: coarse(nx, ny, nz)
  double precision :: wide(nx, ny, nz)
  double precision :: fine(nx, 0:ny + 1, nz)
  integer :: plane_t, ierr, rank, i, j, k
  logical :: good

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  good = .true.
  if (rank == 0) then
    do k = 1, nz
      do j = 1, ny
        do i = 1, nx
          coarse(i, j, k) = real(i + 10 * j + 100 * k)
        end do
      end do
    end do
    wide = dble(coarse)
    call MPI_Type_create_subarray(3, [nx, ny, nz], [nx, 1, nz], [0, ny - 1, 0], MPI_ORDER_FORTRAN, &
                                  MPI_DOUBLE_PRECISION, plane_t, ierr)
    call MPI_Type_commit(plane_t, ierr)
    call MPI_Send(wide, 1, plane_t, 1, 3, MPI_COMM_WORLD, ierr)
  else if (rank == 1) then
    fine = 0d0
    call MPI_Type_create_subarray(3, [nx, ny + 2, nz], [nx, 1, nz], [0, 0, 0], MPI_ORDER_FORTRAN, &
                                  MPI_DOUBLE_PRECISION, plane_t, ierr)
    call MPI_Type_commit(plane_t, ierr)
    call MPI_Recv(fine, 1, plane_t, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    do k = 1, nz
      do i = 1, nx
        good = good .and. abs(fine(i, 0, k) - dble(i + 10 * ny + 100 * k)) < 1d-9
      end do
    end do
  end if
  if (rank < 2) call MPI_Type_free(plane_t, ierr)
  call MPI_Finalize(ierr)
  if (.not. good) stop 1
  if (rank == 0) print '(a)', 'ok_face_mixed_precision: OK'
end program ok_face_mixed_precision
