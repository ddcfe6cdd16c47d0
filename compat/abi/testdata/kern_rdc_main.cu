/* Stage 4, separate compilation (-rdc=true): this unit defines the device
 * program's one gshmemi_state, and launches kern_rdc_dev.cu's kernels:
 *   gshmem nvcc -rdc=true kern_rdc_main.cu kern_rdc_dev.cu */
#ifndef KERN_NO_STATE_DEFINE /* the test that a missing definition fails the link */
#define GSHMEM_STATE_DEFINE
#endif
#include <gshmem.cuh>
#include "kern_main.h"
