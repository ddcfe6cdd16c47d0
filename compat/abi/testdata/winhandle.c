/* winhandle.c: window handles that are none give MPI_ERR_WIN at every
 * window entry point, the RMA fast paths included, never a crash: a
 * garbage value (an address nothing maps), a freed window, and a copy of
 * a live window's object in user memory (it looks like a window to
 * anything that only reads it). Prints "winhandle ok" on every rank. */
#include <stdint.h>
#include <string.h>
#include "check.h"

#define IS_WIN(call) CHECK((call) == MPI_ERR_WIN)

int main(int argc, char **argv)
{
    int rank, size;
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));

    int64_t *base, v = 1, r = 0, c = 0;
    MPI_Win live, freed;
    CHECK_RC(MPI_Win_allocate(64, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &live));
    CHECK_RC(MPI_Win_allocate(64, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &freed));
    CHECK_RC(MPI_Win_free(&freed));
    CHECK_RC(MPI_Win_allocate(64, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &freed));
    MPI_Win keep = freed;
    CHECK_RC(MPI_Win_free(&freed));
    freed = keep;
    CHECK_RC(MPI_Win_lock_all(0, live)); /* the copy below has an epoch open */
    static unsigned char copy[4096] __attribute__((aligned(64)));
    memcpy(copy, (void *)live, 256);
    MPI_Win bogus[3] = {(MPI_Win)(uintptr_t)0x12345678, freed, (MPI_Win)(void *)copy};
    int t = (rank + 1) % size;
    for (int i = 0; i < 3; i++) {
        MPI_Win w = bogus[i];
        MPI_Request req;
        MPI_Group g;
        int flag, *attr;
        IS_WIN(MPI_Put(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, w));
        IS_WIN(MPI_Get(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, w));
        IS_WIN(MPI_Accumulate(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, MPI_SUM, w));
        IS_WIN(MPI_Get_accumulate(&v, 1, MPI_INT64_T, &r, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, MPI_SUM, w));
        IS_WIN(MPI_Fetch_and_op(&v, &r, MPI_INT64_T, t, 0, MPI_SUM, w));
        IS_WIN(MPI_Compare_and_swap(&v, &c, &r, MPI_INT64_T, t, 0, w));
        IS_WIN(MPI_Rput(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, w, &req));
        IS_WIN(MPI_Rget(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, w, &req));
        IS_WIN(MPI_Raccumulate(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, MPI_SUM, w, &req));
        IS_WIN(MPI_Win_flush(t, w));
        IS_WIN(MPI_Win_flush_all(w));
        IS_WIN(MPI_Win_flush_local(t, w));
        IS_WIN(MPI_Win_flush_local_all(w));
        IS_WIN(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, w));
        IS_WIN(MPI_Win_unlock(t, w));
        IS_WIN(MPI_Win_lock_all(0, w));
        IS_WIN(MPI_Win_unlock_all(w));
        IS_WIN(MPI_Win_sync(w));
        IS_WIN(MPI_Win_fence(0, w));
        IS_WIN(MPI_Win_get_attr(w, MPI_WIN_MODEL, &attr, &flag));
        IS_WIN(MPI_Win_get_group(w, &g));
        IS_WIN(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN));
        IS_WIN(MPI_Win_attach(w, &v, 8));
        IS_WIN(MPI_Win_detach(w, &v));
        MPI_Win tmp = w;
        IS_WIN(MPI_Win_free(&tmp));
    }
    /* The live window is untouched by all that. */
    CHECK_RC(MPI_Put(&v, 1, MPI_INT64_T, t, 1, 1, MPI_INT64_T, live));
    CHECK_RC(MPI_Win_unlock_all(live));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    int64_t *mine;
    int flag;
    CHECK_RC(MPI_Win_get_attr(live, MPI_WIN_BASE, &mine, &flag));
    CHECK(flag && mine[1] == 1);
    CHECK_RC(MPI_Win_free(&live));
    printf("winhandle ok\n");
    CHECK_RC(MPI_Finalize());
    return 0;
}
