/* pack_bench.c: MPI_Pack and MPI_Unpack of 1 MiB of data in a stride-2
 * vector (MPI_Type_vector(n, 1, 2, T)) of MPI_INT, MPI_DOUBLE and
 * MPI_C_DOUBLE_COMPLEX, beside memcpy of the same 1 MiB (the issue's
 * anchor) and of the 2 MiB the vector spans (the bytes a pack must read).
 * One process; the best of 200 timed calls each, interleaved, so that a
 * loaded machine's preemptions fall out. Built unchanged with each MPI's
 * mpicc (test/perf/dtype-perf.sh).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MiB (1 << 20)
#define REPS 200

static double best(double *t, int n) {
    double b = t[0];
    for (int i = 1; i < n; i++)
        if (t[i] < b) b = t[i];
    return b;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    char *span = malloc(2 * MiB), *out = malloc(2 * MiB), *packed = malloc(MiB);
    memset(span, 1, 2 * MiB);
    memset(out, 2, 2 * MiB);
    memset(packed, 3, MiB);
    MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_C_DOUBLE_COMPLEX};
    const char *names[3] = {"int", "double", "double complex"};
    int sizes[3] = {4, 8, 16};
    MPI_Datatype vec[3];
    for (int k = 0; k < 3; k++) {
        MPI_Type_vector(MiB / sizes[k], 1, 2, types[k], &vec[k]);
        MPI_Type_commit(&vec[k]);
    }
    static double tm[REPS], ts[REPS], tp[3][REPS], tu[3][REPS];
    for (int r = 0; r < REPS; r++) {
        double t0 = MPI_Wtime();
        memcpy(out, span, MiB);
        __asm__ volatile("" ::: "memory");
        double t1 = MPI_Wtime();
        memcpy(out, span, 2 * MiB);
        __asm__ volatile("" ::: "memory");
        double t2 = MPI_Wtime();
        tm[r] = t1 - t0;
        ts[r] = t2 - t1;
        for (int k = 0; k < 3; k++) {
            int pos = 0;
            double a = MPI_Wtime();
            MPI_Pack(span, 1, vec[k], packed, MiB, &pos, MPI_COMM_WORLD);
            double b = MPI_Wtime();
            if (pos != MiB) {
                fprintf(stderr, "MPI_Pack of %s: position %d\n", names[k], pos);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            pos = 0;
            MPI_Unpack(packed, MiB, &pos, span, 1, vec[k], MPI_COMM_WORLD);
            double c = MPI_Wtime();
            tp[k][r] = b - a;
            tu[k][r] = c - b;
        }
    }
    double m = best(tm, REPS), s = best(ts, REPS);
    printf("memcpy 1 MiB %.1f us (%.1f GB/s), memcpy of the 2 MiB span %.1f us\n", m * 1e6, MiB / m / 1e9, s * 1e6);
    for (int k = 0; k < 3; k++) {
        double p = best(tp[k], REPS), u = best(tu[k], REPS);
        printf("%-15s pack %6.1f us = %.2f x memcpy (%.2f x span)   unpack %6.1f us = %.2f x memcpy\n", names[k],
               p * 1e6, m / p, s / p, u * 1e6, m / u);
        MPI_Type_free(&vec[k]);
    }
    free(span);
    free(out);
    free(packed);
    MPI_Finalize();
    return 0;
}
