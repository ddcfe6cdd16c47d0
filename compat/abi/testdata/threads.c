/* MPI_THREAD_MULTIPLE: NT threads per rank call MPI at once. Each phase
 * checks every byte it received: concurrent Send/Recv pairs with
 * per-thread tags (order and content), MPI_ANY_SOURCE receivers in every
 * thread, Mprobe/Mrecv and Iprobe races, collectives on per-thread
 * duplicated communicators, Put/Get/Accumulate/flush on per-thread
 * windows and on one window every thread shares under lock_all epochs
 * (whose first operations to a target race to take its lock), requests
 * made in one thread and completed in another. alarm()
 * bounds the whole run: a hang fails it. An argument runs that many
 * rounds (a stress run: `mpiexec -np 4 threads 100`). */
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include "check.h"

enum { NT = 4, NPAIR = 400, NANY = 200, NPROBE = 100, NCOLL = 100, NRMA = 200, WINN = 1024 };

static int rank, size;
static MPI_Comm tcomm[NT];
static MPI_Win twin[NT], swin;
static int *sbase;
static pthread_barrier_t bar;
static MPI_Request handoff[NT][8];
static int handbuf[NT][8][64];

/* fill writes the payload of message seq of thread t from rank r. */
static void fill(unsigned char *b, int n, int r, int t, int seq)
{
    for (int i = 0; i < n; i++)
        b[i] = (unsigned char)(r * 131 + t * 31 + seq * 7 + i);
}

static int payload_size(int seq)
{
    return seq % 9 == 0 ? 20000 : 8 + (seq * 37) % 2000; /* some rendezvous */
}

/* pairs: thread t sends to the right neighbour and receives from the left
 * with tag t; each message's sequence number and bytes are checked, so
 * per-thread-pair order holds. */
