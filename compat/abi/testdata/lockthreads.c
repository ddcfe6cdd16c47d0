/* MPI_THREAD_MULTIPLE: threads of each rank lock different targets of one
 * window at once (MPI-4.1 allows a process's threads to hold locks to
 * different targets). Thread t of every rank locks rank t alone, shared
 * (rma.c's fast path) and exclusive (Go's path) in turn, adds rank+1 to
 * its slot there, puts a pattern into its own region there and reads it
 * back under the same lock. The sums then count every add, and
 * MPI_Win_flush_all after the threads end answers MPI_ERR_RMA_SYNC (the
 * count of locked targets is back to 0).
 *
 * Then the erroneous case: two threads locking the same target at once.
 * While one holds it, the other's MPI_Win_lock answers MPI_ERR_RMA_SYNC
 * (and a second unlock after the first too); then both race for it many times, each lock either
 * held alone or refused with MPI_ERR_RMA_SYNC (or MPI_ERR_RMA_CONFLICT),
 * never two holders; every rank can still lock every other exclusively
 * afterwards (no reader left behind in the lock words). alarm() bounds
 * it. */
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include "check.h"

enum { NITER = 400, PAT = 16, TRIES = 2000 };

static int rank, size;
static MPI_Win win;
static long *base; /* size counters, then size regions of PAT longs */

static void *locker(void *arg)
{
    int t = (int)(intptr_t)arg;
    long pat[PAT], back[PAT];
    for (int i = 0; i < NITER; i++) {
        int typ = i % 2 ? MPI_LOCK_SHARED : MPI_LOCK_EXCLUSIVE;
        CHECK_RC(MPI_Win_lock(typ, t, 0, win));
        long one = rank + 1;
        CHECK_RC(MPI_Accumulate(&one, 1, MPI_LONG, t, rank, 1, MPI_LONG, MPI_SUM, win));
        for (int k = 0; k < PAT; k++)
            pat[k] = 1000000L * rank + 1000L * i + k;
        CHECK_RC(MPI_Put(pat, PAT, MPI_LONG, t, size + PAT * rank, PAT, MPI_LONG, win));
        CHECK_RC(MPI_Win_flush(t, win));
        memset(back, 0xff, sizeof back);
        CHECK_RC(MPI_Get(back, PAT, MPI_LONG, t, size + PAT * rank, PAT, MPI_LONG, win));
        CHECK_RC(MPI_Win_flush_local(t, win));
        CHECK(memcmp(pat, back, sizeof pat) == 0);
        CHECK_RC(MPI_Win_unlock(t, win));
    }
    return NULL;
}

static int err_class(int rc)
{
    int c = -1;
    CHECK_RC(MPI_Error_class(rc, &c));
    return c;
}

static pthread_barrier_t gate;
static int holders, got, bad;

static void *racer(void *arg)
{
    int other = (int)(intptr_t)arg;
    pthread_barrier_wait(&gate);
    for (int i = 0; i < TRIES; i++) {
        int typ = i % 4 == 3 ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED;
        int rc = MPI_Win_lock(typ, other, 0, win);
        if (rc != MPI_SUCCESS) {
            int c = err_class(rc);
            if (c != MPI_ERR_RMA_SYNC && c != MPI_ERR_RMA_CONFLICT)
                __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
            continue;
        }
        if (__atomic_add_fetch(&holders, 1, __ATOMIC_SEQ_CST) != 1)
            __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
        __atomic_add_fetch(&got, 1, __ATOMIC_RELAXED);
        sched_yield(); /* the other tries while this one holds it */
        __atomic_sub_fetch(&holders, 1, __ATOMIC_SEQ_CST);
        CHECK_RC(MPI_Win_unlock(other, win));
    }
    return NULL;
}

static int lock_rc;

static void *intruder(void *arg)
{
    int other = (int)(intptr_t)arg;
    lock_rc = MPI_Win_lock(MPI_LOCK_SHARED, other, 0, win);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = -1;
    alarm(120);
    CHECK_RC(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE);
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MPI_Aint bytes = (MPI_Aint)sizeof(long) * (size + PAT * size);
    CHECK_RC(MPI_Win_allocate(bytes, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    CHECK_RC(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    memset(base, 0, (size_t)bytes);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));

    pthread_t th[8];
    for (int t = 0; t < size; t++)
        CHECK(pthread_create(&th[t], NULL, locker, (void *)(intptr_t)t) == 0);
    for (int t = 0; t < size; t++)
        CHECK(pthread_join(th[t], NULL) == 0);
    CHECK(err_class(MPI_Win_flush_all(win)) == MPI_ERR_RMA_SYNC);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
    for (int r = 0; r < size; r++)
        CHECK(base[r] == (long)NITER * (r + 1));
    CHECK_RC(MPI_Win_unlock(rank, win));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));

    /* Same target from two threads: the second is refused while the first
     * holds it. */
    int other = (rank + 1) % size;
    CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, other, 0, win));
    CHECK(pthread_create(&th[0], NULL, intruder, (void *)(intptr_t)other) == 0);
    CHECK(pthread_join(th[0], NULL) == 0);
    CHECK(err_class(lock_rc) == MPI_ERR_RMA_SYNC);
    CHECK_RC(MPI_Win_unlock(other, win));
    CHECK(err_class(MPI_Win_unlock(other, win)) == MPI_ERR_RMA_SYNC);

    CHECK(pthread_barrier_init(&gate, NULL, 4) == 0);
    for (int t = 0; t < 4; t++)
        CHECK(pthread_create(&th[t], NULL, racer, (void *)(intptr_t)other) == 0);
    for (int t = 0; t < 4; t++)
        CHECK(pthread_join(th[t], NULL) == 0);
    CHECK(bad == 0 && got > 0);
    CHECK(err_class(MPI_Win_flush_all(win)) == MPI_ERR_RMA_SYNC);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    for (int r = 0; r < size; r++) {
        CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, r, 0, win));
        CHECK_RC(MPI_Win_unlock(r, win));
    }
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_RC(MPI_Win_free(&win));
    CHECK_RC(MPI_Finalize());
    printf("lockthreads ok %d/%d\n", rank, size);
    return 0;
}
