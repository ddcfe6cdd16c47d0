/* faultyc: the C ABI's program of the fault-injection tests
 * (test/faults_abi_test.go), faulty's counterpart through libmpi_abi.so.1.
 * Every rank sets up a window; rank -victim (1) then kills (SIGKILL) or
 * stops (SIGSTOP) itself while the others are in the operation -at names,
 * each survivor repeating it until it fails, and reporting as faulty does:
 *
 *   faulty: fault pe N how UNIXNANO         the victim, just before the signal
 *   faulty: lost pe N at UNIXNANO: ERROR    a survivor whose operation failed with the lost class
 *   faulty: error pe N: ERROR               any other error (exit status 1)
 *
 * Operations (every survivor targets the victim unless -live says so):
 * put (MPI_Put + MPI_Win_flush), get, acc (MPI_Accumulate), fop
 * (MPI_Fetch_and_op), fop-live (MPI_Fetch_and_op to the other survivor
 * only), lock (MPI_Win_lock of the victim's window, which the victim holds
 * exclusively), recv (MPI_Recv from the victim), allreduce, barrier, and
 * shmem-barrier (shmem_barrier_all: shmem calls return nothing, so the
 * library reports the loss itself and exits with status 1). A survivor
 * then calls MPI_Finalize, which must return, and exits with status 3. It
 * is run under gshmem run --disable-auto-cleanup, so that every survivor
 * has to find the loss itself. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <mpi.h>
#include <shmem.h>

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int rank, victim = 1;
static const char *at = "barrier", *how = "kill";

static void strike(void)
{
    printf("faulty: fault pe %d %s %lld\n", rank, how, now_ns());
    fflush(stdout);
    raise(strcmp(how, "stop") == 0 ? SIGSTOP : SIGKILL);
    for (;;)
        pause(); /* continued: wait for the test's SIGKILL */
}

/* settle lets the survivors get into their operation first. */
static void settle(void)
{
    struct timespec ts = {0, 300 * 1000 * 1000};
    nanosleep(&ts, NULL);
}

static int lost_class(int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls == MPI_ERR_PROC_ABORTED || cls == 101 /* MPIX_ERR_PROC_FAILED */;
}

/* report ends a survivor whose operation returned rc. */
static int report(int rc)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    if (!lost_class(rc)) {
        printf("faulty: error pe %d: %s\n", rank, msg);
        fflush(stdout);
        return 1;
    }
    printf("faulty: lost pe %d at %lld: %s\n", rank, now_ns(), msg);
    fflush(stdout);
    int frc = MPI_Finalize(); /* must return after the loss */
    printf("faulty: finalized pe %d rc %d\n", rank, frc);
    fflush(stdout);
    return 3;
}

int main(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "-at") == 0)
            at = argv[i + 1];
        else if (strcmp(argv[i], "-how") == 0)
            how = argv[i + 1];
        else if (strcmp(argv[i], "-victim") == 0)
            victim = atoi(argv[i + 1]);
    }
    if (strcmp(at, "shmem-barrier") == 0) {
        shmem_init();
        rank = shmem_my_pe();
        shmem_barrier_all();
        if (rank == victim) {
            settle();
            strike();
        }
        for (long long t0 = now_ns(); now_ns() - t0 < 60000000000LL;)
            shmem_barrier_all(); /* the library exits with status 1 on the loss */
        printf("faulty: error pe %d: no loss seen\n", rank);
        return 1;
    }
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    long *base;
    MPI_Win win;
    MPI_Win_allocate(8 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    memset(base, 0, 8 * sizeof(long));
    if (rank == victim && strcmp(at, "lock") == 0)
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, victim, 0, win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == victim) {
        if (strcmp(at, "lock") == 0)
            MPI_Put(&rank, 1, MPI_LONG, victim, 0, 1, MPI_LONG, win), MPI_Win_flush(victim, win);
        settle();
        strike();
    }
    int other = 0; /* the survivor that is not this one: ranks 0 and 2 of 3 */
    for (int r = 0; r < size; r++)
        if (r != rank && r != victim)
            other = r;
    int target = strcmp(at, "fop-live") == 0 ? other : victim;
    int epoch = strcmp(at, "put") == 0 || strcmp(at, "get") == 0 || strcmp(at, "acc") == 0 || strncmp(at, "fop", 3) == 0;
    if (epoch)
        MPI_Win_lock_all(0, win);
    long one = 1, got = 0, buf = 0;
    int rc = MPI_SUCCESS;
    for (long long t0 = now_ns(); rc == MPI_SUCCESS && now_ns() - t0 < 60000000000LL;) {
        if (strcmp(at, "put") == 0) {
            rc = MPI_Put(&one, 1, MPI_LONG, target, 0, 1, MPI_LONG, win);
            if (rc == MPI_SUCCESS)
                rc = MPI_Win_flush(target, win);
        } else if (strcmp(at, "get") == 0) {
            rc = MPI_Get(&got, 1, MPI_LONG, target, 0, 1, MPI_LONG, win);
            if (rc == MPI_SUCCESS)
                rc = MPI_Win_flush(target, win);
        } else if (strcmp(at, "acc") == 0) {
            rc = MPI_Accumulate(&one, 1, MPI_LONG, target, 1, 1, MPI_LONG, MPI_SUM, win);
            if (rc == MPI_SUCCESS)
                rc = MPI_Win_flush(target, win);
        } else if (strncmp(at, "fop", 3) == 0) {
            rc = MPI_Fetch_and_op(&one, &got, MPI_LONG, target, 2, MPI_SUM, win);
            if (rc == MPI_SUCCESS)
                rc = MPI_Win_flush(target, win);
        } else if (strcmp(at, "lock") == 0) {
            rc = MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win);
            if (rc == MPI_SUCCESS)
                rc = MPI_Put(&one, 1, MPI_LONG, target, 3, 1, MPI_LONG, win);
            if (rc == MPI_SUCCESS)
                rc = MPI_Win_unlock(target, win);
        } else if (strcmp(at, "recv") == 0) {
            rc = MPI_Recv(&buf, 1, MPI_LONG, target, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS) {
                printf("faulty: error pe %d: received from the victim\n", rank);
                return 2;
            }
        } else if (strcmp(at, "allreduce") == 0) {
            rc = MPI_Allreduce(&one, &got, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        } else if (strcmp(at, "barrier") == 0) {
            rc = MPI_Barrier(MPI_COMM_WORLD);
        } else {
            printf("faulty: error pe %d: unknown -at %s\n", rank, at);
            return 1;
        }
    }
    if (rc == MPI_SUCCESS) {
        printf("faulty: error pe %d: no loss seen\n", rank);
        return 2;
    }
    return report(rc);
}
