! ranks: 2
!
! A multi-block solver in the style of an old code (mpif.h) that keeps
! the top of the tag space for control messages, one tag per block,
! computed from the MPI_TAG_UB attribute for blocks numbered from 1, so
! that the last block's tag is MPI_TAG_UB itself (the correct twin of
! bug_arg_tag_ub). Rank 1 checks every flag.
program ok_arg_tag_ub
  implicit none
  include 'mpif.h'
  integer, parameter :: nblk = 4
  integer :: ierr, rank, b, ctrl_tag
  integer(kind=MPI_ADDRESS_KIND) :: tag_ub
  logical :: found
  double precision :: flag(nblk)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, tag_ub, found, ierr)

  do b = 1, nblk
    ! the control tags of blocks 1 .. nblk are tag_ub - nblk + 1 .. tag_ub
    ctrl_tag = int(tag_ub) - nblk + b
    if (rank == 0) then
      flag(b) = dble(mod(b, 2))
      call MPI_Send(flag(b), 1, MPI_DOUBLE_PRECISION, 1, ctrl_tag, MPI_COMM_WORLD, ierr)
    else
      flag(b) = -1d0
      call MPI_Recv(flag(b), 1, MPI_DOUBLE_PRECISION, 0, ctrl_tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      if (abs(flag(b) - dble(mod(b, 2))) > 0.5d0) ierr = MPI_ERR_OTHER
    end if
    if (ierr /= MPI_SUCCESS) then
      print '(a, i2)', 'ok_arg_tag_ub: control message failed for block ', b
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
  end do
  if (rank == 1) print '(a)', 'ok_arg_tag_ub: OK'
  call MPI_Finalize(ierr)
end program ok_arg_tag_ub
