//go:build cgo

/* Calls into a program's data representation functions
 * (MPI_Register_datarep): trampolines, as in callbacks.c. */

#include "abi.h"

int abi_call_datarep_conv(uintptr_t fn, int large, void *userbuf, uintptr_t datatype, int64_t count, void *filebuf, int64_t position, uintptr_t extra)
{
    if (large)
        return ((MPI_Datarep_conversion_function_c *)fn)(userbuf, (MPI_Datatype)datatype, (MPI_Count)count, filebuf, (MPI_Offset)position, (void *)extra);
    return ((MPI_Datarep_conversion_function *)fn)(userbuf, (MPI_Datatype)datatype, (int)count, filebuf, (MPI_Offset)position, (void *)extra);
}

int abi_call_datarep_extent(uintptr_t fn, uintptr_t datatype, MPI_Aint *extent, uintptr_t extra)
{
    return ((MPI_Datarep_extent_function *)fn)((MPI_Datatype)datatype, extent, (void *)extra);
}
