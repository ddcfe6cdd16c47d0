/* dynfin.c: how a connection to another job ends (MPI-4.1 11.10.4).
 *  1. MPI_Comm_disconnect closes what the connection opened: once the
 *     spawned children's intercommunicator is disconnected and the
 *     communicators made from it are freed, the parent's count of open
 *     sockets comes back to what it was after its first spawn, while
 *     the children live on (until the parents say they have counted).
 *  2. A lost job ends a wildcard receive: over the intercommunicator to
 *     children that kill themselves, MPI_Recv and MPI_Irecv from
 *     MPI_ANY_SOURCE end with MPI_ERR_PROC_ABORTED (MPIX_ERR_PROC_FAILED
 *     under GSHMEM_MPI_FT=ulfm) instead of waiting, and so do MPI_Probe
 *     and a receive from a rank of the lost job.
 *  3. MPI_Finalize is collective over connected processes: children left
 *     connected sleep, then create a file just before their
 *     MPI_Finalize; the parents' MPI_Finalize returns after it exists.
 * The parents' job takes any size; argv[1] is a scratch directory. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <mpi-ext.h>
#include "check.h"

#define LOST(cls) ((cls) == MPI_ERR_PROC_ABORTED || (cls) == MPIX_ERR_PROC_FAILED)

static int sockets(void)
{
    DIR *d = opendir("/proc/self/fd");
    CHECK(d != NULL);
    int n = 0;
    struct dirent *e;
    char path[300], target[128];
    while ((e = readdir(d)) != NULL) {
        snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
        ssize_t k = readlink(path, target, sizeof target - 1);
        if (k > 0) {
            target[k] = 0;
            if (strncmp(target, "socket:", 7) == 0)
                n++;
        }
    }
    closedir(d);
    return n;
}

static void pause_ms(int ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static int child(const char *mode, const char *dir, const char *round)
{
    MPI_Comm parent;
    int rank;
    CHECK_RC(MPI_Comm_get_parent(&parent));
    CHECK(parent != MPI_COMM_NULL);
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    if (strcmp(mode, "talk") == 0) {
        int v = rank + 1;
        CHECK_RC(MPI_Send(&v, 1, MPI_INT, 0, 1, parent));
        MPI_Comm all;
        CHECK_RC(MPI_Intercomm_merge(parent, 1, &all));
        CHECK_RC(MPI_Barrier(all));
        CHECK_RC(MPI_Comm_free(&all));
        CHECK_RC(MPI_Comm_disconnect(&parent));
        /* Stay alive (so that only the disconnect can close the links)
         * until the parents have counted their sockets. */
        char path[4096];
        snprintf(path, sizeof path, "%s/counted.%s", dir, round);
        for (int i = 0; i < 1000 && access(path, F_OK) != 0; i++)
            pause_ms(10);
    } else if (strcmp(mode, "die") == 0) {
        CHECK_RC(MPI_Barrier(parent));
        int go; /* once every parent is past the barrier */
        CHECK_RC(MPI_Recv(&go, 1, MPI_INT, 0, 9, parent, MPI_STATUS_IGNORE));
        raise(SIGKILL);
    } else { /* late: stays connected */
        pause_ms(300);
        char path[4096];
        snprintf(path, sizeof path, "%s/late.%d", dir, rank);
        int fd = open(path, O_CREAT | O_WRONLY, 0644);
        CHECK(fd >= 0);
        close(fd);
    }
    CHECK_RC(MPI_Finalize());
    return 0;
}

int main(int argc, char **argv)
{
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK(argc >= 2);
    if (argc > 2)
        return child(argv[2], argv[1], argc > 3 ? argv[3] : "");
    int rank, size;
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));

    /* 1: the links go with the last communicator over them. The first
     * spawn opens what stays (the listener); the second must add
     * nothing that outlives its disconnect. */
    MPI_Comm kids;
    int base = -1;
    for (int round = 0; round < 2; round++) {
        char *talk[] = {argv[1], "talk", round ? "1" : "0", NULL};
        CHECK_RC(MPI_Comm_spawn(argv[0], talk, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &kids, MPI_ERRCODES_IGNORE));
        if (rank == 0) {
            for (int i = 0; i < 2; i++) {
                int v;
                CHECK_RC(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 1, kids, MPI_STATUS_IGNORE));
            }
        }
        MPI_Comm all;
        CHECK_RC(MPI_Intercomm_merge(kids, 0, &all));
        CHECK(sockets() >= 2); /* a link to each child */
        CHECK_RC(MPI_Barrier(all));
        CHECK_RC(MPI_Comm_free(&all));
        CHECK_RC(MPI_Comm_disconnect(&kids));
        /* After the first round, once its children are gone, the count
         * settles at what stays (the listener); after the second, whose
         * children live on, the disconnect alone must bring it back. */
        int n = sockets();
        if (round == 1) {
            for (int i = 0; i < 500 && n > base; i++) {
                pause_ms(10);
                n = sockets();
            }
            if (n > base)
                fprintf(stderr, "rank %d: %d sockets after the second disconnect, %d before its spawn\n", rank, n, base);
            CHECK(n <= base);
        }
        CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 0) {
            char path[4096];
            snprintf(path, sizeof path, "%s/counted.%d", argv[1], round);
            int fd = open(path, O_CREAT | O_WRONLY, 0644);
            CHECK(fd >= 0);
            close(fd);
        }
        if (round == 0) {
            for (int same = 0, i = 0; same < 10 && i < 200; i++) {
                pause_ms(50);
                int m = sockets();
                same = m == n ? same + 1 : 0;
                n = m;
            }
            base = n;
            if (getenv("DYNFIN_DEBUG"))
                fprintf(stderr, "rank %d: %d sockets after the first round\n", rank, n);
        }
    }

    /* 2: a wildcard receive from a job that is lost ends with an error. */
    char *die[] = {argv[1], "die", NULL};
    CHECK_RC(MPI_Comm_spawn(argv[0], die, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &kids, MPI_ERRCODES_IGNORE));
    CHECK_RC(MPI_Comm_set_errhandler(kids, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Barrier(kids));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        for (int i = 0; i < 2; i++)
            CHECK_RC(MPI_Send(&i, 1, MPI_INT, i, 9, kids));
    int v, cls = -1;
    MPI_Status st;
    MPI_Error_class(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 2, kids, &st), &cls);
    CHECK(LOST(cls));
    MPI_Request r;
    int rc = MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 3, kids, &r);
    if (rc == MPI_SUCCESS)
        rc = MPI_Wait(&r, &st);
    MPI_Error_class(rc, &cls);
    CHECK(LOST(cls));
    MPI_Error_class(MPI_Probe(MPI_ANY_SOURCE, 5, kids, &st), &cls);
    CHECK(LOST(cls));
    MPI_Error_class(MPI_Recv(&v, 1, MPI_INT, 1, 4, kids, &st), &cls);
    CHECK(LOST(cls));
    CHECK_RC(MPI_Comm_free(&kids));

    /* 3: children left connected: the parents' MPI_Finalize waits for
     * theirs. */
    char *late[] = {argv[1], "late", NULL};
    CHECK_RC(MPI_Comm_spawn(argv[0], late, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &kids, MPI_ERRCODES_IGNORE));
    CHECK_RC(MPI_Finalize());
    for (int i = 0; i < 2; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/late.%d", argv[1], i);
        if (access(path, F_OK) != 0) {
            fprintf(stderr, "rank %d: MPI_Finalize returned before child %d's began\n", rank, i);
            return 3;
        }
    }
    printf("dynfin ok %d\n", rank);
    return 0;
}
