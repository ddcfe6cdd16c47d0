! f08.f90: MPI through use mpi_f08. Handle types with == and /=, the
! status's components, ierror left out, array sections (noncontiguous)
! as blocking buffers and as nonblocking, persistent and RMA ones, the large-count (_c) overloads, MPI_IN_PLACE,
! MPI_Win_allocate with C_F_POINTER, user ops with C_PTR arguments (and
! the large-count MPI_Op_create_c), a data representation with
! large-count conversion functions (MPI_Register_datarep_c),
! MPI_Info_create_env, errors in ierror, and status conversion. Prints "f08 ok" on every rank.
program f08
  use mpi_f08
  use, intrinsic :: iso_c_binding
  implicit none
  type(MPI_Comm) :: comm
  type(MPI_Status) :: st, st2
  type(MPI_Request) :: req
  type(MPI_Win) :: win
  type(MPI_Op) :: op
  type(MPI_Info) :: info
  type(MPI_File) :: fh
  character(len=64) :: fname
  type(MPI_Datatype) :: dt
  integer :: rank, np, right, left, ierr, cls, n, i, fst(MPI_STATUS_SIZE)
  integer :: m(4, 3), col(4), isum, g(6, 5), h(6, 5), w(20), j
  type(MPI_Request) :: reqs(2)
  integer(kind=MPI_COUNT_KIND) :: cnt
  double precision :: d(10)
  integer(kind=MPI_ADDRESS_KIND) :: wsize, a1, a2, a3
  type(c_ptr) :: base
  integer, pointer :: wmem(:)
  character(len=MPI_MAX_OBJECT_NAME) :: name
  character(len=MPI_MAX_INFO_VAL) :: val
  logical :: flag
  procedure(MPI_User_function) :: maxop
  procedure(MPI_User_function_c) :: minop_c
  procedure(MPI_Datarep_conversion_function_c) :: addk_c
  procedure(MPI_Datarep_extent_function) :: extent4

  call MPI_Init()
  call MPI_Comm_dup(MPI_COMM_WORLD, comm)
  call check(comm /= MPI_COMM_WORLD .and. .not. (comm == MPI_COMM_NULL), 'handle operators')
  call MPI_Comm_rank(comm, rank)
  call MPI_Comm_size(comm, np)
  right = mod(rank + 1, np)
  left = mod(rank + np - 1, np)

  ! A row of m (stride 4 in memory) sent as 3 integers; received into
  ! a column; received again into a row section.
  do i = 1, 3
    m(:, i) = (/(10 * rank + i + 100 * n, n = 0, 3)/)
  end do
  st%MPI_ERROR = -7 ! a call of one status leaves it as it was (MPI-4.1 section 3.2.5)
  call MPI_Sendrecv(m(2, :), 3, MPI_INTEGER, right, 1, col, 3, MPI_INTEGER, left, 1, comm, st)
  call check(st%MPI_SOURCE == left .and. st%MPI_TAG == 1 .and. st%MPI_ERROR == -7, 'status fields')
  call check(col(1) == 10 * left + 1 + 100 .and. col(3) == 10 * left + 3 + 100, 'row section sent')
  call MPI_Get_count(st, MPI_INTEGER, n)
  call check(n == 3, 'get_count')
  call MPI_Sendrecv(col, 3, MPI_INTEGER, right, 2, m(4, :), 3, MPI_INTEGER, left, 2, comm, MPI_STATUS_IGNORE)
  n = mod(rank + 2 * np - 2, np) ! the left neighbour's left
  call check(m(4, 1) == 10 * n + 101 .and. m(4, 3) == 10 * n + 103 .and. m(3, 2) == 10 * rank + 202, &
    'row section received')

  ! The large-count overload (INTEGER(KIND=MPI_COUNT_KIND) counts).
  d = rank
  cnt = 10
  call MPI_Allreduce(MPI_IN_PLACE, d, cnt, MPI_DOUBLE_PRECISION, MPI_SUM, comm)
  call check(d(10) == dble(np * (np - 1) / 2), 'allreduce_c in place')
  call MPI_Type_size(MPI_DOUBLE_PRECISION, cnt)
  call check(cnt == 8, 'type_size_c')

  ! A user op written against mpi_f08's MPI_User_function.
  call MPI_Op_create(maxop, .true., op)
  isum = rank
  call MPI_Allreduce(MPI_IN_PLACE, isum, 1, MPI_INTEGER, op, comm)
  call check(isum == np - 1, 'f08 user op')
  call MPI_Op_free(op)
  call check(op == MPI_OP_NULL, 'op freed')
  ! The large-count user op: its LEN is an INTEGER(KIND=MPI_COUNT_KIND).
  call MPI_Op_create_c(minop_c, .false., op)
  m(:, 1) = (/(rank + 10 * i, i = 1, 4)/)
  cnt = 4
  call MPI_Allreduce(MPI_IN_PLACE, m(:, 1), cnt, MPI_INTEGER, op, comm)
  call check(all(m(:, 1) == (/(10 * i, i = 1, 4)/)), 'f08 large-count user op')
  call MPI_Op_free(op)

  ! A data representation whose write conversion (a large-count one)
  ! adds 1000 to each INTEGER: written through it, read back natively.
  call MPI_Register_datarep_c('gshmem_f08_c', MPI_CONVERSION_FN_NULL_C, addk_c, extent4, 7_MPI_ADDRESS_KIND)
  write (fname, '(a,i0,a,i0)') '/tmp/gshmem-f08-datarep-', getpid(), '-', rank
  call MPI_File_open(MPI_COMM_SELF, fname, MPI_MODE_CREATE + MPI_MODE_RDWR + MPI_MODE_DELETE_ON_CLOSE, &
    MPI_INFO_NULL, fh)
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'gshmem_f08_c', MPI_INFO_NULL)
  col = (/1, 2, 3, 4/)
  call MPI_File_write_at(fh, 0_MPI_OFFSET_KIND, col, 4, MPI_INTEGER, MPI_STATUS_IGNORE)
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL)
  col = 0
  call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, col, 4, MPI_INTEGER, MPI_STATUS_IGNORE)
  call check(all(col == (/1001, 1002, 1003, 1004/)), 'register_datarep_c write conversion')
  call MPI_File_close(fh)

  ! The environment's info: the Fortran binding has no argc and argv; the
  ! command is the program's own.
  call MPI_Info_create_env(info)
  n = len(val)
  call MPI_Info_get_string(info, 'command', n, val, flag)
  call check(flag .and. index(val, 'f08') > 0, 'info_create_env command')
  n = len(val)
  call MPI_Info_get_string(info, 'maxprocs', n, val, flag)
  call check(flag .and. val(1:1) == char(iachar('0') + np) .and. val(2:2) == ' ', 'info_create_env maxprocs')
  call MPI_Info_free(info)

  ! Stage 2: an allocated window, reached through C_F_POINTER.
  wsize = 4 * np
  call MPI_Win_allocate(wsize, 4, MPI_INFO_NULL, comm, base, win)
  call c_f_pointer(base, wmem, (/np/))
  wmem = -1
  call MPI_Win_fence(0, win)
  call MPI_Put(rank, 1, MPI_INTEGER, right, int(rank, MPI_ADDRESS_KIND), 1, MPI_INTEGER, win)
  call MPI_Win_fence(0, win)
  call check(wmem(left + 1) == left, 'win_allocate put')
  call MPI_Win_free(win)

  ! Noncontiguous sections as nonblocking, persistent and RMA buffers: the
  ! binding describes each by a datatype of its own over the array's own
  ! elements (a compiler's copy would not outlive the call).
  g = reshape((/(gv(rank, i), i = 1, 30)/), (/6, 5/))
  h = -1
  call MPI_Irecv(h(1:5:2, 2:4), 9, MPI_INTEGER, left, 5, comm, reqs(1))
  call MPI_Isend(g(2:6:2, 1:5:2), 9, MPI_INTEGER, right, 5, comm, reqs(2))
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  call check(all(h(1:5:2, 2:4) == reshape((/((gv(left, i + 6 * (j - 1)), i = 2, 6, 2), j = 1, 5, 2)/), (/3, 3/))) &
    .and. count(h == -1) == 21, 'isend/irecv of 2-d sections')
  h = -1
  call MPI_Irecv(h(2, :), 4, MPI_INTEGER, left, 6, comm, reqs(1))
  call MPI_Isend(g(1, 5:1:-1), 4, MPI_INTEGER, right, 6, comm, reqs(2))
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  call check(all(h(2, 1:4) == (/(gv(left, 1 + 6 * (j - 1)), j = 5, 2, -1)/)) .and. h(2, 5) == -1, &
    'fewer elements than the section, reversed')
  if (rank == 0) h(3, :) = (/(7 * j, j = 1, 5)/)
  call MPI_Ibcast(h(3, :), 5, MPI_INTEGER, 0, comm, reqs(1))
  call MPI_Wait(reqs(1), MPI_STATUS_IGNORE)
  call check(all(h(3, :) == (/(7 * j, j = 1, 5)/)) .and. all(h(4, :) == -1), 'ibcast of a section')
  w = 0
  call MPI_Win_create(w, int(4 * size(w), MPI_ADDRESS_KIND), 4, MPI_INFO_NULL, comm, win)
  call MPI_Win_fence(0, win)
  call MPI_Put(g(2, :), 5, MPI_INTEGER, right, 0_MPI_ADDRESS_KIND, 5, MPI_INTEGER, win)
  call MPI_Win_fence(0, win)
  call check(all(w(1:5) == (/(gv(left, 2 + 6 * (j - 1)), j = 1, 5)/)) .and. w(6) == 0, 'put from a section')
  h = -1
  call MPI_Get(h(1, :), 5, MPI_INTEGER, right, 0_MPI_ADDRESS_KIND, 5, MPI_INTEGER, win)
  call MPI_Win_fence(0, win)
  call check(all(h(1, :) == g(2, :)) .and. h(2, 1) == -1, 'get into a section')
  call MPI_Win_free(win)

  ! Errors: ierror present, MPI_ERRORS_RETURN; a noncontiguous section no
  ! datatype can describe for a nonblocking send (a derived datatype over
  ! it) is refused.
  call MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN)
  call MPI_Send(isum, 1, MPI_INTEGER, np + 1, 0, comm, ierr)
  call MPI_Error_class(ierr, cls)
  call check(cls == MPI_ERR_RANK, 'ierror class')
  call MPI_Type_contiguous(3, MPI_INTEGER, dt)
  call MPI_Type_commit(dt)
  call MPI_Isend(m(1, :), 1, dt, right, 3, comm, req, ierr)
  call check(ierr == MPI_ERR_BUFFER, 'noncontiguous nonblocking buffer refused')
  call MPI_Type_free(dt)

  ! Strings, datatypes as handles, status conversion.
  call MPI_Comm_set_name(comm, 'f08 comm')
  call MPI_Comm_get_name(comm, name, n)
  call check(name == 'f08 comm' .and. n == 8, 'comm name')
  dt = MPI_INTEGER
  call check(dt == MPI_INTEGER .and. dt%MPI_VAL == MPI_INTEGER%MPI_VAL, 'datatype value')
  call MPI_Status_f082f(st, fst)
  call check(fst(MPI_SOURCE) == left .and. fst(MPI_TAG) == 1, 'status_f082f')
  call MPI_Status_f2f08(fst, st2)
  call check(st2%MPI_SOURCE == left, 'status_f2f08')
  ! An address is the actual's, a noncontiguous section's included.
  call MPI_Get_address(m(1, 1), a1)
  call MPI_Get_address(m(1, :), a2)
  call MPI_Get_address(m(1, 2), a3)
  call check(a1 == a2 .and. MPI_Aint_diff(a3, a1) == 16, 'get_address')
  call MPI_Initialized(flag)
  call MPI_Sizeof(d, n)
  call check(n == 8, 'sizeof')
  call MPI_F_sync_reg(d)
  call check(flag, 'initialized')
  ! The profiling names (MPI-4.1 section 15.2) are the same routines.
  call PMPI_Comm_size(comm, n)
  call check(n == np .and. PMPI_Wtime() > 0d0, 'PMPI names')

  call MPI_Comm_free(comm)
  print '(a)', 'f08 ok'
  call MPI_Finalize()
