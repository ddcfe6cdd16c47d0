/* mpi-ext.h: gshmem's MPI extensions, for codes that test for CUDA
 * awareness as Open MPI's mpi-ext.h lets them. This host build of
 * libmpi_abi.so.1 is not CUDA-aware: the macro is 0 and the query returns 0
 * (a build with -tags cuda will say 1). */
#ifndef GSHMEM_MPI_EXT_H
#define GSHMEM_MPI_EXT_H

#define MPIX_CUDA_AWARE_SUPPORT 0

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when device buffers may be passed to every call, else 0. */
int MPIX_Query_cuda_support(void);

#ifdef __cplusplus
}
#endif

#endif
