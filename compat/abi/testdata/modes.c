/* Buffered mode through user buffers (the process's and a
 * communicator's, MPI_BUFFER_AUTOMATIC), until a buffer fills and
 * MPI_ERR_BUFFER; and partitioned communication: a send of 8 partitions
 * filled by 4 threads, received as 4 partitions. */
#include <pthread.h>
#include <string.h>
#include "check.h"

#define N (64 * 1024 / 4) /* ints per buffered message: past the eager limit */

static int errclass(int rc)
{
    int c;
    MPI_Error_class(rc, &c);
    return c;
}

static void buffered(int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    static int a[N], b[N], c[N], in[N];
    for (int i = 0; i < N; i++) {
        a[i] = rank + i;
        b[i] = rank - i;
        c[i] = 7;
    }
    int bsz = 2 * (N * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
    char *mem = malloc(bsz);
    CHECK(mem != NULL);
    CHECK_RC(MPI_Buffer_attach(mem, bsz));
    CHECK(errclass(MPI_Buffer_attach(mem, bsz)) == MPI_ERR_BUFFER);
    CHECK_RC(MPI_Bsend(a, N, MPI_INT, right, 1, MPI_COMM_WORLD));
    MPI_Request rq;
    int flag;
    CHECK_RC(MPI_Ibsend(b, N, MPI_INT, right, 2, MPI_COMM_WORLD, &rq));
    CHECK_RC(MPI_Test(&rq, &flag, MPI_STATUS_IGNORE));
    CHECK(flag == 1 && rq == MPI_REQUEST_NULL);
    for (int i = 0; i < N; i++)
        a[i] = b[i] = -1; /* the copies are what travel */
    /* The buffer is full until the receiver takes the two. */
    CHECK(errclass(MPI_Bsend(c, N, MPI_INT, right, 3, MPI_COMM_WORLD)) == MPI_ERR_BUFFER);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_RC(MPI_Recv(in, N, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(in[0] == left && in[N - 1] == left + N - 1);
    CHECK_RC(MPI_Recv(in, N, MPI_INT, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(in[0] == left && in[N - 1] == left - (N - 1));
    CHECK_RC(MPI_Buffer_flush());
    /* Space again: through a persistent buffered send, twice, and an iflush. */
    CHECK_RC(MPI_Bsend_init(c, N, MPI_INT, right, 4, MPI_COMM_WORLD, &rq));
    for (int k = 0; k < 2; k++) {
        CHECK_RC(MPI_Start(&rq));
        CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        in[0] = 0;
        CHECK_RC(MPI_Recv(in, N, MPI_INT, left, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(in[0] == 7);
    }
    CHECK_RC(MPI_Request_free(&rq));
    /* The right neighbour may not have taken both yet: they may still
     * fill the buffer. A flush waits until they have left. */
    CHECK_RC(MPI_Buffer_flush());
    MPI_Request fl;
    CHECK_RC(MPI_Bsend(c, 1, MPI_INT, right, 5, MPI_COMM_WORLD));
    CHECK_RC(MPI_Buffer_iflush(&fl));
    CHECK_RC(MPI_Recv(in, 1, MPI_INT, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Wait(&fl, MPI_STATUS_IGNORE));
    void *back;
    int bs;
    CHECK_RC(MPI_Buffer_detach(&back, &bs));
    CHECK(back == mem && bs == bsz);
    CHECK(errclass(MPI_Bsend(c, 1, MPI_INT, right, 6, MPI_COMM_WORLD)) == MPI_ERR_BUFFER);
    CHECK(errclass(MPI_Buffer_detach(&back, &bs)) == MPI_ERR_BUFFER);

    /* A communicator's own buffer, automatic: no bound. */
    MPI_Comm d;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    CHECK_RC(MPI_Comm_attach_buffer(d, MPI_BUFFER_AUTOMATIC, 0));
    for (int t = 0; t < 4; t++)
        CHECK_RC(MPI_Bsend(c, N, MPI_INT, right, t, d));
    CHECK(errclass(MPI_Bsend(c, 1, MPI_INT, right, 9, MPI_COMM_WORLD)) == MPI_ERR_BUFFER); /* not WORLD's */
    for (int t = 0; t < 4; t++)
        CHECK_RC(MPI_Recv(in, N, MPI_INT, left, t, d, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Comm_flush_buffer(d));
    CHECK_RC(MPI_Comm_iflush_buffer(d, &fl));
    CHECK_RC(MPI_Wait(&fl, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Comm_detach_buffer(d, &back, &bs));
    CHECK(back == MPI_BUFFER_AUTOMATIC && bs == 0);
    CHECK_RC(MPI_Comm_free(&d));
    free(mem);
}

#define PARTS 8
#define PER 1024 /* ints per sent partition: 32 KiB in all */

struct filler {
    int *buf, t, round;
    MPI_Request rq;
};

/* fill writes partitions t and t+4 and marks each ready. */
static void *fill(void *arg)
{
    struct filler *f = arg;
    for (int p = f->t; p < PARTS; p += 4) {
        for (int k = 0; k < PER; k++)
            f->buf[p * PER + k] = 100000 * f->round + 1000 * p + k;
        CHECK_RC(MPI_Pready(p, f->rq));
    }
    return NULL;
}

static void partitioned(int rank, int size)
{
    int sender = rank == 0, receiver = rank == (size > 1 ? 1 : 0), peer = size > 1 ? 1 - rank : 0;
    static int sbuf[PARTS * PER], rbuf[PARTS * PER];
    MPI_Request rqs[2];
    int n = 0, si = -1, ri = -1;
    if (receiver) {
        MPI_Request bad;
        CHECK(MPI_Precv_init(rbuf, 4, 2 * PER, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &bad) != MPI_SUCCESS);
        CHECK_RC(MPI_Precv_init(rbuf, 4, 2 * PER, MPI_INT, size > 1 ? 0 : 0, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &rqs[n]));
        ri = n++;
    }
    if (sender) {
        CHECK_RC(MPI_Psend_init(sbuf, PARTS, PER, MPI_INT, size > 1 ? 1 : 0, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &rqs[n]));
        si = n++;
        CHECK(errclass(MPI_Pready(0, rqs[si])) == MPI_ERR_REQUEST); /* inactive */
    }
    (void)peer;
    for (int round = 0; round < 2 && n > 0; round++) {
        CHECK_RC(MPI_Startall(n, rqs));
        if (sender && round == 0) {
            pthread_t th[4];
            struct filler f[4];
            for (int t = 0; t < 4; t++) {
                f[t] = (struct filler){sbuf, t, round, rqs[si]};
                CHECK(pthread_create(&th[t], NULL, fill, &f[t]) == 0);
            }
            for (int t = 0; t < 4; t++)
                CHECK(pthread_join(th[t], NULL) == 0);
            CHECK(errclass(MPI_Pready(3, rqs[si])) == MPI_ERR_ARG); /* twice */
        } else if (sender) {
            for (int i = 0; i < PARTS * PER; i++)
                sbuf[i] = 100000 * round + 1000 * (i / PER) + i % PER;
            int list[4] = {7, 5, 6, 4};
            CHECK_RC(MPI_Pready_range(0, 3, rqs[si]));
            CHECK_RC(MPI_Pready_list(4, list, rqs[si]));
        }
        if (receiver) {
            for (int p = 0; p < 4; p++) {
                int flag = 0;
                while (!flag)
                    CHECK_RC(MPI_Parrived(rqs[ri], p, &flag));
            }
        }
        MPI_Status sts[2];
        CHECK_RC(MPI_Waitall(n, rqs, sts));
        CHECK(rqs[0] != MPI_REQUEST_NULL);
        if (receiver) {
            CHECK(sts[ri].MPI_SOURCE == 0 && sts[ri].MPI_TAG == 5);
            for (int i = 0; i < PARTS * PER; i++)
                CHECK(rbuf[i] == 100000 * round + 1000 * (i / PER) + i % PER);
        }
    }
    for (int i = 0; i < n; i++)
        CHECK_RC(MPI_Request_free(&rqs[i]));
}

int main(int argc, char **argv)
{
    int rank, size, provided;
    CHECK_RC(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    buffered(rank, size);
    partitioned(rank, size);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_RC(MPI_Finalize());
    printf("modes ok %d\n", rank);
    return 0;
}
