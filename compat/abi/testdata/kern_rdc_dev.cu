/* Stage 4, separate compilation (-rdc=true): the kernels, in a unit of
 * their own; the state is defined in kern_rdc_main.cu. */
#include "kern_ops.cuh"
