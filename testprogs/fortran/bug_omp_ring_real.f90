! ranks: 2
! cflags: -fopenmp
!
! A hybrid MPI+OpenMP exchange (use mpi_f08, MPI_THREAD_MULTIPLE): four
! OpenMP threads per rank each exchange their own block of a shared
! array with the same thread of the other rank, tagged by thread. The
! last thread receives its block of DOUBLE PRECISION values as twice as
! many REALs (same bytes, different type: MPI-4.1 §3.3.1), as an
! unfinished single-precision variant of the code left it.
program bug_omp_ring_real
  use mpi_f08
  use omp_lib
  implicit none
  integer, parameter :: nt = 4, n = 256, rounds = 10
  double precision :: sendbuf(n, nt), recvbuf(n, nt), local, total
  integer :: provided, rank, peer, t, r, i, rcount
  type(MPI_Datatype) :: rtype

  call MPI_Init_thread(MPI_THREAD_MULTIPLE, provided)
  if (provided < MPI_THREAD_MULTIPLE) call MPI_Abort(MPI_COMM_WORLD, 2)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  peer = 1 - rank
  call omp_set_num_threads(nt)
  local = 0d0
  !$omp parallel private(t, r, i, rtype, rcount) reduction(+:local)
  t = omp_get_thread_num() + 1
  rtype = MPI_DOUBLE_PRECISION
  rcount = n
  if (t == nt) then
    rtype = MPI_REAL
    rcount = 2 * n
  end if
  do r = 1, rounds
    do i = 1, n
      sendbuf(i, t) = dble(rank * 1000 + t * 100 + r)
    end do
    call MPI_Send(sendbuf(1, t), n, MPI_DOUBLE_PRECISION, peer, t, MPI_COMM_WORLD)
    call MPI_Recv(recvbuf(1, t), rcount, rtype, peer, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ! want "type-mismatch" "MPI_DOUBLE_PRECISION.* MPI_REAL"
    local = local + recvbuf(n, t)
  end do
  !$omp end parallel
  call MPI_Allreduce(local, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  if (total < 0d0) call MPI_Abort(MPI_COMM_WORLD, 1)
  call MPI_Finalize()
end program bug_omp_ring_real
