/* rmafault.c: a lost peer on the RMA fast path. Every rank loops on an
 * operation plus MPI_Win_flush in a lock_all epoch, with MPI_ERRORS_RETURN;
 * rank 0 targets rank 1, the victim, and rank 2 targets rank 0 (it does
 * not target the victim). After a while the victim kills (SIGKILL) or
 * stops (SIGSTOP) itself. Each survivor must get an error, which it
 * prints as "rmafault: rank R lost after S s: MESSAGE", and exits 2.
 * Arguments: kill|stop, put|get|acc|fop, and "ignterm" to ignore SIGTERM
 * (a launcher's end of the job then does not end the survivors). */
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "check.h"

int main(int argc, char **argv)
{
    CHECK(argc >= 3);
    int stop = strcmp(argv[1], "stop") == 0;
    const char *op = argv[2];
    if (argc > 3 && strcmp(argv[3], "ignterm") == 0)
        signal(SIGTERM, SIG_IGN);
    int rank, size;
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size >= 3);
    int64_t *base;
    MPI_Win win;
    CHECK_RC(MPI_Win_allocate(64, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    CHECK_RC(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Win_lock_all(0, win));
    int target = rank == 0 ? 1 : 0;
    int64_t one = 1, got = 0;
    struct timespec t0 = {0, 0}, t1;
    for (long i = 0;; i++) {
        if (rank == 1 && i == 20000) {
            printf("rmafault: victim %s\n", stop ? "stops" : "dies");
            fflush(stdout);
            raise(stop ? SIGSTOP : SIGKILL);
        }
        if (i == 20000)
            clock_gettime(CLOCK_MONOTONIC, &t0);
        int rc;
        if (strcmp(op, "put") == 0)
            rc = MPI_Put(&one, 1, MPI_INT64_T, target, 0, 1, MPI_INT64_T, win);
        else if (strcmp(op, "get") == 0)
            rc = MPI_Get(&got, 1, MPI_INT64_T, target, 0, 1, MPI_INT64_T, win);
        else if (strcmp(op, "acc") == 0)
            rc = MPI_Accumulate(&one, 1, MPI_INT64_T, target, 1, 1, MPI_INT64_T, MPI_SUM, win);
        else
            rc = MPI_Fetch_and_op(&one, &got, MPI_INT64_T, target, 2, MPI_SUM, win);
        if (rc == MPI_SUCCESS)
            rc = MPI_Win_flush(target, win);
        if (rc != MPI_SUCCESS) {
            char msg[MPI_MAX_ERROR_STRING];
            int len = 0, cls = 0;
            MPI_Error_string(rc, msg, &len);
            MPI_Error_class(rc, &cls);
            clock_gettime(CLOCK_MONOTONIC, &t1);
            double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
            printf("rmafault: rank %d lost after %.2f s (class %d): %s\n", rank, t0.tv_sec ? s : -1.0, cls, msg);
            fflush(stdout);
            _exit(2);
        }
    }
}
