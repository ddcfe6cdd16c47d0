! f90.f90: free-form MPI through use mpi. Derived datatypes over Fortran
! arrays (a column block of a 2-D array, a subarray of a 3-D array), RMA
! with fence and with lock, nonblocking requests with Waitall, attribute
! copy functions written in Fortran, an error handler written in Fortran,
! a Cartesian topology (LOGICAL arrays), MPI_INFO_CREATE_ENV. Prints
! "mpi ok" on every rank.
program f90
  use mpi
  use, intrinsic :: iso_c_binding, only: c_f_pointer, c_null_ptr
  implicit none
  integer :: ierr, rank, np, i, j, k, vec, sub, win, right, left, keyval, dup, eh
  integer :: ni, na, nd, comb
  integer :: a(6, 5), cube(4, 4, 4), got(2, 2, 2), reqs(2)
  integer :: dims(1), coords(1), cart
  logical :: periods(1), flag
  integer(kind=MPI_ADDRESS_KIND) :: winsize, val
  integer :: winbuf(4)
  integer, pointer :: wmem(:)
  integer :: ehcalls, info, idx(2)
  character(len=MPI_MAX_INFO_VAL) :: ival
  external :: copyfn, delfn, myhandler
  common /f90cnt/ ehcalls

  call MPI_Init(ierr)
  ehcalls = 0
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  right = mod(rank + 1, np)
  left = mod(rank + np - 1, np)

  ! A column block: columns 2 and 3 of a(6,5), rows 2..5, as one vector.
  call MPI_Type_vector(2, 4, 6, MPI_INTEGER, vec, ierr)
  call MPI_Type_commit(vec, ierr)
  a = -1
  if (rank == 0) then
    do j = 1, 5
      do i = 1, 6
        a(i, j) = 100 * i + j
      end do
    end do
  end if
  call MPI_Bcast(a(2, 2), 1, vec, 0, MPI_COMM_WORLD, ierr)
  call check(a(2, 2) == 202 .and. a(5, 3) == 503, 'vector type')
  if (rank /= 0) call check(a(1, 2) == -1 .and. a(2, 4) == -1, 'vector leaves the rest')
  call MPI_Type_free(vec, ierr)

  ! A 2x2x2 block starting at (2,3,1) of a 4x4x4 array: 2x2 planes
  ! (a vector) repeated at the stride of one 4x4 plane (an hvector).
  ! (MPI_Type_create_subarray is not implemented by libmpi_abi yet.)
  call MPI_Type_vector(2, 2, 4, MPI_INTEGER, vec, ierr)
  call MPI_Type_create_hvector(2, 1, 64_MPI_ADDRESS_KIND, vec, sub, ierr)
  call MPI_Type_free(vec, ierr)
  call MPI_Type_commit(sub, ierr)
  do k = 1, 4
    do j = 1, 4
      do i = 1, 4
        cube(i, j, k) = i + 10 * j + 100 * k + 1000 * rank
      end do
    end do
  end do
  call MPI_Irecv(got, 8, MPI_INTEGER, left, 7, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(cube(2, 3, 1), 1, sub, right, 7, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  call check(reqs(1) == MPI_REQUEST_NULL .and. reqs(2) == MPI_REQUEST_NULL, 'requests freed')
  call check(got(1, 1, 1) == 2 + 30 + 100 + 1000 * left, 'subarray first')
  call check(got(2, 2, 2) == 3 + 40 + 200 + 1000 * left, 'subarray last')
  call MPI_Type_free(sub, ierr)

  ! RMA: put to the right neighbour under fence, then read it under lock.
  winbuf = 0
  winsize = 4 * 4
  call MPI_Win_create(winbuf, winsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  call MPI_Put(rank + 1, 1, MPI_INTEGER, right, 2_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  call check(winbuf(3) == left + 1, 'put under fence')
  call MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win, ierr)
  call MPI_Get(i, 1, MPI_INTEGER, right, 2_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win, ierr)
  call MPI_Win_unlock(right, win, ierr)
  call check(i == rank + 1, 'get under lock')
  call MPI_Win_get_attr(win, MPI_WIN_SIZE, val, flag, ierr)
  call check(flag .and. val == 16, 'win size attribute')
  call MPI_Win_free(win, ierr)
  call check(win == MPI_WIN_NULL, 'win freed')

  ! An allocated window reached through C_F_POINTER (base as an integer).
  winsize = 4 * np
  call MPI_Win_allocate(winsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, val, win, ierr)
  call c_f_pointer(transfer(val, c_null_ptr), wmem, (/np/))
  wmem = -1
  call MPI_Win_fence(0, win, ierr)
  call MPI_Put(rank, 1, MPI_INTEGER, right, int(rank, MPI_ADDRESS_KIND), 1, MPI_INTEGER, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  call check(wmem(left + 1) == left, 'win_allocate with an integer base')
  call MPI_Win_free(win, ierr)

  ! An attribute copied by a Fortran copy function on MPI_Comm_dup.
  call MPI_Comm_create_keyval(copyfn, delfn, keyval, 5_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, 41_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Comm_get_attr(dup, keyval, val, flag, ierr)
  call check(flag .and. val == 46, 'copy function')

  ! An error handler written in Fortran, called with the comm and code.
  call MPI_Comm_create_errhandler(myhandler, eh, ierr)
  call MPI_Comm_set_errhandler(dup, eh, ierr)
  call MPI_Send(i, 1, MPI_INTEGER, np + 3, 0, dup, ierr)
  call check(ehcalls == 1, 'fortran error handler called')
  call MPI_Errhandler_free(eh, ierr)
  call MPI_Comm_free(dup, ierr)
  call check(dup == MPI_COMM_NULL, 'comm freed')
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, keyval, ierr)
  call MPI_Comm_free_keyval(keyval, ierr)

  ! A periodic ring as a Cartesian topology.
  dims(1) = np
  periods(1) = .true.
  call MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, .false., cart, ierr)
  call MPI_Cart_get(cart, 1, dims, periods, coords, ierr)
  call check(periods(1) .and. coords(1) == rank, 'cart get')
  call MPI_Cart_shift(cart, 0, 1, i, j, ierr)
  call check(i == left .and. j == right, 'cart shift')
  call MPI_Comm_free(cart, ierr)

  ! The sized types, and the kinds MPI_Type_create_f90_* select.
  call MPI_Type_size(MPI_COMPLEX8, i, ierr)
  call check(i == 8, 'MPI_COMPLEX8 is COMPLEX*8')
  call MPI_Type_size(MPI_COMPLEX16, i, ierr)
  call check(i == 16, 'MPI_COMPLEX16')
  call MPI_Type_size(MPI_LOGICAL8, i, ierr)
  call check(i == 8, 'MPI_LOGICAL8')
  ! The handle is not the sized type's own (its envelope says which
  ! MPI_TYPE_CREATE_F90_* made it, MPI-4.1 5.1.13): the kind shows in its
  ! size and combiner.
  call MPI_Type_create_f90_real(15, MPI_UNDEFINED, vec, ierr)
  call MPI_Type_size(vec, i, ierr)
  call MPI_Type_get_envelope(vec, ni, na, nd, comb, ierr)
  call check(i == 8 .and. comb == MPI_COMBINER_F90_REAL, 'f90 real(15)')
  call MPI_Type_create_f90_integer(9, vec, ierr)
  call MPI_Type_size(vec, i, ierr)
  call MPI_Type_get_envelope(vec, ni, na, nd, comb, ierr)
  call check(i == 4 .and. comb == MPI_COMBINER_F90_INTEGER, 'f90 integer(9)')
  call MPI_Type_create_f90_complex(6, 30, vec, ierr)
  call MPI_Type_size(vec, i, ierr)
  call MPI_Type_get_envelope(vec, ni, na, nd, comb, ierr)
  call check(i == 8 .and. comb == MPI_COMBINER_F90_COMPLEX, 'f90 complex(6, 30)')
  call MPI_Sizeof(winsize, i, ierr)
  call check(i == 8 .and. ierr == MPI_SUCCESS, 'sizeof')
  ! MPI_WAITANY and MPI_WAITSOME give Fortran's (1-based) indices, and
  ! MPI_UNDEFINED when no request was active.
  reqs(1) = MPI_REQUEST_NULL
  call MPI_Irecv(i, 1, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitany(2, reqs, j, MPI_STATUS_IGNORE, ierr)
  call check(j == 2 .and. reqs(2) == MPI_REQUEST_NULL, 'waitany index is 1-based')
  call MPI_Waitany(2, reqs, j, MPI_STATUS_IGNORE, ierr)
  call check(j == MPI_UNDEFINED, 'waitany of no active request')
  call MPI_Irecv(i, 1, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitsome(2, reqs, k, idx, MPI_STATUSES_IGNORE, ierr)
  call check(k == 1 .and. idx(1) == 2, 'waitsome indices are 1-based')
  call MPI_Info_create_env(info, ierr)
  call MPI_Info_get(info, 'command', MPI_MAX_INFO_VAL, ival, flag, ierr)
  call check(flag .and. index(ival, 'f90') > 0 .and. ierr == MPI_SUCCESS, 'info_create_env')
  call MPI_Info_free(info, ierr)
  ! Info strings: a key's and a value's leading and trailing blanks go; a
  ! key not found leaves the value string as it was; MPI_INFO_GET_STRING's
  ! BUFLEN counts characters (0 asks for the length only).
  call MPI_Info_create(info, ierr)
  call MPI_Info_set(info, '  padded key ', ' v1 ', ierr)
  ival = 'canary'
  call MPI_Info_get(info, 'nokey', MPI_MAX_INFO_VAL, ival, flag, ierr)
  call check(.not. flag .and. ival == 'canary', 'info_get of a missing key')
  i = 0
  call MPI_Info_get_string(info, 'padded key', i, ival, flag, ierr)
  call check(flag .and. i == 2 .and. ival == 'canary', 'info_get_string length only')
  i = 1
  call MPI_Info_get_string(info, 'padded key', i, ival, flag, ierr)
  call check(flag .and. i == 2 .and. ival == 'v', 'info_get_string truncated')
  call MPI_Info_get(info, 'padded key', MPI_MAX_INFO_VAL, ival, flag, ierr)
  call check(flag .and. ival == 'v1', 'info_get of a blank-padded key')
  call MPI_Info_free(info, ierr)
  print '(a)', 'mpi ok'
  call MPI_Finalize(ierr)
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print '(2a)', 'FAILED: ', what
      flush(6)
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
  end subroutine
end program

subroutine copyfn(oldcomm, keyval, extra, valin, valout, flag, ierr)
  use mpi
  integer :: oldcomm, keyval, ierr
  integer(kind=MPI_ADDRESS_KIND) :: extra, valin, valout
  logical :: flag
  valout = valin + extra
  flag = .true.
  ierr = MPI_SUCCESS
end subroutine

subroutine delfn(comm, keyval, val, extra, ierr)
  use mpi
  integer :: comm, keyval, ierr
  integer(kind=MPI_ADDRESS_KIND) :: val, extra
  ierr = MPI_SUCCESS
end subroutine

subroutine myhandler(comm, code)
  use mpi
  integer :: comm, code, cls, ierr
  integer :: ehcalls
  common /f90cnt/ ehcalls
  call MPI_Error_class(code, cls, ierr)
  if (cls == MPI_ERR_RANK) ehcalls = ehcalls + 1
end subroutine