contains
  ! gv is the value rank r's g holds at its element e (column-major).
  integer function gv(r, e)
    integer, intent(in) :: r, e
    gv = 1000 * r + e
  end function

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print '(2a)', 'FAILED: ', what
      flush(6)
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
  end subroutine

end program

subroutine maxop(invec, inoutvec, len, datatype)
  use mpi_f08
  use, intrinsic :: iso_c_binding
  type(c_ptr), value :: invec, inoutvec
  integer :: len
  type(MPI_Datatype) :: datatype
  integer, pointer :: a(:), b(:)
  call c_f_pointer(invec, a, (/len/))
  call c_f_pointer(inoutvec, b, (/len/))
  if (datatype == MPI_INTEGER) b = max(a, b)
end subroutine

subroutine minop_c(invec, inoutvec, len, datatype)
  use mpi_f08
  use, intrinsic :: iso_c_binding
  type(c_ptr), value :: invec, inoutvec
  integer(kind=MPI_COUNT_KIND) :: len
  type(MPI_Datatype) :: datatype
  integer, pointer :: a(:), b(:)
  call c_f_pointer(invec, a, (/len/))
  call c_f_pointer(inoutvec, b, (/len/))
  if (datatype == MPI_INTEGER) b = min(a, b)
end subroutine

