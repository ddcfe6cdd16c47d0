/* shmcheck.h: assertions for the gshmem.h test programs, which may run
 * without MPI. A failed check prints where and what, then ends the job
 * with exit code 3. */
#ifndef ABI_TEST_SHMCHECK_H
#define ABI_TEST_SHMCHECK_H

#include <stdio.h>
#include <gshmem.h>

#define SCHECK(cond)                                                             \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "CHECK FAILED %s:%d (PE %d): %s\n", __FILE__,        \
                    __LINE__, gshmem_my_pe(), #cond);                            \
            fflush(stderr);                                                      \
            gshmem_global_exit(3);                                               \
        }                                                                        \
    } while (0)

#endif
