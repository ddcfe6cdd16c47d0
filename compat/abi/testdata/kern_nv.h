/* kern_nv.h: builds the stage-4 C tests against NVSHMEM, for its figures
 * beside gshmem's in the same shapes: test/gpu/run.sh ckern renames gshmem
 * to nvshmem in copies of kern_rt.cu, kern_ops.cuh, kern_main.h and
 * shmcheck.h, and this header takes gshmem.cuh's place. */
#ifndef KERN_NV_H
#define KERN_NV_H
#include <stdlib.h>
#include <cuda.h>
#include <cuda_runtime.h>
#include <nvshmem.h>
#include <nvshmemx.h>

#define KERN_MODULE(p) ((CUmodule)(void *)(p))
/* NVSHMEM 3.4's nvshmemx_collective_launch prints "One or more PEs cannot
 * launch" for a grid too large and returns 0 all the same (H200, 2026-12-01):
 * the refusal is gshmem's own check. */
#define KERN_NO_REFUSAL_CHECK

/* NVSHMEM wants a current device before nvshmem_init (gshmem picks it). */
__attribute__((constructor)) static void kern_nv_device(void)
{
    const char *lr = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
    int n = 1;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1)
        n = 1;
    cudaSetDevice(lr ? atoi(lr) % n : 0);
    cudaFree(0);
}
#endif
