/* port.c: two jobs launched separately meet through a port.
 *   port server FILE SERVICE   opens a port, writes its name to FILE and
 *                              publishes it as SERVICE, accepts twice
 *   port client FILE SERVICE   connects to the name read from FILE, then
 *                              to the one MPI_Lookup_name gives
 * Over each intercommunicator: a message each way between the roots,
 * an Allreduce (each side gets the other's sum), a merge (server first)
 * with an Allreduce over it, then disconnect. The error paths: a
 * malformed name and a closed port (MPI_ERR_PORT), MPI_Close_port twice
 * (MPI_ERR_PORT), an accept nobody connects to (a bounded wait: its info's
 * gshmem_timeout), a bad root (MPI_ERR_ROOT). */
#include <string.h>
#include <unistd.h>
#include "check.h"

static int rank, size;

static void exercise(MPI_Comm ic, int server)
{
    int inter, rsize;
    CHECK_RC(MPI_Comm_test_inter(ic, &inter));
    CHECK_RC(MPI_Comm_remote_size(ic, &rsize));
    CHECK(inter);
    if (rank == 0) {
        int mine = server ? 1000 + size : 2000 + size, got = 0;
        CHECK_RC(MPI_Sendrecv(&mine, 1, MPI_INT, 0, 3, &got, 1, MPI_INT, 0, 3, ic, MPI_STATUS_IGNORE));
        CHECK(got == (server ? 2000 : 1000) + rsize);
    }
    int sum = 0, v = rank + 1;
    CHECK_RC(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, ic));
    CHECK(sum == rsize * (rsize + 1) / 2);
    MPI_Comm m;
    CHECK_RC(MPI_Intercomm_merge(ic, !server, &m));
    int mrank, msize, tot = 0;
    CHECK_RC(MPI_Comm_rank(m, &mrank));
    CHECK_RC(MPI_Comm_size(m, &msize));
    CHECK(msize == size + rsize && mrank == (server ? rank : rsize + rank));
    CHECK_RC(MPI_Allreduce(&mrank, &tot, 1, MPI_INT, MPI_SUM, m));
    CHECK(tot == msize * (msize - 1) / 2);
    CHECK_RC(MPI_Comm_free(&m));
    CHECK_RC(MPI_Comm_disconnect(&ic));
    CHECK(ic == MPI_COMM_NULL);
}

int main(int argc, char **argv)
{
    CHECK(argc == 4);
    int server = strcmp(argv[1], "server") == 0;
    const char *file = argv[2], *service = argv[3];
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    char port[MPI_MAX_PORT_NAME] = "";
    MPI_Comm ic;
    int cls;
    if (server) {
        if (rank == 0) {
            CHECK_RC(MPI_Open_port(MPI_INFO_NULL, port));
            CHECK(strlen(port) > 0 && strlen(port) < MPI_MAX_PORT_NAME);
            char tmp[4096];
            snprintf(tmp, sizeof tmp, "%s.tmp", file);
            FILE *f = fopen(tmp, "w");
            CHECK(f != NULL);
            fputs(port, f);
            CHECK(fclose(f) == 0);
            CHECK(rename(tmp, file) == 0); /* the client sees all of it or nothing */
            CHECK_RC(MPI_Publish_name(service, MPI_INFO_NULL, port));
        }
        CHECK_RC(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic));
        exercise(ic, 1);
        CHECK_RC(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic));
        exercise(ic, 1);
        CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        /* Nobody connects again: the wait ends with an error. */
        MPI_Info quick;
        CHECK_RC(MPI_Info_create(&quick));
        CHECK_RC(MPI_Info_set(quick, "gshmem_timeout", "0.5"));
        MPI_Error_class(MPI_Comm_accept(port, quick, 0, MPI_COMM_WORLD, &ic), &cls);
        CHECK(cls != MPI_SUCCESS);
        CHECK_RC(MPI_Info_free(&quick));
        if (rank == 0) {
            CHECK_RC(MPI_Unpublish_name(service, MPI_INFO_NULL, port));
            CHECK_RC(MPI_Close_port(port));
            CHECK(unlink(file) == 0); /* tells the client the port is closed */
            MPI_Error_class(MPI_Close_port(port), &cls);
            CHECK(cls == MPI_ERR_PORT);
        }
        /* Accepting on a port this process did not open. */
        MPI_Error_class(MPI_Comm_accept("gshmem-port:127.0.0.1:1:00", MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic), &cls);
        CHECK(cls == MPI_ERR_PORT);
    } else {
        if (rank == 0) {
            for (int i = 0; i < 6000 && access(file, R_OK) != 0; i++)
                usleep(10000);
            FILE *f = fopen(file, "r");
            CHECK(f != NULL);
            CHECK(fgets(port, sizeof port, f) != NULL);
            fclose(f);
        }
        CHECK_RC(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic));
        exercise(ic, 0);
        char found[MPI_MAX_PORT_NAME] = "";
        if (rank == size - 1)
            CHECK_RC(MPI_Lookup_name(service, MPI_INFO_NULL, found));
        CHECK_RC(MPI_Comm_connect(found, MPI_INFO_NULL, size - 1, MPI_COMM_WORLD, &ic));
        exercise(ic, 0);
        CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        MPI_Error_class(MPI_Comm_connect("no port", MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic), &cls);
        CHECK(cls == MPI_ERR_PORT);
        MPI_Error_class(MPI_Comm_connect(port, MPI_INFO_NULL, size, MPI_COMM_WORLD, &ic), &cls);
        CHECK(cls == MPI_ERR_ROOT);
        /* Once the server closed its port (and removed FILE), the name is
         * refused. */
        if (rank == 0)
            for (int i = 0; i < 6000 && access(file, F_OK) == 0; i++)
                usleep(10000);
        CHECK_RC(MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD));
        MPI_Error_class(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic), &cls);
        CHECK(cls == MPI_ERR_PORT);
    }
    CHECK_RC(MPI_Finalize());
    printf("port ok %s %d\n", argv[1], rank);
    return 0;
}
