/* Stage 4, driver API: kern_ops.cuh's kernels as a module
 *   gshmem nvcc -cubin -arch=sm_90 kern_mod.cu -o kern_mod.cubin
 * loaded by kern_drv.c, which binds it with gshmemx_cumodule_init. */
#include "kern_ops.cuh"
