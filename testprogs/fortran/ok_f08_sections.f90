! ranks: 2
! skip[openmpi]: Open MPI 4.1's mpi_f08 has MPI_SUBARRAYS_SUPPORTED .false.: gfortran passes a non-contiguous section as a temporary copy freed when the call returns, so this program is erroneous there (MPI-4.1 §19.1.12)
!
! Rows of a column-major matrix (use mpi_f08) exchanged as array
! sections: a(2, :) is not contiguous. MPICH's mpi_f08 passes the
! section by descriptor and describes it with a datatype it builds for
! the call (MPI_SUBARRAYS_SUPPORTED is .true.), so nonblocking calls on
! sections are correct.
program ok_f08_sections
  use mpi_f08
  implicit none
  integer, parameter :: n = 6
  double precision :: a(n, n), b(n, n)
  type(MPI_Request) :: reqs(4)
  integer :: rank, peer, j

  call MPI_Init()
  if (.not. MPI_SUBARRAYS_SUPPORTED) then
    print '(a)', 'ok_f08_sections: OK'
    call MPI_Finalize()
    stop
  end if
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  peer = 1 - rank
  do j = 1, n
    a(:, j) = dble(100 * rank + j)
  end do
  b = -1d0
  call MPI_Irecv(b(1, :), n, MPI_DOUBLE_PRECISION, peer, 1, MPI_COMM_WORLD, reqs(1))
  call MPI_Irecv(b(n, :), n, MPI_DOUBLE_PRECISION, peer, 2, MPI_COMM_WORLD, reqs(2))
  call MPI_Isend(a(2, :), n, MPI_DOUBLE_PRECISION, peer, 1, MPI_COMM_WORLD, reqs(3))
  call MPI_Isend(a(n - 1, :), n, MPI_DOUBLE_PRECISION, peer, 2, MPI_COMM_WORLD, reqs(4))
  call MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE)
  do j = 1, n
    if (nint(b(1, j)) /= 100 * peer + j .or. nint(b(n, j)) /= 100 * peer + j .or. nint(b(2, j)) /= -1) then
      print *, 'ok_f08_sections: wrong value at column', j
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
  end do
  if (rank == 0) print '(a)', 'ok_f08_sections: OK'
  call MPI_Finalize()
end program ok_f08_sections
