! ranks: 2
!
! A 3-D field of a mixed-precision solver is exchanged plane by plane:
! rank 0 keeps its copy in single precision and sends its top j plane as
! an MPI_ORDER_FORTRAN subarray of MPI_REAL; rank 1 receives it into the
! bottom ghost plane of its double precision copy, a subarray of
! MPI_DOUBLE_PRECISION. The byte counts even allow the message (a REAL
! plane is half a DOUBLE PRECISION one), but the types do not match
! (MPI-4.1 §3.3.1). The report names the first element on each side by the
! arrays' own indices: coarse(1,5,1) and fine(1,0,1), the ghost plane
! being the second dimension's index 0 as fine declares it.
program bug_face_mixed_precision
  use mpi
  implicit none
  integer, parameter :: nx = 6, ny = 5, nz = 4
  real :: coarse(nx, ny, nz)
  double precision :: fine(nx, 0:ny + 1, nz)
  integer :: plane_t, ierr, rank, i, j, k

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  if (rank == 0) then
    do k = 1, nz
      do j = 1, ny
        do i = 1, nx
          coarse(i, j, k) = real(i + 10 * j + 100 * k)
        end do
      end do
    end do
    ! the top plane, j = ny: starts count from 0
    call MPI_Type_create_subarray(3, [nx, ny, nz], [nx, 1, nz], [0, ny - 1, 0], MPI_ORDER_FORTRAN, &
                                  MPI_REAL, plane_t, ierr)
    call MPI_Type_commit(plane_t, ierr)
    call MPI_Send(coarse, 1, plane_t, 1, 3, MPI_COMM_WORLD, ierr)
  else if (rank == 1) then
    fine = 0d0
    ! the bottom ghost plane, j = 0: the subarray's start 0 of the 7 planes is fine's index 0
    call MPI_Type_create_subarray(3, [nx, ny + 2, nz], [nx, 1, nz], [0, 0, 0], MPI_ORDER_FORTRAN, &
                                  MPI_DOUBLE_PRECISION, plane_t, ierr)
    call MPI_Type_commit(plane_t, ierr)
    call MPI_Recv(fine, 1, plane_t, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr) ! want "type-mismatch" "rank 0 sends \(SUBARRAY\)\(1,5,1\)\(REAL\) where rank 1 receives \(SUBARRAY\)\(1,0,1\)\(DOUBLE_PRECISION\): element 1 \(packed byte 0\)"
  end if
  if (rank < 2) call MPI_Type_free(plane_t, ierr)
  call MPI_Finalize(ierr)
end program bug_face_mixed_precision
