/* shmemx.h: OpenSHMEM's place for an implementation's extensions. gshmem's
 * are in gshmem.h (gshmemx_*), which a program may include beside shmem.h:
 * both reach the same heap. */
#ifndef SHMEMX_H
#define SHMEMX_H

#include "shmem.h"

#endif /* SHMEMX_H */
