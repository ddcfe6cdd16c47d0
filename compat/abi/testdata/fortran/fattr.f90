! fattr.f90 (with fattr.c): attributes between Fortran and C (MPI-4.1
! section 19.3.7). An integer Fortran sets is read from C as a pointer to
! it (an MPI_Aint, an int where MPI_ATTR_PUT set it), an address C sets is
! read from Fortran as that address, and copy and delete functions written
! in Fortran get the integer, for communicators, datatypes and windows.
! Prints "attr ok" on every rank.
module fattr_cb
  use mpi_f08
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: copied_in = -1, deleted = -1
  integer :: ncopy = 0, ndel = 0
contains
  subroutine copy_fn(oldcomm, keyval, extra, valin, valout, flag, ierror)
    type(MPI_Comm) :: oldcomm
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra, valin, valout
    logical :: flag
    copied_in = valin
    ncopy = ncopy + 1
    valout = valin + 1
    flag = extra == 7
    ierror = MPI_SUCCESS
  end subroutine

  subroutine del_fn(comm, keyval, val, extra, ierror)
    type(MPI_Comm) :: comm
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: val, extra
    deleted = val
    ndel = ndel + 1
    ierror = MPI_ERR_OTHER
    if (extra == 7) ierror = MPI_SUCCESS
  end subroutine

  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(*), intent(in) :: what
    if (.not. cond) then
      print '(2a)', 'FAILED: ', what
      flush(6)
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
  end subroutine
end module