static void pairs(int t)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    static __thread unsigned char sb[20000], rb[20000];
    for (int seq = 0; seq < NPAIR; seq++) {
        int n = payload_size(seq);
        MPI_Request r;
        MPI_Status st;
        CHECK_RC(MPI_Irecv(rb, (int)sizeof rb, MPI_BYTE, left, t, MPI_COMM_WORLD, &r));
        fill(sb, n, rank, t, seq);
        if (seq % 2)
            CHECK_RC(MPI_Send(sb, n, MPI_BYTE, right, t, MPI_COMM_WORLD));
        else {
            MPI_Request s;
            CHECK_RC(MPI_Isend(sb, n, MPI_BYTE, right, t, MPI_COMM_WORLD, &s));
            CHECK_RC(MPI_Wait(&s, MPI_STATUS_IGNORE));
        }
        CHECK_RC(MPI_Wait(&r, &st));
        int got;
        CHECK_RC(MPI_Get_count(&st, MPI_BYTE, &got));
        CHECK(got == n && st.MPI_SOURCE == left && st.MPI_TAG == t);
        fill(sb, n, left, t, seq);
        CHECK(memcmp(sb, rb, (size_t)n) == 0);
    }
    /* Blocking Recv of small messages: the C fast path under the lock. */
    for (int seq = 0; seq < NPAIR; seq++) {
        int v[2] = {rank * 1000 + t, seq}, w[2];
        MPI_Request s;
        CHECK_RC(MPI_Isend(v, 2, MPI_INT, right, 50 + t, MPI_COMM_WORLD, &s));
        CHECK_RC(MPI_Recv(w, 2, MPI_INT, left, 50 + t, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(w[0] == left * 1000 + t && w[1] == seq);
        CHECK_RC(MPI_Wait(&s, MPI_STATUS_IGNORE));
    }
}

/* anysource: every thread sends NANY messages to every other rank with
 * one tag, and receives as many from MPI_ANY_SOURCE; each receiving
 * thread sees each sending thread's sequence numbers rise, and every
 * message arrives exactly once. */
static unsigned char seen[64][NT][NANY];
static void anysource(int t)
{
    int last[64][NT];
    memset(last, -1, sizeof last);
    MPI_Request *rs = malloc(sizeof(MPI_Request) * (size_t)(NANY * (size - 1)));
    int k = 0;
    int (*v)[3] = malloc(sizeof(int[3]) * (size_t)(NANY * (size - 1)));
    for (int d = 0; d < size; d++) {
        if (d == rank)
            continue;
        for (int seq = 0; seq < NANY; seq++, k++) {
            v[k][0] = rank, v[k][1] = t, v[k][2] = seq;
            CHECK_RC(MPI_Isend(v[k], 3, MPI_INT, d, 100, MPI_COMM_WORLD, &rs[k]));
        }
    }
    for (int i = 0; i < NANY * (size - 1); i++) {
        int w[3];
        MPI_Status st;
        CHECK_RC(MPI_Recv(w, 3, MPI_INT, MPI_ANY_SOURCE, 100, MPI_COMM_WORLD, &st));
        CHECK(st.MPI_SOURCE == w[0] && w[0] != rank && w[0] < size && w[1] >= 0 && w[1] < NT && w[2] >= 0 && w[2] < NANY);
        CHECK(w[2] > last[w[0]][w[1]]);
        last[w[0]][w[1]] = w[2];
        CHECK(__atomic_fetch_add(&seen[w[0]][w[1]][w[2]], 1, __ATOMIC_RELAXED) == 0);
    }
    CHECK_RC(MPI_Waitall(k, rs, MPI_STATUSES_IGNORE));
    free(rs);
    free(v);
}

/* probes: each thread sends NPROBE messages of varying size to every
 * other rank with tag 200 and takes as many by MPI_Mprobe (or an
 * MPI_Improbe loop) and MPI_Mrecv, sized by MPI_Get_count; the message a
 * probe matched is the one received. Iprobe with a per-thread tag races
 * beside them. */
static void probes(int t)
{
    MPI_Request *rs = malloc(sizeof(MPI_Request) * (size_t)(NPROBE * (size - 1)));
    int (*bufs)[40] = malloc(sizeof(int[40]) * (size_t)(NPROBE * (size - 1)));
    int k = 0;
    for (int d = 0; d < size; d++) {
        if (d == rank)
            continue;
        for (int seq = 0; seq < NPROBE; seq++, k++) {
            int n = 3 + seq % 37;
            for (int i = 0; i < n; i++)
                bufs[k][i] = i == 0 ? rank : i == 1 ? t : i == 2 ? seq : rank + seq + i;
            CHECK_RC(MPI_Isend(bufs[k], n, MPI_INT, d, 200, MPI_COMM_WORLD, &rs[k]));
        }
    }
    for (int i = 0; i < NPROBE * (size - 1); i++) {
        MPI_Message m;
        MPI_Status st;
        if (i % 2) {
            CHECK_RC(MPI_Mprobe(MPI_ANY_SOURCE, 200, MPI_COMM_WORLD, &m, &st));
        } else {
            int flag = 0;
            double t0 = MPI_Wtime();
            while (!flag) {
                CHECK_RC(MPI_Improbe(MPI_ANY_SOURCE, 200, MPI_COMM_WORLD, &flag, &m, &st));
                CHECK(MPI_Wtime() - t0 < 30);
            }
        }
        int n, w[40];
        CHECK_RC(MPI_Get_count(&st, MPI_INT, &n));
        CHECK(n >= 3 && n <= 40);
        CHECK_RC(MPI_Mrecv(w, n, MPI_INT, &m, &st));
        CHECK(m == MPI_MESSAGE_NULL && st.MPI_SOURCE == w[0]);
        CHECK(n == 3 + w[2] % 37);
        for (int j = 3; j < n; j++)
            CHECK(w[j] == w[0] + w[2] + j);
    }
    CHECK_RC(MPI_Waitall(k, rs, MPI_STATUSES_IGNORE));
    /* Iprobe then Recv on a tag only this thread uses: what it probed is
     * what it receives. */
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int seq = 0; seq < NPROBE; seq++) {
        int v = seq * 10 + t, w = -1, flag = 0;
        MPI_Request s;
        MPI_Status st;
        CHECK_RC(MPI_Isend(&v, 1, MPI_INT, right, 300 + t, MPI_COMM_WORLD, &s));
        double t0 = MPI_Wtime();
        while (!flag) {
            CHECK_RC(MPI_Iprobe(left, 300 + t, MPI_COMM_WORLD, &flag, &st));
            if (MPI_Wtime() - t0 >= 30)
                fprintf(stderr, "rank %d thread %d: no message %d from %d\n", rank, t, seq, left);
            CHECK(MPI_Wtime() - t0 < 30);
        }
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 300 + t);
        CHECK_RC(MPI_Recv(&w, 1, MPI_INT, left, 300 + t, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(w == v);
        CHECK_RC(MPI_Wait(&s, MPI_STATUS_IGNORE));
    }
    free(rs);
    free(bufs);
}

/* colls: collectives on this thread's own communicator, all at once. */
static void colls(int t)
{
    MPI_Comm c = tcomm[t];
    int all[64];
    for (int i = 0; i < NCOLL; i++) {
        long v = rank + i * t, sum = 0;
        CHECK_RC(MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, c));
        CHECK(sum == (long)size * (size - 1) / 2 + (long)size * i * t);
        int b = rank == i % size ? i * 100 + t : -1;
        CHECK_RC(MPI_Bcast(&b, 1, MPI_INT, i % size, c));
        CHECK(b == i * 100 + t);
        int me = rank * 10 + t + i;
        CHECK_RC(MPI_Allgather(&me, 1, MPI_INT, all, 1, MPI_INT, c));
        for (int r = 0; r < size; r++)
            CHECK(all[r] == r * 10 + t + i);
        if (i % 10 == 0)
            CHECK_RC(MPI_Barrier(c));
    }
}

