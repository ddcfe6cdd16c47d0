/* shmem_calls.c: what one symmetric-heap call costs from C, PE 0 to PE 1
 * (2 PEs on one node), through gshmem.h (libmpi_abi) or, built with
 * -DUSE_OPENSHMEM, through an OpenSHMEM library's shmem.h: the same code,
 * the prefix renamed, as a code ported from NVSHMEM or OpenSHMEM is.
 *
 *   shmem_calls ITERS ROW       ROW: p, g, put8+quiet, get8, fadd, cswap,
 *                               put_signal8, put64k+quiet, pingpong
 *
 * pingpong is half the round trip of an 8-byte put with signal answered by
 * one: PE 1 waits for each signal and replies (both PEs busy).
 *
 * The clock is read only around the loop (ITERS calls); PE 0 prints
 * "ROW NS ns" (nanoseconds per call). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef USE_OPENSHMEM
#include <shmem.h>
#define S(x) shmem_##x
#define SIG(x) SHMEM_SIGNAL_##x
#define CMP(x) SHMEM_CMP_##x
#else
#include <gshmem.h>
#define S(x) gshmem_##x
#define SIG(x) GSHMEM_SIGNAL_##x
#define CMP(x) GSHMEM_CMP_##x
#endif

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv)
{
    long iters = argc > 1 ? atol(argv[1]) : 100000;
    const char *row = argc > 2 ? argv[2] : "p";
    /* An unknown row ends every PE before the job starts, not PE 0 alone. */
    const char *rows[] = {"p", "g", "put8+quiet", "get8", "fadd", "cswap", "put64k+quiet",
#if !defined(USE_OPENSHMEM) || defined(SHMEM_SIGNAL_ADD) /* OpenSHMEM 1.5 */
                          "put_signal8", "pingpong",
#endif
                          NULL};
    int known = 0;
    for (int i = 0; rows[i] != NULL; i++)
        known |= strcmp(rows[i], row) == 0;
    if (!known) {
        fprintf(stderr, "shmem_calls: no row %s in this build\n", row);
        return 2;
    }
    S(init)();
    int me = S(my_pe)();
    long *word = S(calloc)(8, sizeof(long));
    uint64_t *sig = S(calloc)(1, sizeof(uint64_t));
    char *big = S(malloc)(65536);
    static char local[65536];
    long v = 0;
    S(barrier_all)();
#if !defined(USE_OPENSHMEM) || defined(SHMEM_SIGNAL_ADD)
    if (strcmp(row, "pingpong") == 0) {
        double t0 = now();
        for (long i = 1; i <= iters; i++) {
            if (me == 0) {
                S(putmem_signal)(word + 4, &i, 8, sig, (uint64_t)i, SIG(SET), 1);
                S(signal_wait_until)(sig, CMP(EQ), (uint64_t)i);
            } else {
                S(signal_wait_until)(sig, CMP(EQ), (uint64_t)i);
                S(putmem_signal)(word + 4, &i, 8, sig, (uint64_t)i, SIG(SET), 0);
            }
        }
        double t1 = now();
        if (me == 0)
            printf("%s %.1f ns\n", row, (t1 - t0) / iters / 2);
        iters = 0; /* the loop below does nothing */
    }
#endif
    if (me == 0 && iters > 0) {
        double t0 = now();
        if (strcmp(row, "p") == 0) {
            for (long i = 0; i < iters; i++)
                S(long_p)(word, i, 1);
            S(quiet)();
        } else if (strcmp(row, "g") == 0) {
            for (long i = 0; i < iters; i++)
                v += S(long_g)(word, 1);
        } else if (strcmp(row, "put8+quiet") == 0) {
            for (long i = 0; i < iters; i++) {
                S(putmem)(word, &i, 8, 1);
                S(quiet)();
            }
        } else if (strcmp(row, "get8") == 0) {
            for (long i = 0; i < iters; i++)
                S(getmem)(&v, word, 8, 1);
        } else if (strcmp(row, "fadd") == 0) {
            for (long i = 0; i < iters; i++)
                v += S(long_atomic_fetch_add)(word + 1, 1, 1);
        } else if (strcmp(row, "cswap") == 0) {
            for (long i = 0; i < iters; i++)
                v += S(long_atomic_compare_swap)(word + 2, i, i + 1, 1);
#if !defined(USE_OPENSHMEM) || defined(SHMEM_SIGNAL_ADD) /* OpenSHMEM 1.5 */
        } else if (strcmp(row, "put_signal8") == 0) {
            for (long i = 0; i < iters; i++)
                S(putmem_signal)(word + 3, &i, 8, sig, 1, SIG(ADD), 1);
            S(quiet)();
#endif
        } else { /* put64k+quiet */
            for (long i = 0; i < iters; i++) {
                S(putmem)(big, local, sizeof local, 1);
                S(quiet)();
            }
        }
        double t1 = now();
        printf("%s %.1f ns\n", row, (t1 - t0) / iters);
    }
    S(barrier_all)();
    if (v == -1)
        printf("%ld\n", v); /* keeps v live */
    S(free)(big);
    S(free)(sig);
    S(free)(word);
    S(finalize)();
    return 0;
}
