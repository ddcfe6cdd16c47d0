/* mpi-ext.h: gshmem's MPI extensions, for codes that test for CUDA
 * awareness as Open MPI's mpi-ext.h lets them. MPIX_CUDA_AWARE_SUPPORT is
 * 0 in the host build of libmpi_abi.so.1, which is not CUDA-aware; `gshmem
 * abi install` of a build with -tags cuda installs this header with 1:
 * there device buffers may be passed to point-to-point, collective and
 * RMA calls of a job whose heap is GPU memory (GSHMEM_HEAP=device), and
 * MPIX_Query_cuda_support() returns 1. */
#ifndef GSHMEM_MPI_EXT_H
#define GSHMEM_MPI_EXT_H

#define MPIX_CUDA_AWARE_SUPPORT 0

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when device buffers may be passed to MPI calls, else 0: 1 in a
 * library built with -tags cuda, except in a job whose symmetric heap is
 * host memory (GSHMEM_HEAP unset or host), where device buffers cannot be
 * told from host ones. */
int MPIX_Query_cuda_support(void);

#ifdef __cplusplus
}
#endif

#endif