/* rma: Put+flush, Get, Accumulate on this thread's own window, in a
 * lock_all epoch; the right neighbour's window holds what was put. */
static void rma(int t)
{
    MPI_Win w = twin[t];
    int right = (rank + 1) % size;
    int v[16], g[16];
    CHECK_RC(MPI_Win_lock_all(0, w));
    for (int i = 0; i < NRMA; i++) {
        int off = (i * 16) % (WINN / 2);
        for (int j = 0; j < 16; j++)
            v[j] = rank * 100000 + t * 10000 + i * 16 + j;
        CHECK_RC(MPI_Put(v, 16, MPI_INT, right, off, 16, MPI_INT, w));
        CHECK_RC(MPI_Win_flush(right, w));
        CHECK_RC(MPI_Get(g, 16, MPI_INT, right, off, 16, MPI_INT, w));
        CHECK_RC(MPI_Win_flush(right, w));
        CHECK(memcmp(v, g, sizeof v) == 0);
        int one = 1;
        CHECK_RC(MPI_Accumulate(&one, 1, MPI_INT, right, WINN - 1, 1, MPI_INT, MPI_SUM, w));
    }
    CHECK_RC(MPI_Win_flush_all(w));
    CHECK_RC(MPI_Win_unlock_all(w));
}

/* shared: every thread puts, gets, accumulates and flushes on the one
 * window swin, in NEPOCH lock_all epochs per round that thread 0 opens
 * and closes while the others wait at a barrier (MPI's rule: the epoch is
 * the process's, opened before its threads use it); each epoch's first
 * operations, every thread's at once, race to take a target's shared lock.
 * Thread t of each rank owns one 16-int slot of every target and checks
 * what it put there; every thread adds to one counter per target. */
enum { NEPOCH = 20 };
static void shared(int t)
{
    int v[16], g[16], off = 16 * (rank * NT + t);
    CHECK(16 * size * NT < WINN);
    for (int i = 0; i < NRMA; i++) {
        if (i % (NRMA / NEPOCH) == 0) {
            pthread_barrier_wait(&bar);
            if (t == 0)
                CHECK_RC(MPI_Win_lock_all(0, swin));
            pthread_barrier_wait(&bar);
        }
        int target = (rank + 1 + i / (NRMA / NEPOCH)) % size;
        for (int j = 0; j < 16; j++)
            v[j] = rank * 100000 + t * 10000 + i * 16 + j;
        CHECK_RC(MPI_Put(v, 16, MPI_INT, target, off, 16, MPI_INT, swin));
        CHECK_RC(MPI_Win_flush(target, swin));
        CHECK_RC(MPI_Get(g, 16, MPI_INT, target, off, 16, MPI_INT, swin));
        CHECK_RC(MPI_Win_flush_local(target, swin));
        CHECK(memcmp(v, g, sizeof v) == 0);
        int one = 1;
        CHECK_RC(MPI_Accumulate(&one, 1, MPI_INT, target, WINN - 1, 1, MPI_INT, MPI_SUM, swin));
        if (i % 4 == 3)
            CHECK_RC(MPI_Win_flush_all(swin));
        if (i % (NRMA / NEPOCH) == NRMA / NEPOCH - 1) {
            pthread_barrier_wait(&bar);
            if (t == 0)
                CHECK_RC(MPI_Win_unlock_all(swin));
        }
    }
}

/* handoff: thread t makes receives and sends to its peer thread's
 * requests; thread t^1 completes them. */
