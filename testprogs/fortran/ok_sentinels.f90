! ranks: 3
!
! The Fortran sentinels the bindings turn into C ones: MPI_IN_PLACE in a
! reduction, MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE in completions,
! and MPI_BOTTOM with a struct type built from absolute addresses
! (MPI_Get_address), sent around a ring and received the same way.
program ok_sentinels
  use mpi
  implicit none
  integer, parameter :: n = 8
  integer :: ierr, rank, nprocs, left, right, i
  integer :: reqs(2), particle_t, particle_in_t, lens(2), types(2)
  integer(kind=MPI_ADDRESS_KIND) :: disps(2), disps_in(2)
  double precision :: total(n), pos(3), pos_in(3), row(n), row_in(n)
  integer :: id, id_in

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)

  ! every rank adds its share into the same array: MPI_IN_PLACE
  do i = 1, n
    total(i) = dble(rank * n + i)
  end do
  call MPI_Allreduce(MPI_IN_PLACE, total, n, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)

  ! a particle described by absolute addresses, sent from MPI_BOTTOM
  pos = (/ dble(rank), 1.5d0, -2.0d0 /)
  id = 100 + rank
  call MPI_Get_address(pos, disps(1), ierr)
  call MPI_Get_address(id, disps(2), ierr)
  lens = (/ 3, 1 /)
  types = (/ MPI_DOUBLE_PRECISION, MPI_INTEGER /)
  call MPI_Type_create_struct(2, lens, disps, types, particle_t, ierr)
  call MPI_Type_commit(particle_t, ierr)
  call MPI_Get_address(pos_in, disps_in(1), ierr)
  call MPI_Get_address(id_in, disps_in(2), ierr)
  call MPI_Type_create_struct(2, lens, disps_in, types, particle_in_t, ierr)
  call MPI_Type_commit(particle_in_t, ierr)

  call MPI_Irecv(MPI_BOTTOM, 1, particle_in_t, left, 2, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(MPI_BOTTOM, 1, particle_t, right, 2, MPI_COMM_WORLD, reqs(2), ierr)
  row = dble(rank)
  call MPI_Sendrecv(row, n, MPI_DOUBLE_PRECISION, right, 3, row_in, n, MPI_DOUBLE_PRECISION, left, 3, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  call MPI_Type_free(particle_t, ierr)
  call MPI_Type_free(particle_in_t, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)

  if (id_in /= 100 + left .or. int(pos_in(1)) /= left .or. int(row_in(n)) /= left .or. &
       abs(total(1) - dble(nprocs * (nprocs - 1) / 2 * n + nprocs)) > 1d-9) then
    print *, 'ok_sentinels: wrong values', id_in, pos_in(1), total(1)
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  if (rank == 0) print '(a)', 'ok_sentinels: OK'
  call MPI_Finalize(ierr)
end program ok_sentinels
