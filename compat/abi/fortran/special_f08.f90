! special_f08.f90: the mpi_f08 module's interfaces of the hand-written
! bindings (special.c, callbacks.c, convert.c), bound to the same entry
! points as use mpi's; included in the module's specification part.
! Those taking procedures are not BIND(C) (a Fortran procedure is not
! interoperable) and bind by their specific names, PMPI_X.
interface MPI_Init
  subroutine MPI_Init_f08(ierror) &
      bind(C, name="pmpi_init_")
    import
    integer, optional :: ierror
  end subroutine
end interface
interface MPI_Init_thread
  subroutine MPI_Init_thread_f08(required, provided, ierror) &
      bind(C, name="pmpi_init_thread_")
    import
    integer :: required
    integer :: provided
    integer, optional :: ierror
  end subroutine
end interface
interface
  function MPI_Wtime() &
      bind(C, name="pmpi_wtime_")
    import
    real(c_double) :: MPI_Wtime
  end function
end interface
interface
  function MPI_Wtick() &
      bind(C, name="pmpi_wtick_")
    import
    real(c_double) :: MPI_Wtick
  end function
end interface
interface
  subroutine MPI_Pcontrol(level) &
      bind(C, name="pmpi_pcontrol_")
    import
    integer :: level
  end subroutine
end interface
interface
  function MPI_Aint_add(base, disp) &
      bind(C, name="pmpi_aint_add_")
    import
    integer(kind=MPI_ADDRESS_KIND) :: MPI_Aint_add
    integer(kind=MPI_ADDRESS_KIND) :: base
    integer(kind=MPI_ADDRESS_KIND) :: disp
  end function
end interface
interface
  function MPI_Aint_diff(addr1, addr2) &
      bind(C, name="pmpi_aint_diff_")
    import
    integer(kind=MPI_ADDRESS_KIND) :: MPI_Aint_diff
    integer(kind=MPI_ADDRESS_KIND) :: addr1
    integer(kind=MPI_ADDRESS_KIND) :: addr2
  end function
end interface
interface MPI_Comm_get_attr
  subroutine MPI_Comm_get_attr_f08(comm, comm_keyval, attribute_val, flag, ierror) &
      bind(C, name="pmpi_comm_get_attr_")
    import
    type(MPI_Comm) :: comm
    integer :: comm_keyval
    integer, optional :: ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val
    logical :: flag
  end subroutine
end interface
interface MPI_Comm_set_attr
  subroutine MPI_Comm_set_attr_f08(comm, comm_keyval, attribute_val, ierror) &
      bind(C, name="pmpi_comm_set_attr_")
    import
    type(MPI_Comm) :: comm
    integer :: comm_keyval
    integer, optional :: ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val
  end subroutine
end interface
interface MPI_Type_get_attr
  subroutine MPI_Type_get_attr_f08(datatype, type_keyval, attribute_val, flag, ierror) &
      bind(C, name="pmpi_type_get_attr_")
    import
    type(MPI_Datatype) :: datatype
    integer :: type_keyval
    integer, optional :: ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val
    logical :: flag
  end subroutine
end interface
interface MPI_Type_set_attr
  subroutine MPI_Type_set_attr_f08(datatype, type_keyval, attribute_val, ierror) &
      bind(C, name="pmpi_type_set_attr_")
    import
    type(MPI_Datatype) :: datatype
    integer :: type_keyval
    integer, optional :: ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val
  end subroutine
end interface
interface MPI_Win_get_attr
  subroutine MPI_Win_get_attr_f08(win, win_keyval, attribute_val, flag, ierror) &
      bind(C, name="pmpi_win_get_attr_")
    import
    type(MPI_Win) :: win
    integer :: win_keyval
    integer, optional :: ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val
    logical :: flag
  end subroutine
end interface
interface MPI_Win_set_attr
  subroutine MPI_Win_set_attr_f08(win, win_keyval, attribute_val, ierror) &
      bind(C, name="pmpi_win_set_attr_")
    import
    type(MPI_Win) :: win
    integer :: win_keyval
    integer, optional :: ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val
  end subroutine