! addk_c: a large-count write conversion: file = user + 1000, count items
! from the user buffer's item position on.
subroutine addk_c(userbuf, datatype, count, filebuf, position, extra_state, ierror)
  use mpi_f08
  use, intrinsic :: iso_c_binding
  type(c_ptr), value :: userbuf, filebuf
  type(MPI_Datatype) :: datatype
  integer(kind=MPI_COUNT_KIND) :: count
  integer(kind=MPI_OFFSET_KIND) :: position
  integer(kind=MPI_ADDRESS_KIND) :: extra_state
  integer :: ierror
  integer, pointer :: u(:), f(:)
  call c_f_pointer(userbuf, u, (/position + count/))
  call c_f_pointer(filebuf, f, (/count/))
  f = u(position + 1:position + count) + 1000
  ierror = MPI_SUCCESS
  if (datatype /= MPI_INTEGER .or. extra_state /= 7) ierror = MPI_ERR_TYPE
end subroutine

subroutine extent4(datatype, extent, extra_state, ierror)
  use mpi_f08
  type(MPI_Datatype) :: datatype
  integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state
  integer :: ierror
  extent = 4
  ierror = MPI_SUCCESS
  if (extra_state /= 7) ierror = MPI_ERR_ARG
  if (datatype == MPI_DATATYPE_NULL) ierror = MPI_ERR_TYPE
end subroutine
