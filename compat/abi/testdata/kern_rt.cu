/* Stage 4, runtime API, one file: kernels and host code together, built
 * with gshmem nvcc kern_rt.cu (nvcc -I$PREFIX/include ... -lmpi_abi). */
#include "kern_ops.cuh"
#include "kern_main.h"
