! ranks: 3
!
! ok_hello.f90: the Fortran bindings through `use mpi` (MPI-4.1 §19.1.3)
! in a ring: each rank passes a value to its right neighbour and
! receives its left neighbour's with MPI_Sendrecv (MPI-4.1 §3.10), size
! times, so that after step i a rank holds the rank number of the rank i
! places to its left and after the last step its own again; the
! status names the left neighbour as the source. MPI_Allreduce
! (MPI-4.1 §6.9.6) then sums rank+1 over the ranks, and an array of
! doubles elementwise. Every value is checked. The harness's smallest
! Fortran program: it prints its OK line with an explicit format (list
! output would start it with a blank).
! Correct: must produce no findings.
program ok_hello
    use mpi
    implicit none
    integer, parameter :: n = 4
    integer :: rank, nprocs, left, right, ierr, i, errors, total
    integer :: sendval, recvval, ranksum
    integer :: status(MPI_STATUS_SIZE)
    double precision :: mine(n), sums(n)

    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
    right = mod(rank + 1, nprocs)
    left = mod(rank + nprocs - 1, nprocs)
    errors = 0

    sendval = rank
    do i = 1, nprocs
        call MPI_Sendrecv(sendval, 1, MPI_INTEGER, right, i, &
                          recvval, 1, MPI_INTEGER, left, i, &
                          MPI_COMM_WORLD, status, ierr)
        if (recvval /= mod(rank - i + nprocs, nprocs) .or. status(MPI_SOURCE) /= left) then
            write (0, '(a,i0,a,i0,a,i0,a,i0)') 'rank ', rank, ': step ', i, ' got ', recvval, ' from ', status(MPI_SOURCE)
            errors = errors + 1
        end if
        sendval = recvval
    end do
    if (sendval /= rank) errors = errors + 1

    call MPI_Allreduce(rank + 1, ranksum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (ranksum /= nprocs * (nprocs + 1) / 2) then
        write (0, '(a,i0,a,i0)') 'rank ', rank, ': sum of rank+1 ', ranksum
        errors = errors + 1
    end if
    do i = 1, n
        mine(i) = dble(rank * n + i)
    end do
    call MPI_Allreduce(mine, sums, n, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    do i = 1, n
        ! small integers: the sum is exact in any order
        if (nint(sums(i)) /= n * nprocs * (nprocs - 1) / 2 + nprocs * i) then
            write (0, '(a,i0,a,i0,a,f0.1)') 'rank ', rank, ': sums(', i, ') ', sums(i)
            errors = errors + 1
        end if
    end do

    call MPI_Allreduce(errors, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (rank == 0 .and. total == 0) write (*, '(a)') 'ok_hello: OK'
    call MPI_Finalize(ierr)
    if (total /= 0) error stop 1
end program ok_hello
