/* Force-included (nvcc -include) into NVIDIA's NVSHMEM examples when
 * they run with several PEs on one GPU: they pick cudaSetDevice(mype_node),
 * which needs a GPU per PE; here the choice wraps modulo the GPU count,
 * leaving the programs' own sources untouched. */
#ifndef GSHMEM_TEST_NVSHMEM_ONEGPU_H
#define GSHMEM_TEST_NVSHMEM_ONEGPU_H
#include <cuda_runtime.h>
static inline cudaError_t gshmemtest_set_device(int device)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) == cudaSuccess && n > 0)
        device %= n;
    return cudaSetDevice(device);
}
#define cudaSetDevice gshmemtest_set_device
#endif