static void handoffs(int t)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    static int sendv[NT][8][64];
    MPI_Request sreq[8];
    for (int k = 0; k < 8; k++) {
        CHECK_RC(MPI_Irecv(handbuf[t][k], 64, MPI_INT, left, 400 + t * 8 + k, MPI_COMM_WORLD, &handoff[t][k]));
        for (int j = 0; j < 64; j++)
            sendv[t][k][j] = left * 7 + right + t * 64 + k + j;
    }
    pthread_barrier_wait(&bar);
    for (int k = 0; k < 8; k++) {
        for (int j = 0; j < 64; j++)
            sendv[t][k][j] = rank * 7 + (rank + 2) % size + t * 64 + k + j;
        CHECK_RC(MPI_Isend(sendv[t][k], 64, MPI_INT, right, 400 + t * 8 + k, MPI_COMM_WORLD, &sreq[k]));
    }
    int o = t ^ 1; /* complete the other thread's receives */
    for (int k = 0; k < 8; k++) {
        MPI_Status st;
        if (k % 2)
            CHECK_RC(MPI_Wait(&handoff[o][k], &st));
        else {
            int flag = 0;
            double t0 = MPI_Wtime();
            while (!flag) {
                CHECK_RC(MPI_Test(&handoff[o][k], &flag, &st));
                CHECK(MPI_Wtime() - t0 < 30);
            }
        }
        CHECK(st.MPI_TAG == 400 + o * 8 + k);
        for (int j = 0; j < 64; j++)
            CHECK(handbuf[o][k][j] == left * 7 + (left + 2) % size + o * 64 + k + j);
    }
    CHECK_RC(MPI_Waitall(8, sreq, MPI_STATUSES_IGNORE));
    pthread_barrier_wait(&bar);
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg, flag = -1;
    CHECK_RC(MPI_Is_thread_main(&flag));
    CHECK(flag == 0);
    pairs(t);
    pthread_barrier_wait(&bar);
    anysource(t);
    pthread_barrier_wait(&bar);
    probes(t);
    pthread_barrier_wait(&bar);
    colls(t);
    rma(t);
    shared(t);
    handoffs(t);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = -1, flag = -1, rounds = argc > 1 ? atoi(argv[1]) : 1;
    alarm(rounds > 1 ? 60 + 2 * (unsigned)rounds : 80);
    CHECK_RC(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE);
    CHECK_RC(MPI_Query_thread(&flag));
    CHECK(flag == MPI_THREAD_MULTIPLE);
    CHECK_RC(MPI_Is_thread_main(&flag));
    CHECK(flag == 1);
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size <= 64);
    int *bases[NT];
    for (int t = 0; t < NT; t++) {
        CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &tcomm[t]));
        CHECK_RC(MPI_Win_allocate(WINN * (MPI_Aint)sizeof(int), sizeof(int), MPI_INFO_NULL, tcomm[t], &bases[t], &twin[t]));
        memset(bases[t], 0, WINN * sizeof(int));
    }
    CHECK_RC(MPI_Win_allocate(WINN * (MPI_Aint)sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &sbase, &swin));
    memset(sbase, 0, WINN * sizeof(int));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    pthread_barrier_init(&bar, NULL, NT);
    for (int round = 0; round < rounds; round++) {
        pthread_t th[NT];
        for (int t = 0; t < NT; t++)
            CHECK(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0);
        for (int t = 0; t < NT; t++)
            CHECK(pthread_join(th[t], NULL) == 0);
        /* Every message of anysource arrived exactly once. */
        for (int r = 0; r < size; r++)
            for (int t = 0; t < NT; t++)
                for (int s = 0; s < NANY; s++)
                    CHECK(seen[r][t][s] == (r != rank));
        memset(seen, 0, sizeof seen);
        CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
        int left = (rank + size - 1) % size;
        for (int t = 0; t < NT; t++) {
            CHECK_RC(MPI_Win_sync(twin[t]));
            int i = NRMA - 1, off = (i * 16) % (WINN / 2);
            for (int j = 0; j < 16; j++)
                CHECK(bases[t][off + j] == left * 100000 + t * 10000 + i * 16 + j);
            CHECK(bases[t][WINN - 1] == NRMA * (round + 1));
        }
        /* The shared window: each rank's threads added NT * NRMA per round
         * to the counters, spread over the targets; the job's sum says so.
         * An exclusive lock on this rank proves every shared lock on it
         * was let go (a lock taken twice on first use never would be). */
        CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, swin));
        long mine = sbase[WINN - 1], all = 0;
        CHECK_RC(MPI_Win_unlock(rank, swin));
        CHECK_RC(MPI_Allreduce(&mine, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
        CHECK(all == (long)size * NT * NRMA * (round + 1));
        CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    }
    CHECK_RC(MPI_Win_free(&swin));
    for (int t = 0; t < NT; t++) {
        CHECK_RC(MPI_Win_free(&twin[t]));
        CHECK_RC(MPI_Comm_free(&tcomm[t]));
    }
    pthread_barrier_destroy(&bar);
    CHECK_RC(MPI_Finalize());
    printf("threads ok %d/%d\n", rank, size);
    return 0;
}
