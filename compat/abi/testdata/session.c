/* session.c: the MPI-4 sessions model, alone (no argument: MPI_Init is
 * never called and MPI_Initialized stays false) or beside MPI_Init
 * (argument "init"); process sets, their groups and communicators made
 * from them, session error handlers, and MPI_Info_create_env. Runs on
 * 1 or more processes. */
#include <string.h>
#include "check.h"

static int called;

static void onError(MPI_Session *s, int *code, ...)
{
    (void)s;
    called = *code;
}

int main(int argc, char **argv)
{
    int withInit = argc > 1 && strcmp(argv[1], "init") == 0, flag = -1;
    if (withInit)
        CHECK_RC(MPI_Init(&argc, &argv));
    MPI_Initialized(&flag);
    CHECK(flag == withInit);

    MPI_Info hints, used;
    MPI_Session s;
    MPI_Info_create(&hints);
    MPI_Info_set(hints, "thread_level", "MPI_THREAD_FUNNELED");
    CHECK_RC(MPI_Session_init(hints, MPI_ERRORS_RETURN, &s));
    MPI_Info_free(&hints);
    MPI_Initialized(&flag);
    CHECK(flag == withInit);
    char v[MPI_MAX_INFO_VAL];
    int vl = MPI_MAX_INFO_VAL;
    CHECK_RC(MPI_Session_get_info(s, &used));
    CHECK_RC(MPI_Info_get_string(used, "thread_level", &vl, v, &flag));
    CHECK(flag && strcmp(v, "MPI_THREAD_FUNNELED") == 0);
    MPI_Info_free(&used);

    /* Process sets: mpi://WORLD and mpi://SELF, the lengths asked first. */
    int n = 0, world = 0, self = 0;
    CHECK_RC(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n));
    CHECK(n >= 2);
    for (int i = 0; i < n; i++) {
        char name[64];
        int len = 0;
        CHECK_RC(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL));
        CHECK(len > 1 && len <= (int)sizeof name);
        CHECK_RC(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name));
        CHECK((int)strlen(name) == len - 1);
        world |= strcmp(name, "mpi://WORLD") == 0;
        self |= strcmp(name, "mpi://SELF") == 0;
    }
    CHECK(world && self);
    CHECK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, n, &n, NULL) != MPI_SUCCESS);

    MPI_Group wg, sg;
    CHECK_RC(MPI_Group_from_session_pset(s, "mpi://WORLD", &wg));
    CHECK_RC(MPI_Group_from_session_pset(s, "mpi://SELF", &sg));
    int size, rank, ssize;
    MPI_Group_size(wg, &size);
    MPI_Group_rank(wg, &rank);
    MPI_Group_size(sg, &ssize);
    CHECK(ssize == 1);
    CHECK_RC(MPI_Session_get_pset_info(s, "mpi://WORLD", &used));
    vl = MPI_MAX_INFO_VAL;
    CHECK_RC(MPI_Info_get_string(used, "mpi_size", &vl, v, &flag));
    CHECK(flag && atoi(v) == size);
    MPI_Info_free(&used);

    /* Communicators from the groups. */
    MPI_Comm c, sc;
    CHECK_RC(MPI_Comm_create_from_group(wg, "org.gshmem.test.session", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    int crank = -1, csize = -1, sum = 0;
    MPI_Comm_rank(c, &crank);
    MPI_Comm_size(c, &csize);
    CHECK(crank == rank && csize == size);
    CHECK_RC(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == size * (size - 1) / 2);
    int tok = rank;
    if (size > 1)
        CHECK_RC(MPI_Sendrecv_replace(&tok, 1, MPI_INT, (rank + 1) % size, 0, (rank + size - 1) % size, 0, c, MPI_STATUS_IGNORE));
    CHECK(tok == (rank + size - 1) % size);
    /* Buffered sends on a session's communicators (MPI-4.1 3.6): the
     * communicator's buffer, else the session's, else the process's. */
    {
        char sbuf[64 + MPI_BSEND_OVERHEAD], cbuf[1024 + MPI_BSEND_OVERHEAD];
        int big[256], x = 7 + rank, y = -1, ec, bsz = -1;
        void *addr = NULL;
        MPI_Comm d;
        MPI_Request rq;
        memset(big, 0, sizeof big);
        CHECK_RC(MPI_Comm_dup(c, &d));
        MPI_Error_class(MPI_Bsend(&x, 1, MPI_INT, rank, 5, c), &ec);
        CHECK(ec == MPI_ERR_BUFFER); /* none attached yet */
        CHECK_RC(MPI_Session_attach_buffer(s, sbuf, sizeof sbuf));
        MPI_Error_class(MPI_Session_attach_buffer(s, sbuf, sizeof sbuf), &ec);
        CHECK(ec == MPI_ERR_BUFFER); /* one at a time */
        CHECK_RC(MPI_Bsend(&x, 1, MPI_INT, rank, 5, c));
        CHECK_RC(MPI_Recv(&y, 1, MPI_INT, rank, 5, c, MPI_STATUS_IGNORE));
        CHECK(y == x);
        CHECK_RC(MPI_Bsend(&x, 1, MPI_INT, rank, 6, d)); /* a derived communicator too */
        CHECK_RC(MPI_Session_flush_buffer(s));
        CHECK_RC(MPI_Recv(&y, 1, MPI_INT, rank, 6, d, MPI_STATUS_IGNORE));
        MPI_Error_class(MPI_Bsend(big, 256, MPI_INT, rank, 7, c), &ec);
        CHECK(ec == MPI_ERR_BUFFER); /* larger than the session's buffer */
        CHECK_RC(MPI_Comm_attach_buffer(c, cbuf, sizeof cbuf));
        CHECK_RC(MPI_Bsend(big, 256, MPI_INT, rank, 7, c)); /* the communicator's first */
        CHECK_RC(MPI_Recv(big, 256, MPI_INT, rank, 7, c, MPI_STATUS_IGNORE));
        CHECK_RC(MPI_Comm_detach_buffer(c, &addr, &bsz));
        CHECK(addr == cbuf && bsz == (int)sizeof cbuf);
        CHECK_RC(MPI_Bsend(&x, 1, MPI_INT, rank, 8, d));
        CHECK_RC(MPI_Session_iflush_buffer(s, &rq));
        CHECK_RC(MPI_Recv(&y, 1, MPI_INT, rank, 8, d, MPI_STATUS_IGNORE));
        CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        MPI_Count csz = -1;
        CHECK_RC(MPI_Session_detach_buffer_c(s, &addr, &csz));
        CHECK(addr == sbuf && csz == (MPI_Count)sizeof sbuf);
        MPI_Error_class(MPI_Session_detach_buffer(s, &addr, &bsz), &ec);
        CHECK(ec == MPI_ERR_BUFFER);
        CHECK_RC(MPI_Session_attach_buffer_c(s, MPI_BUFFER_AUTOMATIC, 0));
        CHECK_RC(MPI_Bsend(big, 256, MPI_INT, rank, 9, d));
        CHECK_RC(MPI_Recv(big, 256, MPI_INT, rank, 9, d, MPI_STATUS_IGNORE));
        MPI_Comm_free(&d);
        /* left attached: MPI_Session_finalize flushes and detaches it */
    }
    CHECK_RC(MPI_Comm_create_from_group(sg, "org.gshmem.test.self", MPI_INFO_NULL, MPI_ERRHANDLER_NULL, &sc));
    MPI_Comm_size(sc, &csize);
    CHECK(csize == 1);
    CHECK_RC(MPI_Barrier(sc));
    MPI_Comm_free(&sc);
    MPI_Comm_free(&c);
    MPI_Group_free(&wg);
    MPI_Group_free(&sg);

    /* Session error handlers. */
    MPI_Errhandler eh, got;
    CHECK_RC(MPI_Session_create_errhandler(onError, &eh));
    CHECK_RC(MPI_Session_set_errhandler(s, eh));
    CHECK_RC(MPI_Session_get_errhandler(s, &got));
    CHECK(got == eh);
    CHECK_RC(MPI_Session_call_errhandler(s, MPI_ERR_OTHER));
    CHECK(called == MPI_ERR_OTHER);
    MPI_Group bad;
    CHECK(MPI_Group_from_session_pset(s, "mpi://NOWHERE", &bad) != MPI_SUCCESS);
    CHECK(called == MPI_ERR_ARG);
    MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&eh);

    /* MPI_Info_create_env. */
    MPI_Info env;
    CHECK_RC(MPI_Info_create_env(argc, argv, &env));
    vl = MPI_MAX_INFO_VAL;
    CHECK_RC(MPI_Info_get_string(env, "command", &vl, v, &flag));
    CHECK(flag && strcmp(v, argv[0]) == 0);
    vl = MPI_MAX_INFO_VAL;
    CHECK_RC(MPI_Info_get_string(env, "maxprocs", &vl, v, &flag));
    CHECK(flag && atoi(v) == size);
    vl = MPI_MAX_INFO_VAL;
    CHECK_RC(MPI_Info_get_string(env, "wdir", &vl, v, &flag));
    CHECK(flag && v[0] == '/');
    if (argc > 1) {
        vl = MPI_MAX_INFO_VAL;
        CHECK_RC(MPI_Info_get_string(env, "argv", &vl, v, &flag));
        CHECK(flag && strcmp(v, "init") == 0);
    }
    MPI_Info_free(&env);
    vl = MPI_MAX_INFO_VAL;
    CHECK_RC(MPI_Info_get_string(MPI_INFO_ENV, "host", &vl, v, &flag));
    CHECK(flag && vl > 0);

    CHECK_RC(MPI_Session_finalize(&s));
    CHECK(s == MPI_SESSION_NULL);
    MPI_Initialized(&flag);
    CHECK(flag == withInit);
    MPI_Finalized(&flag);
    CHECK(flag == 0);
    printf("session ok %d\n", rank);
    fflush(stdout);
    if (withInit)
        CHECK_RC(MPI_Finalize());
    return 0;
}
