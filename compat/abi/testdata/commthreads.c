/* MPI_THREAD_MULTIPLE: NT threads per rank create communicators at once,
 * each from its own parent (a duplicate of MPI_COMM_WORLD), as MPI allows
 * on different communicators. Each thread duplicates its parent NITER
 * times (every 4th creation a split, a create or a create_group instead,
 * every 10th an intercommunicator of one rank against the others, merged
 * back) and runs an MPI_Allreduce and a ring exchange with one tag on each
 * new communicator: two of them sharing a context would mix their
 * messages, and the values checked would differ or the run would hang.
 * It keeps every 8th communicator until the end, so that ids taken by one
 * thread stay in use while the others take theirs. alarm() bounds it. */
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include "check.h"

enum { NT = 4, NITER = 100 };

static int rank, size;
static MPI_Comm parent[NT];

static void use(MPI_Comm d, int t, int i)
{
    int r, n;
    CHECK_RC(MPI_Comm_rank(d, &r));
    CHECK_RC(MPI_Comm_size(d, &n));
    CHECK(n == size);
    long v = 1000L * t + i + r, sum = 0;
    CHECK_RC(MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, d));
    CHECK(sum == (long)n * (1000L * t + i) + (long)n * (n - 1) / 2);
    int out[3] = {t, i, r}, in[3] = {-1, -1, -1};
    CHECK_RC(MPI_Sendrecv(out, 3, MPI_INT, (r + 1) % n, 0, in, 3, MPI_INT, (r + n - 1) % n, 0, d, MPI_STATUS_IGNORE));
    CHECK(in[0] == t && in[1] == i && in[2] == (r + n - 1) % n);
}

static void *creator(void *arg)
{
    int t = (int)(intptr_t)arg;
    MPI_Comm p = parent[t], kept[NITER];
    MPI_Group g;
    int nkept = 0;
    CHECK_RC(MPI_Comm_group(p, &g));
    for (int i = 0; i < NITER; i++) {
        MPI_Comm d = MPI_COMM_NULL;
        if (i % 10 == 9 && size > 1) {
            /* rank 0 alone against the others, merged back. */
            MPI_Comm half, inter;
            int color = rank == 0 ? 0 : 1;
            CHECK_RC(MPI_Comm_split(p, color, rank, &half));
            CHECK_RC(MPI_Intercomm_create(half, 0, p, color == 0 ? 1 : 0, 7, &inter));
            int rs;
            CHECK_RC(MPI_Comm_remote_size(inter, &rs));
            CHECK(rs == (color == 0 ? size - 1 : 1));
            CHECK_RC(MPI_Intercomm_merge(inter, color, &d));
            CHECK_RC(MPI_Comm_free(&inter));
            CHECK_RC(MPI_Comm_free(&half));
        } else if (i % 4 == 1) {
            CHECK_RC(MPI_Comm_split(p, 0, -rank, &d));
        } else if (i % 4 == 2) {
            CHECK_RC(MPI_Comm_create(p, g, &d));
        } else if (i % 4 == 3) {
            CHECK_RC(MPI_Comm_create_group(p, g, 5, &d));
        } else {
            CHECK_RC(MPI_Comm_dup(p, &d));
        }
        CHECK(d != MPI_COMM_NULL);
        use(d, t, i);
        if (i % 8 == 0)
            kept[nkept++] = d;
        else
            CHECK_RC(MPI_Comm_free(&d));
    }
    /* The kept ones still work, beside everything made since. */
    for (int k = 0; k < nkept; k++) {
        use(kept[k], t, NITER + k);
        CHECK_RC(MPI_Comm_free(&kept[k]));
    }
    CHECK_RC(MPI_Group_free(&g));
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
    for (int t = 0; t < NT; t++)
        CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &parent[t]));
    pthread_t th[NT];
    for (int t = 0; t < NT; t++)
        CHECK(pthread_create(&th[t], NULL, creator, (void *)(intptr_t)t) == 0);
    for (int t = 0; t < NT; t++)
        CHECK(pthread_join(th[t], NULL) == 0);
    for (int t = 0; t < NT; t++)
        CHECK_RC(MPI_Comm_free(&parent[t]));
    CHECK_RC(MPI_Finalize());
    printf("commthreads ok %d/%d\n", rank, size);
    return 0;
}