end interface
interface MPI_Attr_get
  subroutine MPI_Attr_get_f08(comm, keyval, attribute_val, flag, ierror) &
      bind(C, name="pmpi_attr_get_")
    import
    type(MPI_Comm) :: comm
    integer :: keyval
    integer :: attribute_val
    integer, optional :: ierror
    logical :: flag
  end subroutine
end interface
interface MPI_Attr_put
  subroutine MPI_Attr_put_f08(comm, keyval, attribute_val, ierror) &
      bind(C, name="pmpi_attr_put_")
    import
    type(MPI_Comm) :: comm
    integer :: keyval
    integer :: attribute_val
    integer, optional :: ierror
  end subroutine
end interface
interface MPI_Op_create
  subroutine PMPI_Op_create(user_fn, commute, op, ierror)
    import
    external :: user_fn
    logical :: commute
    type(MPI_Op) :: op
    integer, optional :: ierror
  end subroutine
end interface
interface MPI_Comm_create_errhandler
  subroutine PMPI_Comm_create_errhandler(comm_errhandler_fn, errhandler, ierror)
    import
    external :: comm_errhandler_fn
    type(MPI_Errhandler) :: errhandler
    integer, optional :: ierror
  end subroutine
end interface
interface MPI_Win_create_errhandler
  subroutine PMPI_Win_create_errhandler(win_errhandler_fn, errhandler, ierror)
    import
    external :: win_errhandler_fn
    type(MPI_Errhandler) :: errhandler
    integer, optional :: ierror
  end subroutine
end interface
interface MPI_File_create_errhandler
  subroutine PMPI_File_create_errhandler(file_errhandler_fn, errhandler, ierror)
    import
    external :: file_errhandler_fn
    type(MPI_Errhandler) :: errhandler
    integer, optional :: ierror
  end subroutine
end interface
interface MPI_Session_create_errhandler
  subroutine PMPI_Session_create_errhandler(session_errhandler_fn, errhandler, ierror)
    import
    external :: session_errhandler_fn
    type(MPI_Errhandler) :: errhandler
    integer, optional :: ierror
  end subroutine
end interface
interface MPI_Comm_create_keyval
  subroutine PMPI_Comm_create_keyval(comm_copy_attr_fn, comm_delete_attr_fn, comm_keyval, extra_state, ierror)
    import
    external :: comm_copy_attr_fn
    external :: comm_delete_attr_fn
    integer :: comm_keyval
    integer, optional :: ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
  end subroutine
end interface
interface MPI_Type_create_keyval
  subroutine PMPI_Type_create_keyval(type_copy_attr_fn, type_delete_attr_fn, type_keyval, extra_state, ierror)
    import
    external :: type_copy_attr_fn
    external :: type_delete_attr_fn
    integer :: type_keyval
    integer, optional :: ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
  end subroutine
end interface
interface MPI_Win_create_keyval
  subroutine PMPI_Win_create_keyval(win_copy_attr_fn, win_delete_attr_fn, win_keyval, extra_state, ierror)
    import
    external :: win_copy_attr_fn
    external :: win_delete_attr_fn
    integer :: win_keyval
    integer, optional :: ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
  end subroutine
end interface
interface MPI_Keyval_create
  subroutine PMPI_Keyval_create(copy_fn, delete_fn, keyval, extra_state, ierror)
    import
    external :: copy_fn
    external :: delete_fn
    integer :: keyval
    integer :: extra_state
    integer, optional :: ierror
  end subroutine
end interface
interface MPI_Status_f2f08
  subroutine MPI_Status_f2f08_f08(f_status, f08_status, ierror) &
      bind(C, name="pmpi_status_f2f08_")
    import
    integer :: f_status(MPI_STATUS_SIZE)
    type(MPI_Status) :: f08_status
    integer, optional :: ierror
  end subroutine
end interface
interface MPI_Status_f082f
  subroutine MPI_Status_f082f_f08(f08_status, f_status, ierror) &
      bind(C, name="pmpi_status_f082f_")
    import
    type(MPI_Status) :: f08_status
    integer :: f_status(MPI_STATUS_SIZE)
    integer, optional :: ierror
  end subroutine
