/* MPI_THREAD_MULTIPLE: threads of each rank duplicate communicators
 * without blocking at once. Phase 1: each of NT threads starts NDUP
 * MPI_Comm_idup of its own parent (a duplicate of MPI_COMM_WORLD) and of
 * a duplicate of it, then an MPI_Comm_dup, waits for them all, and uses
 * each new communicator with values and a tag of its own. Phase 2: the
 * threads take turns (a counter shared in the process) at MPI_Comm_idup
 * of one shared communicator, so that the calls are ordered the same way
 * on every rank, as MPI requires of collectives on one communicator; each
 * thread then uses the ones it made. Two new communicators sharing a
 * context, or one whose members disagree on which call made it, would
 * mix their messages: the values checked would differ or the run would
 * hang. alarm() bounds it. */
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include "check.h"

enum { NT = 4, NITER = 25, NDUP = 3, NTURN = 20 };

static int rank, size;
static MPI_Comm parent[NT], shared;

static void use(MPI_Comm d, int t, int i)
{
    int r, n;
    CHECK_RC(MPI_Comm_rank(d, &r));
    CHECK_RC(MPI_Comm_size(d, &n));
    CHECK(n == size && r == rank);
    long v = 1000L * t + i + r, sum = 0;
    CHECK_RC(MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, d));
    CHECK(sum == (long)n * (1000L * t + i) + (long)n * (n - 1) / 2);
    int out[3] = {t, i, r}, in[3] = {-1, -1, -1};
    CHECK_RC(MPI_Sendrecv(out, 3, MPI_INT, (r + 1) % n, 0, in, 3, MPI_INT, (r + n - 1) % n, 0, d, MPI_STATUS_IGNORE));
    CHECK(in[0] == t && in[1] == i && in[2] == (r + n - 1) % n);
}

static void *duper(void *arg)
{
    int t = (int)(intptr_t)arg;
    MPI_Comm mid;
    CHECK_RC(MPI_Comm_dup(parent[t], &mid));
    for (int i = 0; i < NITER; i++) {
        MPI_Comm d[2 * NDUP + 1];
        MPI_Request rq[2 * NDUP];
        for (int k = 0; k < NDUP; k++) {
            CHECK_RC(MPI_Comm_idup(parent[t], &d[2 * k], &rq[2 * k]));
            CHECK_RC(MPI_Comm_idup(mid, &d[2 * k + 1], &rq[2 * k + 1]));
        }
        CHECK_RC(MPI_Comm_dup(parent[t], &d[2 * NDUP]));
        CHECK_RC(MPI_Waitall(2 * NDUP, rq, MPI_STATUSES_IGNORE));
        for (int k = 0; k <= 2 * NDUP; k++) {
            use(d[k], t, 100 * i + k);
            CHECK_RC(MPI_Comm_free(&d[k]));
        }
    }
    CHECK_RC(MPI_Comm_free(&mid));
    return NULL;
}

static int turn; /* the next idup of shared is thread turn % NT's */

static void *turner(void *arg)
{
    int t = (int)(intptr_t)arg;
    MPI_Comm d[NTURN];
    MPI_Request rq[NTURN];
    for (int i = 0; i < NTURN; i++) {
        while (__atomic_load_n(&turn, __ATOMIC_ACQUIRE) != NT * i + t)
            sched_yield();
        CHECK_RC(MPI_Comm_idup(shared, &d[i], &rq[i]));
        __atomic_store_n(&turn, NT * i + t + 1, __ATOMIC_RELEASE);
    }
    CHECK_RC(MPI_Waitall(NTURN, rq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < NTURN; i++) {
        use(d[i], t, 5000 + i);
        CHECK_RC(MPI_Comm_free(&d[i]));
    }
    return NULL;
}

static void run(void *(*f)(void *))
{
    pthread_t th[NT];
    for (int t = 0; t < NT; t++)
        CHECK(pthread_create(&th[t], NULL, f, (void *)(intptr_t)t) == 0);
    for (int t = 0; t < NT; t++)
        CHECK(pthread_join(th[t], NULL) == 0);
}

int main(int argc, char **argv)
{
    int provided = -1;
    alarm(150);
    CHECK_RC(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE);
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    for (int t = 0; t < NT; t++)
        CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &parent[t]));
    run(duper);
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &shared));
    run(turner);
    CHECK_RC(MPI_Comm_free(&shared));
    for (int t = 0; t < NT; t++)
        CHECK_RC(MPI_Comm_free(&parent[t]));
    CHECK_RC(MPI_Finalize());
    printf("idupthreads ok %d/%d\n", rank, size);
    return 0;
}
