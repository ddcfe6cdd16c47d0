! special_mpi.f90: the mpi module's interfaces of the routines whose
! bindings are hand-written (special.c, callbacks.c, convert.c); included
! inside the module's interface block.
subroutine MPI_Init(ierror)
  integer :: ierror
end subroutine
subroutine MPI_Init_thread(required, provided, ierror)
  integer :: required, provided, ierror
end subroutine
function MPI_Wtime()
  double precision :: MPI_Wtime
end function
function MPI_Wtick()
  double precision :: MPI_Wtick
end function
function PMPI_Wtime()
  double precision :: PMPI_Wtime
end function
function PMPI_Wtick()
  double precision :: PMPI_Wtick
end function
subroutine MPI_Pcontrol(level)
  integer :: level
end subroutine
function MPI_Aint_add(base, disp)
  import
  integer(kind=MPI_ADDRESS_KIND) :: MPI_Aint_add, base, disp
end function
function MPI_Aint_diff(addr1, addr2)
  import
  integer(kind=MPI_ADDRESS_KIND) :: MPI_Aint_diff, addr1, addr2
end function
subroutine MPI_Comm_get_attr(comm, comm_keyval, attribute_val, flag, ierror)
  import
  integer :: comm, comm_keyval, ierror
  integer(kind=MPI_ADDRESS_KIND) :: attribute_val
  logical :: flag
end subroutine
subroutine MPI_Comm_set_attr(comm, comm_keyval, attribute_val, ierror)
  import
  integer :: comm, comm_keyval, ierror
  integer(kind=MPI_ADDRESS_KIND) :: attribute_val
end subroutine
subroutine MPI_Type_get_attr(datatype, type_keyval, attribute_val, flag, ierror)
  import
  integer :: datatype, type_keyval, ierror
  integer(kind=MPI_ADDRESS_KIND) :: attribute_val
  logical :: flag
end subroutine
subroutine MPI_Type_set_attr(datatype, type_keyval, attribute_val, ierror)
  import
  integer :: datatype, type_keyval, ierror
  integer(kind=MPI_ADDRESS_KIND) :: attribute_val
end subroutine
subroutine MPI_Win_get_attr(win, win_keyval, attribute_val, flag, ierror)
  import
  integer :: win, win_keyval, ierror
  integer(kind=MPI_ADDRESS_KIND) :: attribute_val
  logical :: flag
end subroutine
subroutine MPI_Win_set_attr(win, win_keyval, attribute_val, ierror)
  import
  integer :: win, win_keyval, ierror
  integer(kind=MPI_ADDRESS_KIND) :: attribute_val
end subroutine
subroutine MPI_Attr_get(comm, keyval, attribute_val, flag, ierror)
  integer :: comm, keyval, attribute_val, ierror
  logical :: flag
end subroutine
subroutine MPI_Attr_put(comm, keyval, attribute_val, ierror)
  integer :: comm, keyval, attribute_val, ierror
end subroutine
subroutine MPI_Op_create(user_fn, commute, op, ierror)
  external :: user_fn
  logical :: commute
  integer :: op, ierror
end subroutine
subroutine MPI_Comm_create_errhandler(comm_errhandler_fn, errhandler, ierror)
  external :: comm_errhandler_fn
  integer :: errhandler, ierror
end subroutine
subroutine MPI_Win_create_errhandler(win_errhandler_fn, errhandler, ierror)
  external :: win_errhandler_fn
  integer :: errhandler, ierror
end subroutine
subroutine MPI_File_create_errhandler(file_errhandler_fn, errhandler, ierror)
  external :: file_errhandler_fn
  integer :: errhandler, ierror
end subroutine
subroutine MPI_Session_create_errhandler(session_errhandler_fn, errhandler, ierror)
  external :: session_errhandler_fn
  integer :: errhandler, ierror
end subroutine
subroutine MPI_Comm_create_keyval(comm_copy_attr_fn, comm_delete_attr_fn, comm_keyval, extra_state, ierror)
  import
  external :: comm_copy_attr_fn, comm_delete_attr_fn
  integer :: comm_keyval, ierror
  integer(kind=MPI_ADDRESS_KIND) :: extra_state
end subroutine
subroutine MPI_Type_create_keyval(type_copy_attr_fn, type_delete_attr_fn, type_keyval, extra_state, ierror)
  import
  external :: type_copy_attr_fn, type_delete_attr_fn
  integer :: type_keyval, ierror
  integer(kind=MPI_ADDRESS_KIND) :: extra_state
end subroutine
subroutine MPI_Win_create_keyval(win_copy_attr_fn, win_delete_attr_fn, win_keyval, extra_state, ierror)
  import
  external :: win_copy_attr_fn, win_delete_attr_fn
  integer :: win_keyval, ierror
  integer(kind=MPI_ADDRESS_KIND) :: extra_state
end subroutine
subroutine MPI_Keyval_create(copy_fn, delete_fn, keyval, extra_state, ierror)
  external :: copy_fn, delete_fn
  integer :: keyval, extra_state, ierror
end subroutine
subroutine MPI_F_sync_reg(buf)
!GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
  type(*), dimension(*) :: buf
end subroutine
subroutine MPI_Comm_spawn(command, argv, maxprocs, info, root, comm, intercomm, array_of_errcodes, ierror)
  character(len=*) :: command, argv(*)
  integer :: maxprocs, info, root, comm, intercomm, array_of_errcodes(*), ierror
end subroutine
subroutine MPI_Comm_spawn_multiple(count, array_of_commands, array_of_argv, array_of_maxprocs, &
    array_of_info, root, comm, intercomm, array_of_errcodes, ierror)
  integer :: count
  character(len=*) :: array_of_commands(*), array_of_argv(count, *)
  integer :: array_of_maxprocs(*), array_of_info(*), root, comm, intercomm, array_of_errcodes(*), ierror
end subroutine
subroutine MPI_Grequest_start(query_fn, free_fn, cancel_fn, extra_state, request, ierror)
  import
  external :: query_fn, free_fn, cancel_fn
  integer(kind=MPI_ADDRESS_KIND) :: extra_state
  integer :: request, ierror
end subroutine
subroutine MPI_Register_datarep(datarep, read_conversion_fn, write_conversion_fn, dtype_file_extent_fn, &
    extra_state, ierror)
  import
  character(len=*) :: datarep
  external :: read_conversion_fn, write_conversion_fn, dtype_file_extent_fn
  integer(kind=MPI_ADDRESS_KIND) :: extra_state
  integer :: ierror
end subroutine
