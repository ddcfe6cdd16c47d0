/* gshmemx.h: where NVSHMEM's programs find the extensions (nvshmemx.h), so
 * that one written for NVSHMEM ports by renaming. gshmem.h declares the
 * gshmemx_* calls itself (and, under nvcc, brings the device API), so this
 * header is that one. */
#ifndef GSHMEMX_H
#define GSHMEMX_H

#include "gshmem.h"

#endif /* GSHMEMX_H */
