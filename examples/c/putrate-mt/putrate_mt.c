/* putrate_mt: the aggregate rate of MPI_Put + MPI_Win_flush when NT
 * threads per rank each drive their own window (MPI_THREAD_MULTIPLE), in
 * a lock_all epoch, to the next rank. Every rank reports its puts per
 * second; rank 0 prints the sum. Usage: mpiexec -np 2 putrate_mt [threads
 * [iterations [bytes]]]. Build with any MPI's mpicc -pthread. */
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nt = 4, iters = 100000, bytes = 8, rank, size;
static MPI_Win *wins;
static pthread_barrier_t bar;
static double t0, t1;

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg, right = (rank + 1) % size;
    char *buf = calloc(1, (size_t)bytes);
    MPI_Win w = wins[t];
    MPI_Win_lock_all(0, w);
    for (int i = 0; i < 1000; i++) { /* warm-up */
        MPI_Put(buf, bytes, MPI_BYTE, right, 0, bytes, MPI_BYTE, w);
        MPI_Win_flush(right, w);
    }
    pthread_barrier_wait(&bar);
    if (t == 0)
        t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        buf[0] = (char)i;
        MPI_Put(buf, bytes, MPI_BYTE, right, 0, bytes, MPI_BYTE, w);
        MPI_Win_flush(right, w);
    }
    pthread_barrier_wait(&bar);
    if (t == 0)
        t1 = MPI_Wtime();
    MPI_Win_unlock_all(w);
    free(buf);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    if (argc > 1) nt = atoi(argv[1]);
    if (argc > 2) iters = atoi(argv[2]);
    if (argc > 3) bytes = atoi(argv[3]);
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided != MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "putrate_mt: MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    wins = malloc(sizeof(MPI_Win) * (size_t)nt);
    for (int t = 0; t < nt; t++) {
        void *base;
        MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &wins[t]);
    }
    pthread_barrier_init(&bar, NULL, (unsigned)nt);
    pthread_t th[64];
    MPI_Barrier(MPI_COMM_WORLD);
    for (int t = 0; t < nt && t < 64; t++)
        pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    for (int t = 0; t < nt && t < 64; t++)
        pthread_join(th[t], NULL);
    double rate = (double)nt * iters / (t1 - t0), sum = 0;
    MPI_Reduce(&rate, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("putrate_mt: %d ranks x %d threads, %d B: %.3f Mput+flush/s aggregate\n", size, nt, bytes, sum / 1e6);
    for (int t = 0; t < nt; t++)
        MPI_Win_free(&wins[t]);
    MPI_Finalize();
    return 0;
}
