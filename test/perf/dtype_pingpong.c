/* dtype_pingpong.c: a ping-pong of derived datatypes between 2 ranks,
 * built unchanged with each MPI's mpicc (dtype-perf.sh): a strided vector
 * of doubles (every other double) and a struct {char; double; int[3]}
 * (21 data bytes in 32), payloads of 8 B to 4 MiB of data; then MPI_Pack
 * of a 1 MiB strided vector against memcpy of the same bytes. The clock
 * is read around each loop; each line is the best of 3 loops, half a
 * round trip in microseconds. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>

struct rec { char c; double d; int i[3]; };

static double loop(void *buf, int count, MPI_Datatype t, int iters, int rank) {
    double best = 1e30;
    for (int rep = 0; rep < 3; rep++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++) {
            if (rank == 0) {
                MPI_Send(buf, count, t, 1, 0, MPI_COMM_WORLD);
                MPI_Recv(buf, count, t, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, count, t, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, count, t, 0, 0, MPI_COMM_WORLD);
            }
        }
        double dt = (MPI_Wtime() - t0) / iters / 2 * 1e6;
        if (dt < best) best = dt;
    }
    return best;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const long maxb = 4 << 20;
    double *vbuf = calloc(2 * maxb / 8 + 2, 8);
    struct rec *sbuf = calloc(maxb / 21 + 2, sizeof(struct rec));
    MPI_Datatype vec1, st;
    MPI_Type_vector(1, 1, 2, MPI_DOUBLE, &vec1); /* one double, stride 2: extent resized below */
    MPI_Datatype vr;
    MPI_Type_create_resized(vec1, 0, 16, &vr);
    MPI_Type_commit(&vr);
    int bl[3] = {1, 1, 3};
    MPI_Aint dp[3] = {offsetof(struct rec, c), offsetof(struct rec, d), offsetof(struct rec, i)};
    MPI_Datatype ty[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
    MPI_Type_create_struct(3, bl, dp, ty, &st);
    MPI_Type_commit(&st);
    if (rank == 0) printf("%-8s %12s %12s\n", "bytes", "vector_us", "struct_us");
    for (long b = 8; b <= maxb; b *= 4) {
        int iters = b <= 65536 ? 2000 : 100;
        /* the vector: b/8 doubles every other double, as one vector type */
        MPI_Datatype v;
        MPI_Type_vector((int)(b / 8), 1, 2, MPI_DOUBLE, &v);
        MPI_Type_commit(&v);
        double tv = loop(vbuf, 1, v, iters, rank);
        MPI_Type_free(&v);
        int n = (int)((b + 20) / 21);
        double ts = loop(sbuf, n, st, iters, rank);
        if (rank == 0) printf("%-8ld %12.2f %12.2f\n", b, tv, ts);
    }
    if (rank == 0) {
        /* MPI_Pack of 1 MiB of data in a stride-2 vector, against memcpy. */
        const int nd = (1 << 20) / 8;
        MPI_Datatype v;
        MPI_Type_vector(nd, 1, 2, MPI_DOUBLE, &v);
        MPI_Type_commit(&v);
        char *out = malloc(1 << 20), *src = malloc(1 << 20);
        memset(src, 1, 1 << 20);
        double bp = 1e30, bm = 1e30;
        for (int rep = 0; rep < 5; rep++) {
            double t0 = MPI_Wtime();
            for (int i = 0; i < 50; i++) {
                int pos = 0;
                MPI_Pack(vbuf, 1, v, out, 1 << 20, &pos, MPI_COMM_WORLD);
            }
            double t1 = MPI_Wtime();
            for (int i = 0; i < 50; i++) {
                memcpy(out, src, 1 << 20);
                __asm__ volatile("" ::: "memory");
            }
            double t2 = MPI_Wtime();
            if ((t1 - t0) / 50 < bp) bp = (t1 - t0) / 50;
            if ((t2 - t1) / 50 < bm) bm = (t2 - t1) / 50;
        }
        printf("pack 1 MiB stride-2 vector: %.2f GB/s, memcpy 1 MiB: %.2f GB/s, ratio %.2f\n",
               (1 << 20) / bp / 1e9, (1 << 20) / bm / 1e9, bm / bp);
        MPI_Type_free(&v);
    }
    MPI_Type_free(&st);
    MPI_Type_free(&vr);
    MPI_Type_free(&vec1);
    MPI_Finalize();
    return 0;
}
