! ranks: 2
!
! A multi-block solver in the style of an old code (mpif.h) that keeps
! the top of the tag space for control messages, one tag per block,
! computed from the MPI_TAG_UB attribute so that they never collide with
! the data tags below: rank 0 sends each block's convergence flag to
! rank 1 with the block's control tag. The formula is written for blocks
! numbered from 0, and the blocks are numbered from 1, so the last block's
! tag is MPI_TAG_UB + 1 (with Open MPI, whose MPI_TAG_UB is huge(0), the
! sum wraps to -huge(0) - 1, also outside the range). MPI-4.1 §3.2.3:
! tags range from 0 to the value of MPI_TAG_UB. MPICH and Open MPI reject
! the send and the matching receive (MPI_ERR_TAG; MPI_COMM_WORLD has
! MPI_ERRORS_RETURN), which both ranks see in ierror. mpidbg must report
! invalid-tag at the MPI_Send (rank 0) and at the MPI_Recv (rank 1), the
! last block's.
program bug_arg_tag_ub
  use, intrinsic :: iso_fortran_env, only: error_unit
  implicit none
  include 'mpif.h'
  integer, parameter :: nblk = 4
  integer :: ierr, rank, b, ctrl_tag, failed
  integer(kind=MPI_ADDRESS_KIND) :: tag_ub
  logical :: found
  double precision :: flag(nblk)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, tag_ub, found, ierr)

  failed = 0
  do b = 1, nblk
    ! the control tags of blocks 0 .. nblk-1 are tag_ub - nblk + 1 .. tag_ub
    ctrl_tag = int(tag_ub) - nblk + b + 1
    if (rank == 0) then
      flag(b) = dble(mod(b, 2))
      call MPI_Send(flag(b), 1, MPI_DOUBLE_PRECISION, 1, ctrl_tag, MPI_COMM_WORLD, ierr) ! want "invalid-tag" "tag -?[0-9]+ is outside 0..MPI_TAG_UB"
    else
      call MPI_Recv(flag(b), 1, MPI_DOUBLE_PRECISION, 0, ctrl_tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr) ! want "invalid-tag" "tag -?[0-9]+ is outside 0..MPI_TAG_UB"
    end if
    if (ierr /= MPI_SUCCESS) then
      failed = failed + 1
      write (error_unit, '(a, i2, a, i2)') 'bug_arg_tag_ub: rank ', rank, ': no control message for block ', b
    end if
  end do
  if (failed == nblk) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  call MPI_Finalize(ierr)
end program bug_arg_tag_ub
