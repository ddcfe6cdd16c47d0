//go:build cgo

/* The calls into a generalized request's user functions
 * (MPI_Grequest_start), through trampolines as callbacks.c does for the
 * other callbacks: Go cannot call a C function pointer. */

#include "abi.h"

int abi_call_grequest_query(uintptr_t fn, uintptr_t extra, MPI_Status *status)
{
    return ((MPI_Grequest_query_function *)fn)((void *)extra, status);
}

int abi_call_grequest_free(uintptr_t fn, uintptr_t extra)
{
    return ((MPI_Grequest_free_function *)fn)((void *)extra);
}

int abi_call_grequest_cancel(uintptr_t fn, uintptr_t extra, int complete)
{
    return ((MPI_Grequest_cancel_function *)fn)((void *)extra, complete);
}
