/* Error classes through MPI_ERRORS_RETURN, a user error handler, and a
 * collective's failure at its root (a spawn whose command does not exist)
 * returned on the communicator. */
#include <string.h>
#include "check.h"

static int handled = 0, handled_code = 0;
static MPI_Comm handled_comm = MPI_COMM_NULL;

static void on_error(MPI_Comm *comm, int *code, ...)
{
    handled++;
    handled_code = *code;
    handled_comm = *comm;
}

static int win_handled = 0;
static void on_win_error(MPI_Win *win, int *code, ...)
{
    (void)win;
    win_handled = *code;
}

int main(int argc, char **argv)
{
    int rank, size, v, buf[4] = {0}, in[4] = {0};
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MPI_Errhandler eh;
    CHECK_RC(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    CHECK(eh == MPI_ERRORS_ARE_FATAL);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));

    int rc, cls;
    rc = MPI_Send(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
    CHECK(rc == MPI_ERR_RANK);
    CHECK_RC(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_RANK);
    CHECK(MPI_Send(buf, 1, MPI_INT, 0, -5, MPI_COMM_WORLD) == MPI_ERR_TAG);
    CHECK(MPI_Send(buf, -1, MPI_INT, 0, 0, MPI_COMM_WORLD) == MPI_ERR_COUNT);
    CHECK(MPI_Send(buf, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD) == MPI_ERR_TYPE);
    CHECK(MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL) == MPI_ERR_COMM);

    /* Handles that are none: a garbage value (an address nothing maps, so
     * a dereference would crash), an address of user memory, and a freed
     * communicator: each gives its class, through every hot path that
     * runs in C (Send, Recv, Barrier, Allreduce, Comm_rank/size). */
    MPI_Comm freed, bogus[3] = {(MPI_Comm)(uintptr_t)0x12345678, (MPI_Comm)(void *)in, MPI_COMM_NULL};
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &freed));
    bogus[2] = freed;
    CHECK_RC(MPI_Comm_free(&freed));
    for (int i = 0; i < 3; i++) {
        MPI_Comm c = bogus[i];
        CHECK(MPI_Send(buf, 1, MPI_INT, 0, 0, c) == MPI_ERR_COMM);
        CHECK(MPI_Recv(buf, 1, MPI_INT, 0, 0, c, MPI_STATUS_IGNORE) == MPI_ERR_COMM);
        CHECK(MPI_Barrier(c) == MPI_ERR_COMM);
        CHECK(MPI_Allreduce(buf, buf + 1, 1, MPI_INT, MPI_SUM, c) == MPI_ERR_COMM);
        CHECK(MPI_Comm_rank(c, &v) == MPI_ERR_COMM);
        CHECK(MPI_Comm_size(c, &v) == MPI_ERR_COMM);
    }
    CHECK(MPI_Send(buf, 1, (MPI_Datatype)(uintptr_t)0x12345678, 0, 0, MPI_COMM_WORLD) == MPI_ERR_TYPE);
    CHECK(MPI_Allreduce(buf, buf + 1, 1, MPI_INT, (MPI_Op)(uintptr_t)0x12345678, MPI_COMM_WORLD) == MPI_ERR_OP);
    CHECK(MPI_Group_size((MPI_Group)(uintptr_t)0x12345678, &v) == MPI_ERR_GROUP);
    CHECK(MPI_Info_get_nkeys((MPI_Info)(uintptr_t)0x12345678, &v) == MPI_ERR_INFO);
    MPI_Request garbage_req = (MPI_Request)(uintptr_t)0x12345678;
    CHECK(MPI_Wait(&garbage_req, MPI_STATUS_IGNORE) == MPI_ERR_REQUEST);
    CHECK(MPI_Bcast(buf, 1, MPI_INT, size, MPI_COMM_WORLD) == MPI_ERR_ROOT);
    CHECK(MPI_Allreduce(buf, buf + 1, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD) == MPI_ERR_OP);
    double d = 1, e = 0;
    CHECK(MPI_Allreduce(&d, &e, 1, MPI_DOUBLE, MPI_BAND, MPI_COMM_WORLD) == MPI_ERR_OP);
    MPI_Request bad = (MPI_Request)0x181;
    CHECK(MPI_Wait(&bad, MPI_STATUS_IGNORE) == MPI_ERR_REQUEST);
    MPI_Group g = MPI_GROUP_NULL;
    CHECK(MPI_Group_size(g, &v) == MPI_ERR_GROUP);
    MPI_Datatype uncommitted;
    CHECK_RC(MPI_Type_contiguous(2, MPI_INT, &uncommitted));
    CHECK(MPI_Send(buf, 1, uncommitted, 0, 0, MPI_COMM_WORLD) == MPI_ERR_TYPE);
    CHECK_RC(MPI_Type_free(&uncommitted));

    /* Truncation: a message longer than the receive buffer. */
    MPI_Status st;
    /* MPI requires disjoint send and receive buffers (MPI_ERR_BUFFER otherwise). */
    CHECK(MPI_Sendrecv(buf, 4, MPI_INT, rank, 1, buf, 4, MPI_INT, rank, 1, MPI_COMM_WORLD, &st) == MPI_ERR_BUFFER);
    CHECK_RC(MPI_Sendrecv(buf, 4, MPI_INT, rank, 1, in, 4, MPI_INT, rank, 1, MPI_COMM_WORLD, &st));
    MPI_Request rq;
    CHECK_RC(MPI_Isend(buf, 4, MPI_INT, rank, 2, MPI_COMM_WORLD, &rq));
    rc = MPI_Recv(buf, 2, MPI_INT, rank, 2, MPI_COMM_WORLD, &st);
    CHECK(rc == MPI_ERR_TRUNCATE);
    CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));

    /* A spawn that cannot start, through the communicator's handler. */
    MPI_Comm inter;
    rc = MPI_Comm_spawn("/nonexistent/gshmem-errors-test", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter,
                        MPI_ERRCODES_IGNORE);
    CHECK(rc == MPI_ERR_SPAWN);
    char msg[MPI_MAX_ERROR_STRING];
    int len;
    CHECK_RC(MPI_Error_string(rc, msg, &len));
    CHECK(strstr(msg, "MPI_ERR_SPAWN") != NULL);

    /* A user handler sees the communicator and the code; the call returns it. */
    MPI_Errhandler mine;
    CHECK_RC(MPI_Comm_create_errhandler(on_error, &mine));
    MPI_Comm dup;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &dup)); /* inherits ERRORS_RETURN */
    CHECK(MPI_Send(buf, 1, MPI_INT, size + 3, 0, dup) == MPI_ERR_RANK && handled == 0);
    CHECK_RC(MPI_Comm_set_errhandler(dup, mine));
    CHECK(MPI_Send(buf, 1, MPI_INT, size + 3, 0, dup) == MPI_ERR_RANK);
    CHECK(handled == 1 && handled_code == MPI_ERR_RANK && handled_comm == dup);
    CHECK_RC(MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER));
    CHECK(handled == 2 && handled_code == MPI_ERR_OTHER);
    /* User error classes, codes and strings. */
    int ecls, ecode, *last;
    CHECK_RC(MPI_Add_error_class(&ecls));
    CHECK_RC(MPI_Add_error_code(ecls, &ecode));
    CHECK(ecls > MPI_ERR_LASTCODE && ecode > ecls);
    CHECK_RC(MPI_Add_error_string(ecode, "my library failed"));
    CHECK_RC(MPI_Error_class(ecode, &cls));
    CHECK(cls == ecls);
    CHECK_RC(MPI_Error_string(ecode, msg, &len));
    CHECK(strcmp(msg, "my library failed") == 0);
    CHECK_RC(MPI_Error_string(ecls, msg, &len));
    CHECK(len == 0);
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &v));
    CHECK(v == 1 && *last == ecode);
    CHECK_RC(MPI_Comm_call_errhandler(dup, ecode));
    CHECK(handled_code == ecode);
    CHECK(MPI_Add_error_string(MPI_ERR_RANK, "no") == MPI_ERR_ARG);
    CHECK(MPI_Remove_error_class(ecls) == MPI_ERR_ARG); /* a code is still in it */
    CHECK_RC(MPI_Remove_error_string(ecode));
    CHECK_RC(MPI_Remove_error_code(ecode));
    CHECK_RC(MPI_Remove_error_class(ecls));
    CHECK(MPI_Error_class(ecode, &cls) == MPI_ERR_ARG);
    handled = 2; /* as before this block, for the count checked below */

    CHECK_RC(MPI_Errhandler_free(&mine));
    CHECK(mine == MPI_ERRHANDLER_NULL);
    CHECK(MPI_Send(buf, 1, MPI_INT, size + 3, 0, dup) == MPI_ERR_RANK && handled == 3);
    CHECK_RC(MPI_Comm_free(&dup));

    /* Windows: their own handler, fatal by default. */
    MPI_Win win;
    int *base;
    CHECK_RC(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    CHECK_RC(MPI_Win_get_errhandler(win, &eh));
    CHECK(eh == MPI_ERRORS_ARE_FATAL);
    MPI_Errhandler weh;
    CHECK_RC(MPI_Win_create_errhandler(on_win_error, &weh));
    CHECK_RC(MPI_Win_set_errhandler(win, weh));
    CHECK(MPI_Put(buf, 1, MPI_INT, 0, 0, 1, MPI_INT, win) == MPI_ERR_RMA_SYNC);
    CHECK(win_handled == MPI_ERR_RMA_SYNC);
    CHECK_RC(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    CHECK(MPI_Win_lock(12345, 0, 0, win) == MPI_ERR_LOCKTYPE);
    CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    CHECK(MPI_Put(buf, 1, MPI_INT, 0, 5, 1, MPI_INT, win) == MPI_ERR_RMA_RANGE);
    CHECK_RC(MPI_Win_unlock(0, win));
    CHECK(MPI_Win_unlock(0, win) == MPI_ERR_RMA_SYNC);
    CHECK(MPI_Win_fence(1 << 20, win) == MPI_ERR_ASSERT);
    CHECK_RC(MPI_Errhandler_free(&weh));
    CHECK_RC(MPI_Win_free(&win));

    CHECK_RC(MPI_Finalize());
    printf("errors ok %d\n", rank);
    return 0;
}
