/* spawn.c: MPI_Comm_spawn and MPI_Comm_spawn_multiple under gshmem run.
 * The parents (any number) spawn 3 children of this program, which find
 * their parents through MPI_Comm_get_parent, compute a value each and
 * send it to parent rank 0; both groups Allreduce over the
 * intercommunicator (each side gets the other's sum), merge it (parents
 * first) and Allreduce over the merged one, then disconnect. Then
 * MPI_Comm_spawn_multiple starts 1 + 2 children of two commands (this
 * program with other arguments), which check their MPI_APPNUM and
 * their world. The error paths: a command that does not exist (every
 * parent gets MPI_ERR_SPAWN, the root its errcodes), maxprocs 0, a bad
 * root; MPI_COMM_NULL from MPI_Comm_get_parent in the parents, and once
 * the children disconnected it, in the children. */
#include <string.h>
#include "check.h"

static void child(const char *mode)
{
    MPI_Comm parent;
    int rank, size, flag, *appnum;
    CHECK_RC(MPI_Comm_get_parent(&parent));
    CHECK(parent != MPI_COMM_NULL);
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    int inter, nparents;
    CHECK_RC(MPI_Comm_test_inter(parent, &inter));
    CHECK(inter);
    CHECK_RC(MPI_Comm_remote_size(parent, &nparents));
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag));
    CHECK(flag);
    if (strcmp(mode, "child") == 0) {
        CHECK(size == 3 && *appnum == 0);
        /* compute and send back */
        int v = (rank + 1) * (rank + 1);
        CHECK_RC(MPI_Send(&v, 1, MPI_INT, 0, 7, parent));
        int sum = 0, mine = 10 * (rank + 1);
        CHECK_RC(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, parent));
        CHECK(sum == nparents * (nparents + 1) / 2); /* parents give rank+1 */
        MPI_Comm all;
        CHECK_RC(MPI_Intercomm_merge(parent, 1, &all));
        int arank, asize;
        CHECK_RC(MPI_Comm_rank(all, &arank));
        CHECK_RC(MPI_Comm_size(all, &asize));
        CHECK(asize == nparents + 3 && arank == nparents + rank);
        int total = 0;
        CHECK_RC(MPI_Allreduce(&arank, &total, 1, MPI_INT, MPI_SUM, all));
        CHECK(total == asize * (asize - 1) / 2);
        CHECK_RC(MPI_Comm_free(&all));
    } else {
        /* spawn_multiple: "first" has 1 process, "second" 2 */
        int want = strcmp(mode, "first") == 0 ? 0 : 1;
        CHECK(size == 3 && *appnum == want);
        CHECK((want == 0) == (rank == 0));
        int v = 100 * want + rank;
        CHECK_RC(MPI_Send(&v, 1, MPI_INT, 0, 8, parent));
    }
    CHECK_RC(MPI_Comm_disconnect(&parent));
    CHECK(parent == MPI_COMM_NULL);
    CHECK_RC(MPI_Comm_get_parent(&parent));
    CHECK(parent == MPI_COMM_NULL);
    CHECK_RC(MPI_Finalize());
    printf("spawn child ok %s %d\n", mode, rank);
}

