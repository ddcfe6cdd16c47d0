package main

// gshmemKernHead is gshmem.h's block for kernels the user compiles with
// their own nvcc (stage 4): binding gshmem.cuh's device state into a module
// loaded with the driver API. The runtime-API binding and the collective
// launch are in gshmem.cuh itself, which needs the CUDA runtime's types.
const gshmemKernHead = `
/* Kernels in a module loaded with the driver API (cuModuleLoad of nvcc's
 * -ptx or -cubin output, built with gshmem.cuh): gshmemx_cumodule_init
 * writes this PE's device state into the module (a CUmodule, passed as a
 * void * so that this header needs no CUDA header), after gshmem_init and
 * before the module's kernels run; gshmemx_cumodule_finalize clears it
 * before the module is unloaded. Both return 0, or nonzero after saying
 * why on stderr (the heap is host memory, the module was built against
 * another gshmem.cuh, ...). Kernels built into the program by nvcc are
 * bound by gshmem_init itself; see gshmem.cuh. */
int gshmemx_cumodule_init(void *module);
int gshmemx_cumodule_finalize(void *module);
`
