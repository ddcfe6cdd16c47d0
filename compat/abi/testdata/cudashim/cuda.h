/* A stand-in for the few driver calls the device programs make, over host
 * memory, so that CI runs their checks without a GPU (TestCUDANBCOnHost):
 * "device" buffers are malloc'd, copies are memcpy. It checks the
 * programs' expectations and the host paths, not device memory, which
 * only test/gpu/run.sh abi reaches. */
#ifndef ABI_TEST_CUDASHIM_H
#define ABI_TEST_CUDASHIM_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef uintptr_t CUdeviceptr;
typedef int CUdevice;
typedef void *CUcontext;
typedef int CUresult;
#define CUDA_SUCCESS 0

static inline CUresult cuInit(unsigned flags)
{
    (void)flags;
    return CUDA_SUCCESS;
}
static inline CUresult cuDeviceGet(CUdevice *d, int ordinal)
{
    *d = ordinal;
    return CUDA_SUCCESS;
}
static inline CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d)
{
    (void)d;
    *c = NULL;
    return CUDA_SUCCESS;
}
static inline CUresult cuCtxSetCurrent(CUcontext c)
{
    (void)c;
    return CUDA_SUCCESS;
}
static inline CUresult cuMemAlloc(CUdeviceptr *p, size_t n)
{
    *p = (CUdeviceptr)malloc(n);
    return *p != 0 ? CUDA_SUCCESS : 2; /* CUDA_ERROR_OUT_OF_MEMORY */
}
static inline CUresult cuMemFree(CUdeviceptr p)
{
    free((void *)p);
    return CUDA_SUCCESS;
}
static inline CUresult cuMemcpyHtoD(CUdeviceptr d, const void *h, size_t n)
{
    memcpy((void *)d, h, n);
    return CUDA_SUCCESS;
}
static inline CUresult cuMemcpyDtoH(void *h, CUdeviceptr d, size_t n)
{
    memcpy(h, (const void *)d, n);
    return CUDA_SUCCESS;
}

#endif
