//go:build cgo

/* Calls from the library into user code. Go cannot call a C function
 * pointer, and a user's error handler is variadic in type, so each call
 * goes through a trampoline here. */

#include "abi.h"

void abi_call_errhandler(uintptr_t fn, uintptr_t handle, int code)
{
    /* Comm, Win, File and Session handlers share one shape: a pointer to
     * the handle and a pointer to the code, then implementation-defined
     * arguments (none here). */
    MPI_Comm h = (MPI_Comm)handle;
    ((MPI_Comm_errhandler_function *)fn)(&h, &code);
}

/* in and inout hold the data from the datatype's true lower bound, shift
 * bytes past the buffers' origins that the function is given. */
void abi_call_user_op(uintptr_t fn, void *in, void *inout, ptrdiff_t shift, int len, uintptr_t datatype)
{
    MPI_Datatype dt = (MPI_Datatype)datatype;
    ((MPI_User_function *)fn)((char *)in - shift, (char *)inout - shift, &len, &dt);
}

void abi_call_user_op_c(uintptr_t fn, void *in, void *inout, ptrdiff_t shift, MPI_Count len, uintptr_t datatype)
{
    MPI_Datatype dt = (MPI_Datatype)datatype;
    ((MPI_User_function_c *)fn)((char *)in - shift, (char *)inout - shift, &len, &dt);
}

int abi_call_copy_attr(uintptr_t fn, uintptr_t comm, int keyval, uintptr_t extra, uintptr_t in, uintptr_t *out, int *flag)
{
    void *o = NULL;
    int rc = ((MPI_Comm_copy_attr_function *)fn)((MPI_Comm)comm, keyval, (void *)extra, (void *)in, &o, flag);
    *out = (uintptr_t)o;
    return rc;
}

int abi_call_delete_attr(uintptr_t fn, uintptr_t comm, int keyval, uintptr_t val, uintptr_t extra)
{
    return ((MPI_Comm_delete_attr_function *)fn)((MPI_Comm)comm, keyval, (void *)val, (void *)extra);
}
