/* join.c: MPI_Comm_join over a socketpair across two processes. Run
 * alone (an MPI singleton): it makes a socketpair, starts itself again
 * with the other end (fork, then exec, before MPI_Init), and both join
 * over it: a message each way over the intercommunicator, a merge, then
 * disconnect; the socket is quiescent afterwards (a byte each way still
 * passes, untouched by MPI). The error path: MPI_Comm_join on an fd that
 * is no socket (a pipe) fails and leaves the pipe working. */
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

int main(int argc, char **argv)
{
    int fd, side;
    pid_t pid = 0;
    if (argc == 3 && strcmp(argv[1], "other") == 0) {
        fd = atoi(argv[2]);
        side = 1;
    } else {
        int sv[2];
        CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
        pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
            char num[16];
            close(sv[0]);
            snprintf(num, sizeof num, "%d", sv[1]);
            execl(argv[0], argv[0], "other", num, (char *)NULL);
            _exit(127);
        }
        close(sv[1]);
        fd = sv[0];
        side = 0;
    }
    CHECK_RC(MPI_Init(&argc, &argv));
    MPI_Comm ic;
    CHECK_RC(MPI_Comm_join(fd, &ic));
    int inter, rsize, size;
    CHECK_RC(MPI_Comm_test_inter(ic, &inter));
    CHECK_RC(MPI_Comm_remote_size(ic, &rsize));
    CHECK_RC(MPI_Comm_size(ic, &size));
    CHECK(inter && rsize == 1 && size == 1);
    int mine = 40 + side, got = -1;
    CHECK_RC(MPI_Sendrecv(&mine, 1, MPI_INT, 0, 1, &got, 1, MPI_INT, 0, 1, ic, MPI_STATUS_IGNORE));
    CHECK(got == 41 - side);
    MPI_Comm m;
    CHECK_RC(MPI_Intercomm_merge(ic, side, &m));
    int mrank, msize;
    CHECK_RC(MPI_Comm_rank(m, &mrank));
    CHECK_RC(MPI_Comm_size(m, &msize));
    CHECK(msize == 2 && mrank == side);
    int sum = 0;
    CHECK_RC(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, m));
    CHECK(sum == 81);
    CHECK_RC(MPI_Comm_free(&m));
    CHECK_RC(MPI_Comm_disconnect(&ic));

    /* The socket is the program's again. */
    char b = 'a' + side, r = 0;
    CHECK(write(fd, &b, 1) == 1);
    CHECK(read(fd, &r, 1) == 1);
    CHECK(r == 'b' - side);

    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int p[2];
    CHECK(pipe(p) == 0);
    int cls;
    MPI_Error_class(MPI_Comm_join(p[0], &ic), &cls);
    CHECK(cls != MPI_SUCCESS);
    CHECK(write(p[1], "x", 1) == 1);
    CHECK(read(p[0], &r, 1) == 1 && r == 'x');
    MPI_Error_class(MPI_Comm_join(fd, NULL), &cls);
    CHECK(cls == MPI_ERR_ARG);

    CHECK_RC(MPI_Finalize());
    if (pid > 0) {
        int st;
        CHECK(waitpid(pid, &st, 0) == pid);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    printf("join ok %d\n", side);
    return 0;
}
