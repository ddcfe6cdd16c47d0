/* spawnfail.c: a process started alone (an MPI singleton, no gshmem run)
 * cannot spawn: MPI_Comm_spawn and MPI_Comm_spawn_multiple fail with
 * MPI_ERR_SPAWN (the error handler's message says that spawning needs
 * gshmem run), the errcodes
 * carry the class, and no intercommunicator is made. */
#include <string.h>
#include "check.h"

int main(int argc, char **argv)
{
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Comm kids = MPI_COMM_SELF;
    int codes[2] = {0, 0}, cls;
    int rc = MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &kids, codes);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_SPAWN && kids == MPI_COMM_SELF);
    MPI_Error_class(codes[0], &cls);
    CHECK(cls == MPI_ERR_SPAWN);
    MPI_Error_class(codes[1], &cls);
    CHECK(cls == MPI_ERR_SPAWN);
    char *cmds[1] = {argv[0]};
    int maxprocs[1] = {1};
    MPI_Info infos[1] = {MPI_INFO_NULL};
    MPI_Error_class(MPI_Comm_spawn_multiple(1, cmds, MPI_ARGVS_NULL, maxprocs, infos, 0, MPI_COMM_WORLD, &kids,
                                            MPI_ERRCODES_IGNORE), &cls);
    CHECK(cls == MPI_ERR_SPAWN);
    MPI_Comm parent;
    CHECK_RC(MPI_Comm_get_parent(&parent));
    CHECK(parent == MPI_COMM_NULL);
    CHECK_RC(MPI_Finalize());
    printf("spawnfail ok\n");
    return 0;
}
