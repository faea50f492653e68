! ranks: 2
! cflags: -fopenmp
! runs: 5
!
! A hybrid MPI+OpenMP exchange (use mpi_f08, MPI_THREAD_MULTIPLE): four
! OpenMP threads per rank each exchange their own block of a shared
! array with the same thread of the other rank, tagged by thread, then
! the ranks reduce a checksum. Every thread's buffers are its own, so
! nothing races.
program ok_omp_ring
  use mpi_f08
  use omp_lib
  implicit none
  integer, parameter :: nt = 4, n = 256, rounds = 10
  double precision :: sendbuf(n, nt), recvbuf(n, nt), local, total, expect
  integer :: provided, rank, peer, t, r, i

  call MPI_Init_thread(MPI_THREAD_MULTIPLE, provided)
  if (provided < MPI_THREAD_MULTIPLE) call MPI_Abort(MPI_COMM_WORLD, 2)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  peer = 1 - rank
  call omp_set_num_threads(nt)
  local = 0d0
  !$omp parallel private(t, r, i) reduction(+:local)
  t = omp_get_thread_num() + 1
  do r = 1, rounds
    do i = 1, n
      sendbuf(i, t) = dble(rank * 1000 + t * 100 + r)
    end do
    call MPI_Sendrecv(sendbuf(1, t), n, MPI_DOUBLE_PRECISION, peer, t, &
                      recvbuf(1, t), n, MPI_DOUBLE_PRECISION, peer, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    local = local + recvbuf(n, t)
  end do
  !$omp end parallel
  call MPI_Allreduce(local, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  expect = 0d0
  do t = 1, nt
    do r = 1, rounds
      expect = expect + dble(1000 + t * 100 + r) + dble(t * 100 + r)
    end do
  end do
  if (abs(total - expect) > 1d-6) then
    print *, 'ok_omp_ring: wrong total', total
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end if
  if (rank == 0) print '(a)', 'ok_omp_ring: OK'
  call MPI_Finalize()
end program ok_omp_ring