end interface
interface
  subroutine MPI_F_sync_reg(buf) bind(C, name="pmpi_f_sync_reg_")
    type(*), dimension(..) :: buf
  end subroutine
end interface
! The profiling names of the routines above (MPI-4.1 section 15.2); those
! below have PMPI_X specific names already.
interface PMPI_Init
  procedure :: MPI_Init_f08
end interface
interface PMPI_Init_thread
  procedure :: MPI_Init_thread_f08
end interface
interface PMPI_Wtime
  procedure :: MPI_Wtime
end interface
interface PMPI_Wtick
  procedure :: MPI_Wtick
end interface
interface PMPI_Pcontrol
  procedure :: MPI_Pcontrol
end interface
interface PMPI_Aint_add
  procedure :: MPI_Aint_add
end interface
interface PMPI_Aint_diff
  procedure :: MPI_Aint_diff
end interface
interface PMPI_Comm_get_attr
  procedure :: MPI_Comm_get_attr_f08
end interface
interface PMPI_Comm_set_attr
  procedure :: MPI_Comm_set_attr_f08
end interface
interface PMPI_Type_get_attr
  procedure :: MPI_Type_get_attr_f08
end interface
interface PMPI_Type_set_attr
  procedure :: MPI_Type_set_attr_f08
end interface
interface PMPI_Win_get_attr
  procedure :: MPI_Win_get_attr_f08
end interface
interface PMPI_Win_set_attr
  procedure :: MPI_Win_set_attr_f08
end interface
interface PMPI_Attr_get
  procedure :: MPI_Attr_get_f08
end interface
interface PMPI_Attr_put
  procedure :: MPI_Attr_put_f08
end interface
interface PMPI_Status_f2f08
  procedure :: MPI_Status_f2f08_f08
end interface
interface PMPI_Status_f082f
  procedure :: MPI_Status_f082f_f08
end interface
interface PMPI_F_sync_reg
  procedure :: MPI_F_sync_reg
end interface
! Arrays of strings and procedures: not BIND(C), bound by the PMPI_X
! names, which take hidden string lengths as use mpi's do.
interface MPI_Comm_spawn
  subroutine PMPI_Comm_spawn(command, argv, maxprocs, info, root, comm, intercomm, array_of_errcodes, ierror)
    import
    character(len=*) :: command, argv(*)
    integer :: maxprocs, root, array_of_errcodes(*)
    type(MPI_Info) :: info
    type(MPI_Comm) :: comm, intercomm
    integer, optional :: ierror
  end subroutine
end interface
interface MPI_Comm_spawn_multiple
  subroutine PMPI_Comm_spawn_multiple(count, array_of_commands, array_of_argv, array_of_maxprocs, &
      array_of_info, root, comm, intercomm, array_of_errcodes, ierror)
    import
    integer :: count
    character(len=*) :: array_of_commands(*), array_of_argv(count, *)
    integer :: array_of_maxprocs(*), root, array_of_errcodes(*)
    type(MPI_Info) :: array_of_info(*)
    type(MPI_Comm) :: comm, intercomm
    integer, optional :: ierror
  end subroutine
end interface
interface MPI_Grequest_start
  subroutine PMPI_Grequest_start(query_fn, free_fn, cancel_fn, extra_state, request, ierror)
    import
    external :: query_fn, free_fn, cancel_fn
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    type(MPI_Request) :: request
    integer, optional :: ierror
  end subroutine
end interface
interface MPI_Register_datarep
  subroutine PMPI_Register_datarep(datarep, read_conversion_fn, write_conversion_fn, dtype_file_extent_fn, &
      extra_state, ierror)
    import
    character(len=*) :: datarep
    external :: read_conversion_fn, write_conversion_fn, dtype_file_extent_fn
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer, optional :: ierror
  end subroutine