int main(int argc, char **argv)
{
    CHECK_RC(MPI_Init(&argc, &argv));
    if (argc > 1) {
        child(argv[1]);
        return 0;
    }
    int rank, size, flag, *usize, *appnum;
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MPI_Comm parent;
    CHECK_RC(MPI_Comm_get_parent(&parent));
    CHECK(parent == MPI_COMM_NULL);
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &usize, &flag));
    CHECK(flag && *usize >= size);
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag));
    CHECK(!flag);

    /* MPI_Comm_spawn of 3 children of this program. */
    char *args[] = {"child", NULL};
    int errcodes[3] = {-1, -1, -1};
    MPI_Comm kids;
    CHECK_RC(MPI_Comm_spawn(argv[0], args, 3, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &kids, errcodes));
    CHECK(errcodes[0] == MPI_SUCCESS && errcodes[1] == MPI_SUCCESS && errcodes[2] == MPI_SUCCESS);
    int inter, rsize;
    CHECK_RC(MPI_Comm_test_inter(kids, &inter));
    CHECK_RC(MPI_Comm_remote_size(kids, &rsize));
    CHECK(inter && rsize == 3);
    if (rank == 0) {
        int got = 0;
        for (int i = 0; i < 3; i++) {
            int v;
            MPI_Status st;
            CHECK_RC(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 7, kids, &st));
            CHECK(v == (st.MPI_SOURCE + 1) * (st.MPI_SOURCE + 1));
            got += v;
        }
        CHECK(got == 1 + 4 + 9);
    }
    int sum = 0, mine = rank + 1;
    CHECK_RC(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, kids));
    CHECK(sum == 10 + 20 + 30);
    MPI_Comm all;
    CHECK_RC(MPI_Intercomm_merge(kids, 0, &all));
    int arank, asize, total = 0;
    CHECK_RC(MPI_Comm_rank(all, &arank));
    CHECK_RC(MPI_Comm_size(all, &asize));
    CHECK(asize == size + 3 && arank == rank);
    CHECK_RC(MPI_Allreduce(&arank, &total, 1, MPI_INT, MPI_SUM, all));
    CHECK(total == asize * (asize - 1) / 2);
    CHECK_RC(MPI_Comm_free(&all));
    CHECK_RC(MPI_Comm_disconnect(&kids));
    CHECK(kids == MPI_COMM_NULL);

    /* MPI_Comm_spawn_multiple: two commands, the first with a wdir, the
     * second by its name alone, found in the info key path. */
    char dir[4096], *slash;
    snprintf(dir, sizeof dir, "%s", argv[0]);
    slash = strrchr(dir, '/');
    CHECK(slash != NULL);
    *slash = 0;
    char *cmds[2] = {argv[0], slash + 1};
    char *a1[] = {"first", NULL}, *a2[] = {"second", NULL};
    char **argvs[2] = {a1, a2};
    int maxprocs[2] = {1, 2};
    MPI_Info infos[2];
    CHECK_RC(MPI_Info_create(&infos[0]));
    CHECK_RC(MPI_Info_set(infos[0], "wdir", "/"));
    CHECK_RC(MPI_Info_create(&infos[1]));
    CHECK_RC(MPI_Info_set(infos[1], "path", dir));
    int codes[3] = {-1, -1, -1};
    CHECK_RC(MPI_Comm_spawn_multiple(2, cmds, argvs, maxprocs, infos, size - 1, MPI_COMM_WORLD, &kids, codes));
    CHECK(codes[0] == 0 && codes[1] == 0 && codes[2] == 0);
    CHECK_RC(MPI_Info_free(&infos[0]));
    CHECK_RC(MPI_Info_free(&infos[1]));
    if (rank == 0) {
        int seen = 0;
        for (int i = 0; i < 3; i++) {
            int v;
            MPI_Status st;
            CHECK_RC(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 8, kids, &st));
            CHECK(v == (st.MPI_SOURCE == 0 ? 0 : 100 + st.MPI_SOURCE));
            seen |= 1 << st.MPI_SOURCE;
        }
        CHECK(seen == 7);
    }
    CHECK_RC(MPI_Comm_disconnect(&kids));

    /* The error paths. */
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int cls;
    int bad[2] = {-1, -1};
    MPI_Comm none = MPI_COMM_WORLD;
    MPI_Error_class(MPI_Comm_spawn("/nonexistent/gshmem-no-such-program", MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0,
                                   MPI_COMM_WORLD, &none, bad), &cls);
    CHECK(cls == MPI_ERR_SPAWN);
    if (rank == 0) {
        MPI_Error_class(bad[0], &cls);
        CHECK(cls == MPI_ERR_SPAWN);
        MPI_Error_class(bad[1], &cls);
        CHECK(cls == MPI_ERR_SPAWN);
    }
    MPI_Error_class(MPI_Comm_spawn(argv[0], args, 0, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &none, MPI_ERRCODES_IGNORE), &cls);
    CHECK(cls == MPI_ERR_SPAWN);
    MPI_Error_class(MPI_Comm_spawn(argv[0], args, 1, MPI_INFO_NULL, size, MPI_COMM_WORLD, &none, MPI_ERRCODES_IGNORE), &cls);
    CHECK(cls == MPI_ERR_ROOT);
    MPI_Info far;
    CHECK_RC(MPI_Info_create(&far));
    CHECK_RC(MPI_Info_set(far, "host", "gshmem-no-such-host.invalid"));
    MPI_Error_class(MPI_Comm_spawn(argv[0], args, 1, far, 0, MPI_COMM_WORLD, &none, MPI_ERRCODES_IGNORE), &cls);
    CHECK(cls == MPI_ERR_SPAWN);
    CHECK_RC(MPI_Info_free(&far));

    CHECK_RC(MPI_Finalize());
    printf("spawn ok %d\n", rank);
    return 0;
}
