/* check.h: assertions for the C test programs of compat/abi. A failed
 * check prints where and what, then ends the job with exit code 3, which
 * the Go test reports with the output. */
#ifndef ABI_TEST_CHECK_H
#define ABI_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>

#define CHECK(cond)                                                              \
    do {                                                                         \
        if (!(cond)) {                                                           \
            int r_ = -1, i_ = 0;                                                 \
            MPI_Initialized(&i_);                                                \
            if (i_) MPI_Comm_rank(MPI_COMM_WORLD, &r_);                          \
            fprintf(stderr, "CHECK FAILED %s:%d (rank %d): %s\n", __FILE__,      \
                    __LINE__, r_, #cond);                                        \
            fflush(stderr);                                                      \
            if (i_) MPI_Abort(MPI_COMM_WORLD, 3);                                \
            exit(3);                                                             \
        }                                                                        \
    } while (0)

/* CHECK_RC checks a call returned MPI_SUCCESS. */
#define CHECK_RC(call) CHECK((call) == MPI_SUCCESS)

#endif