end interface
! The large-count forms whose arguments are procedures: mpi_f08 only, by
! their own names (a procedure argument's interface cannot select a
! specific of a generic).
interface MPI_Op_create_c
  subroutine PMPI_Op_create_c(user_fn, commute, op, ierror)
    import
    external :: user_fn
    logical :: commute
    type(MPI_Op) :: op
    integer, optional :: ierror
  end subroutine
end interface
interface MPI_Register_datarep_c
  subroutine PMPI_Register_datarep_c(datarep, read_conversion_fn, write_conversion_fn, dtype_file_extent_fn, &
      extra_state, ierror)
    import
    character(len=*) :: datarep
    external :: read_conversion_fn, write_conversion_fn, dtype_file_extent_fn
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer, optional :: ierror
  end subroutine
end interface
external :: MPI_CONVERSION_FN_NULL_C
! The callback interfaces of mpi_f08 (MPI-4.1 section 19.1.2 and A.4),
! for procedure(MPI_User_function) :: f declarations.
abstract interface
  subroutine MPI_User_function(invec, inoutvec, len, datatype)
    import
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
  end subroutine
  subroutine MPI_User_function_c(invec, inoutvec, len, datatype)
    import
    type(c_ptr), value :: invec, inoutvec
    integer(kind=MPI_COUNT_KIND) :: len
    type(MPI_Datatype) :: datatype
  end subroutine
  subroutine MPI_Datarep_conversion_function(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    import
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer :: count, ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
  end subroutine
  subroutine MPI_Datarep_conversion_function_c(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    import
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_COUNT_KIND) :: count
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: ierror
  end subroutine
  subroutine MPI_Datarep_extent_function(datatype, extent, extra_state, ierror)
    import
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state
    integer :: ierror
  end subroutine
  subroutine MPI_Comm_errhandler_function(comm, error_code)
    import
    type(MPI_Comm) :: comm
    integer :: error_code
  end subroutine
  subroutine MPI_Win_errhandler_function(win, error_code)
    import
    type(MPI_Win) :: win
    integer :: error_code
  end subroutine
  subroutine MPI_File_errhandler_function(file, error_code)
    import
    type(MPI_File) :: file
    integer :: error_code
  end subroutine
  subroutine MPI_Session_errhandler_function(session, error_code)
    import
    type(MPI_Session) :: session
    integer :: error_code
  end subroutine
  subroutine MPI_Comm_copy_attr_function(oldcomm, comm_keyval, extra_state, attribute_val_in, &
      attribute_val_out, flag, ierror)
    import
    type(MPI_Comm) :: oldcomm
    integer :: comm_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
    logical :: flag
  end subroutine
  subroutine MPI_Comm_delete_attr_function(comm, comm_keyval, attribute_val, extra_state, ierror)
    import
    type(MPI_Comm) :: comm
    integer :: comm_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
  end subroutine
  subroutine MPI_Type_copy_attr_function(oldtype, type_keyval, extra_state, attribute_val_in, &
      attribute_val_out, flag, ierror)
    import
    type(MPI_Datatype) :: oldtype
    integer :: type_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
    logical :: flag
  end subroutine
  subroutine MPI_Type_delete_attr_function(datatype, type_keyval, attribute_val, extra_state, ierror)
    import
    type(MPI_Datatype) :: datatype
    integer :: type_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
  end subroutine
  subroutine MPI_Win_copy_attr_function(oldwin, win_keyval, extra_state, attribute_val_in, &
      attribute_val_out, flag, ierror)
    import
    type(MPI_Win) :: oldwin
    integer :: win_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
    logical :: flag
  end subroutine
  subroutine MPI_Win_delete_attr_function(win, win_keyval, attribute_val, extra_state, ierror)
    import
    type(MPI_Win) :: win
    integer :: win_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
  end subroutine
  subroutine MPI_Grequest_query_function(extra_state, status, ierror)
    import
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    type(MPI_Status) :: status
    integer :: ierror
  end subroutine
  subroutine MPI_Grequest_free_function(extra_state, ierror)
    import
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: ierror
  end subroutine
  subroutine MPI_Grequest_cancel_function(extra_state, complete, ierror)
    import
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    logical :: complete
    integer :: ierror
  end subroutine
end interface
