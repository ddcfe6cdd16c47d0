/* MPI_Wtime against CLOCK_MONOTONIC: the counter-based clock (wtime.c)
 * must read CLOCK_MONOTONIC's time, never go back within a thread, and
 * stay so across its calibration and its drift checks, from several
 * threads at once. Prints the clock it ended on. */
#include <pthread.h>
#include <string.h>
#include <time.h>
#include "check.h"

const char *abic_wtime_source(void); /* the library's own, for this test */

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* tol: how far MPI_Wtime may stray from the clock_gettime reads around
 * it; the drift checks keep it well inside. */
static const double tol = 20e-6;

/* watch reads MPI_Wtime for span seconds, bracketed by CLOCK_MONOTONIC. */
static void *watch(void *arg)
{
    double span = *(double *)arg, end = mono() + span, last = 0;
    long n = 0;
    while (mono() < end) {
        double a = mono(), w = MPI_Wtime(), b = mono();
        CHECK(w >= last);
        CHECK(w >= a - tol && w <= b + tol);
        last = w;
        n++;
    }
    CHECK(n > 100);
    return NULL;
}

static void threads(double span)
{
    pthread_t th[3];
    for (int i = 0; i < 3; i++)
        CHECK(pthread_create(&th[i], NULL, watch, &span) == 0);
    watch(&span);
    for (int i = 0; i < 3; i++)
        CHECK(pthread_join(th[i], NULL) == 0);
}

int main(int argc, char **argv)
{
    int provided, rank;
    double before = MPI_Wtime(); /* callable before MPI_Init */
    CHECK(before > 0);
    CHECK_RC(MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK(MPI_Wtime() >= before);

    threads(0.05); /* across the calibration (20 ms after the library loaded) */
    const char *src = abic_wtime_source();
    const char *want = getenv("GSHMEM_MPI_WTIME");
    if (want && strcmp(want, "clock") == 0)
        CHECK(strcmp(src, "clock") == 0);
    CHECK(MPI_Wtick() > 0 && MPI_Wtick() <= 1e-6);

    struct timespec nap = {1, 100000000}; /* past the first drift check */
    nanosleep(&nap, NULL);
    threads(0.05);
    CHECK(strcmp(abic_wtime_source(), src) == 0);

    CHECK_RC(MPI_Finalize());
    printf("wtime ok %d %s\n", rank, src);
    return 0;
}
