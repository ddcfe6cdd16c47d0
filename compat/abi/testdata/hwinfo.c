/* hwinfo.c: MPI_Get_hw_resource_info gives a new info object (freed by
 * the caller) of hardware resource types, each "true" or "false":
 * hwloc://Machine and mpi_shared_memory are "true" for every process;
 * bound to one CPU, a process is restricted to one PU (and one core,
 * one package); bound to all of this machine's CPUs where it has more
 * than one, it is not restricted to one PU. */
#define _GNU_SOURCE
#include <sched.h>
#include <string.h>
#include <unistd.h>
#include "check.h"

static int value(MPI_Info info, const char *key, char *v)
{
    int len = 16, flag = 0;
    CHECK_RC(MPI_Info_get_string(info, key, &len, v, &flag));
    return flag;
}

int main(int argc, char **argv)
{
    CHECK_RC(MPI_Init(&argc, &argv));
    cpu_set_t all;
    CHECK(sched_getaffinity(0, sizeof all, &all) == 0);
    int ncpu = CPU_COUNT(&all), first = -1;
    for (int c = 0; c < CPU_SETSIZE && first < 0; c++)
        if (CPU_ISSET(c, &all))
            first = c;

    MPI_Info info;
    char v[16];
    CHECK_RC(MPI_Get_hw_resource_info(&info));
    CHECK(info != MPI_INFO_NULL);
    int n;
    CHECK_RC(MPI_Info_get_nkeys(info, &n));
    CHECK(n >= 3);
    for (int i = 0; i < n; i++) {
        char key[MPI_MAX_INFO_KEY];
        CHECK_RC(MPI_Info_get_nthkey(info, i, key));
        CHECK(value(info, key, v));
        CHECK(strcmp(v, "true") == 0 || strcmp(v, "false") == 0);
    }
    CHECK(value(info, "hwloc://Machine", v) && strcmp(v, "true") == 0);
    CHECK(value(info, "mpi_shared_memory", v) && strcmp(v, "true") == 0);
    CHECK(value(info, "hwloc://PU", v));
    CHECK(strcmp(v, ncpu == 1 ? "true" : "false") == 0);
    CHECK_RC(MPI_Info_free(&info));

    /* Bound to one CPU: one PU, one core, one package. */
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    CHECK(sched_setaffinity(0, sizeof one, &one) == 0);
    CHECK_RC(MPI_Get_hw_resource_info(&info));
    CHECK(value(info, "hwloc://PU", v) && strcmp(v, "true") == 0);
    if (value(info, "hwloc://Core", v))
        CHECK(strcmp(v, "true") == 0);
    if (value(info, "hwloc://Package", v))
        CHECK(strcmp(v, "true") == 0);
    CHECK_RC(MPI_Info_free(&info));
    CHECK(sched_setaffinity(0, sizeof all, &all) == 0);

    int cls;
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Error_class(MPI_Get_hw_resource_info(NULL), &cls);
    CHECK(cls == MPI_ERR_ARG);
    CHECK_RC(MPI_Finalize());
    printf("hwinfo ok\n");
    return 0;
}
