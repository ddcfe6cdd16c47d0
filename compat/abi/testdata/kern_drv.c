/* Stage 4, driver API: a C program (no nvcc) that loads kern_mod.cu's
 * module with cuModuleLoad, binds it with gshmemx_cumodule_init and runs
 * kern_ops on every PE at once (a cooperative launch of one block), then
 * checks what the kernels did. Run with GSHMEM_HEAP=device:
 *   kern_drv kern_mod.cubin
 * Build: mpicc kern_drv.c -lcuda. */
#include <stdio.h>
#include <string.h>
#include <cuda.h>
#include "shmcheck.h"

#define CU(call) SCHECK((call) == CUDA_SUCCESS)
#define N 70000

/* A module without gshmem.cuh: binding it must fail. */
static const char plain_ptx[] = ".version 7.8\n.target sm_90\n.address_size 64\n"
                                ".visible .entry plain()\n{\n\tret;\n}\n";

int main(int argc, char **argv)
{
    SCHECK(argc > 1 || !"usage: kern_drv MODULE");
    gshmem_init();
    int me = gshmem_my_pe(), np = gshmem_n_pes(), left = (me + np - 1) % np;
    /* The library's GPU: node-local rank modulo the GPUs (its default);
     * its context is the GPU's primary context, so is ours. */
    int ndev = 0;
    CUdevice dev;
    CUcontext ctx;
    CU(cuInit(0));
    CU(cuDeviceGetCount(&ndev));
    CU(cuDeviceGet(&dev, gshmem_team_my_pe(GSHMEMX_TEAM_NODE) % ndev));
    CU(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU(cuCtxSetCurrent(ctx));

    CUmodule mod, plain;
    CU(cuModuleLoad(&mod, argv[1]));
    SCHECK(gshmemx_cumodule_init(mod) == 0);
    CU(cuModuleLoadData(&plain, plain_ptx));
    SCHECK(gshmemx_cumodule_init(plain) != 0);
    SCHECK(gshmemx_cumodule_init(NULL) != 0);
    CUfunction ops;
    CU(cuModuleGetFunction(&ops, mod, "kern_ops"));

    int *dst = gshmem_malloc(N * sizeof(int)), *src = gshmem_malloc(N * sizeof(int));
    int *pv = gshmem_calloc(1, sizeof(int));
    uint64_t *ctr = gshmem_calloc(1, sizeof(uint64_t)), *sig = gshmem_calloc(1, sizeof(uint64_t));
    SCHECK(dst && src && pv && ctr && sig);
    static int h[N];
    for (int i = 0; i < N; i++)
        h[i] = me * 1000000 + i;
    CU(cuMemcpyHtoD((CUdeviceptr)src, h, sizeof h));
    CU(cuMemsetD8((CUdeviceptr)dst, 0, sizeof h));
    CUdeviceptr seen;
    CU(cuMemAlloc(&seen, 8 * sizeof(int)));
    CU(cuMemsetD8(seen, 0xff, 8 * sizeof(int)));
    gshmem_barrier_all();

    int n = N;
    void *args[] = {&dst, &src, &pv, &ctr, &sig, &seen, &n};
    CUresult r = cuLaunchCooperativeKernel(ops, 1, 1, 1, 256, 1, 1, 0, 0, args);
    if (r == CUDA_ERROR_NOT_SUPPORTED) /* an MPS client: one block is resident anyway */
        r = cuLaunchKernel(ops, 1, 1, 1, 256, 1, 1, 0, 0, args, NULL);
    CU(r);
    CU(cuCtxSynchronize());
    int s[6];
    CU(cuMemcpyDtoH(s, seen, sizeof s));
    SCHECK(s[0] == me && s[1] == np);
    SCHECK(s[2] == 1000 + left);
    SCHECK(s[3] == np * (np + 1) / 2);
    SCHECK(s[4] == 1);
    SCHECK(s[5] == ((me + 1) % np) * 1000000 + 1);
    static int got[N];
    CU(cuMemcpyDtoH(got, (CUdeviceptr)dst, sizeof got));
    for (int i = 0; i < N; i++)
        SCHECK(got[i] == left * 1000000 + i);

    gshmem_barrier_all();
    SCHECK(gshmemx_cumodule_finalize(mod) == 0);
    CU(cuModuleUnload(mod));
    CU(cuModuleUnload(plain));
    CU(cuMemFree(seen));
    gshmem_free(sig);
    gshmem_free(ctr);
    gshmem_free(pv);
    gshmem_free(src);
    gshmem_free(dst);
    printf("kern_drv ok %d/%d\n", me, np);
    gshmem_finalize();
    CU(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