program fattr
  use mpi_f08
  use fattr_cb
  implicit none
  integer :: fk, k4, ck, dk, tk, wk, ok, i4, rank
  integer(kind=MPI_ADDRESS_KIND) :: v, big, addr, got, extra
  logical :: flag
  type(MPI_Comm) :: dup
  type(MPI_Datatype) :: t, tdup
  type(MPI_Win) :: win

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  big = 2_MPI_ADDRESS_KIND**40 + 5 + rank
  extra = 7
  call MPI_Comm_create_keyval(copy_fn, del_fn, fk, extra)

  ! Fortran sets an integer: Fortran reads it, C a pointer to it.
  call MPI_Comm_set_attr(MPI_COMM_WORLD, fk, big)
  call MPI_Comm_get_attr(MPI_COMM_WORLD, fk, got, flag)
  call check(flag .and. got == big, 'Fortran reads the integer it set')
  call cgetaint(MPI_COMM_WORLD%MPI_VAL, fk, big, ok)
  call check(ok == 1, 'C reads a pointer to the MPI_Aint')
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call check(ncopy == 1 .and. copied_in == big, 'the copy function gets the integer')
  call MPI_Comm_get_attr(dup, fk, got, flag)
  call check(flag .and. got == big + 1, 'the copy function''s integer on the new communicator')
  call cgetaint(dup%MPI_VAL, fk, big + 1, ok)
  call check(ok == 1, 'C reads the copy function''s integer')
  call MPI_Comm_free(dup)
  call check(ndel == 1 .and. deleted == big + 1, 'the delete function gets the integer')
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, fk)
  call check(ndel == 2 .and. deleted == big, 'MPI_Comm_delete_attr calls the delete function')

  ! C sets an address: Fortran reads the address, the copy function gets it.
  call csetaddr(MPI_COMM_WORLD%MPI_VAL, fk, addr, ok)
  call MPI_Comm_get_attr(MPI_COMM_WORLD, fk, got, flag)
  call check(ok == 1 .and. flag .and. got == addr, 'Fortran reads the address C set')
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call check(copied_in == addr, 'the copy function gets the address')
  call cgetaint(dup%MPI_VAL, fk, addr + 1, ok)
  call check(ok == 1, 'the copy of an address is an integer')
  call MPI_Comm_free(dup)
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, fk)
  call check(deleted == addr, 'the delete function gets the address')

  ! MPI_ATTR_PUT: a default INTEGER, sign-extended; C reads a pointer to the int.
  call MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, k4, 0)
  call MPI_Attr_put(MPI_COMM_WORLD, k4, -5 - rank)
  call MPI_Attr_get(MPI_COMM_WORLD, k4, i4, flag)
  call check(flag .and. i4 == -5 - rank, 'MPI_ATTR_GET reads MPI_ATTR_PUT''s value')
  call MPI_Comm_get_attr(MPI_COMM_WORLD, k4, got, flag)
  call check(flag .and. got == -5 - rank, 'MPI_COMM_GET_ATTR reads it sign-extended')
  call cgetint(MPI_COMM_WORLD%MPI_VAL, k4, -5 - rank, ok)
  call check(ok == 1, 'C reads a pointer to the int')
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call cgetint(dup%MPI_VAL, k4, -5 - rank, ok)
  call check(ok == 1, 'MPI_DUP_FN copies the int')
  call MPI_Attr_put(MPI_COMM_WORLD, k4, 9)
  call MPI_Attr_get(dup, k4, i4, flag)
  call check(flag .and. i4 == -5 - rank, 'the copy is the new communicator''s own')
  call MPI_Comm_free(dup)
  call MPI_Keyval_free(k4)

  ! A C keyval's copy function reaches the Fortran integer through its pointer.
  call cmkkey(ck, ok)
  v = 100
  call MPI_Comm_set_attr(MPI_COMM_WORLD, ck, v)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call MPI_Comm_get_attr(dup, ck, got, flag)
  call check(ok == 1 .and. flag .and. got == 101, 'a C copy function updates the Fortran integer')
  call MPI_Comm_get_attr(MPI_COMM_WORLD, ck, got, flag)
  call check(flag .and. got == 101, 'the C copy function shares it')
  call MPI_Comm_free(dup)
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, ck)
  call MPI_Comm_free_keyval(ck)

  ! Fortran's MPI_COMM_DUP_FN gives the new communicator a copy.
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, dk, extra)
  v = 42
  call MPI_Comm_set_attr(MPI_COMM_WORLD, dk, v)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  v = 43
  call MPI_Comm_set_attr(MPI_COMM_WORLD, dk, v)
  call MPI_Comm_get_attr(dup, dk, got, flag)
  call check(flag .and. got == 42, 'MPI_COMM_DUP_FN copies the integer')
  call cgetaint(dup%MPI_VAL, dk, 42_MPI_ADDRESS_KIND, ok)
  call check(ok == 1, 'C reads the copy')
  call MPI_Comm_free(dup)
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, dk)
  call MPI_Comm_free_keyval(dk)

  ! Datatypes and windows.
  call MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, tk, extra)
  call MPI_Type_contiguous(2, MPI_INTEGER, t)
  call MPI_Type_set_attr(t, tk, big)
  call MPI_Type_dup(t, tdup)
  call cgettype(tdup%MPI_VAL, tk, big, ok)
  call MPI_Type_get_attr(tdup, tk, got, flag)
  call check(ok == 1 .and. flag .and. got == big, 'a datatype''s integer, copied by MPI_TYPE_DUP_FN')
  call MPI_Type_free(tdup)
  call MPI_Type_free(t)
  call MPI_Type_free_keyval(tk)
  call MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, wk, extra)
  call MPI_Win_create(MPI_BOTTOM, 0_MPI_ADDRESS_KIND, 1, MPI_INFO_NULL, MPI_COMM_WORLD, win)
  call MPI_Win_set_attr(win, wk, -big)
  call cgetwin(win%MPI_VAL, wk, -big, ok)
  call MPI_Win_get_attr(win, wk, got, flag)
  call check(ok == 1 .and. flag .and. got == -big, 'a window''s integer')
  call MPI_Win_free(win)
  call MPI_Win_free_keyval(wk)

  call MPI_Comm_free_keyval(fk)
  print '(a)', 'attr ok'
  call MPI_Finalize()
end program
