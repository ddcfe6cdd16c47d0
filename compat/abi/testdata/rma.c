/* One-sided communication: window flavors, attributes, fence, lock,
 * lock_all and flush, PSCW, accumulate and the atomics. */
#include <string.h>
#include "check.h"

int main(int argc, char **argv)
{
    int rank, size, flag;
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    /* Win_allocate, fence epochs, put and get. */
    long *base;
    MPI_Win win;
    CHECK_RC(MPI_Win_allocate(4 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    for (int i = 0; i < 4; i++)
        base[i] = -1;
    void *attr;
    CHECK_RC(MPI_Win_get_attr(win, MPI_WIN_BASE, &attr, &flag));
    CHECK(flag == 1 && attr == base);
    MPI_Aint *wsize;
    CHECK_RC(MPI_Win_get_attr(win, MPI_WIN_SIZE, &wsize, &flag));
    CHECK(flag == 1 && *wsize == 4 * (MPI_Aint)sizeof(long));
    int *unit, *flavor, *model;
    CHECK_RC(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &unit, &flag));
    CHECK(*unit == sizeof(long));
    CHECK_RC(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
    CHECK(*flavor == MPI_WIN_FLAVOR_ALLOCATE);
    CHECK_RC(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag));
    CHECK(*model == MPI_WIN_UNIFIED);
    MPI_Info winfo;
    CHECK_RC(MPI_Win_get_info(win, &winfo));
    CHECK_RC(MPI_Info_free(&winfo));
    CHECK_RC(MPI_Win_set_info(win, MPI_INFO_NULL));
    char wname[MPI_MAX_OBJECT_NAME];
    int wlen;
    CHECK_RC(MPI_Win_set_name(win, "halo"));
    CHECK_RC(MPI_Win_get_name(win, wname, &wlen));
    CHECK(strcmp(wname, "halo") == 0 && wlen == 4);

    CHECK_RC(MPI_Win_fence(0, win));
    long v = 100 + rank;
    CHECK_RC(MPI_Put(&v, 1, MPI_LONG, right, 1, 1, MPI_LONG, win));
    CHECK_RC(MPI_Win_fence(0, win));
    CHECK(base[1] == 100 + left);
    long got = 0;
    CHECK_RC(MPI_Get(&got, 1, MPI_LONG, left, 1, 1, MPI_LONG, win));
    CHECK_RC(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    CHECK(got == 100 + (left + size - 1) % size);

    /* Passive target: lock_all, accumulate, fetch_and_op, CAS, flush. */
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    base[0] = 0;
    base[2] = 0;
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_RC(MPI_Win_lock_all(0, win));
    long one = 1, old = -1, cmp = 0, swp = rank + 1;
    CHECK_RC(MPI_Accumulate(&one, 1, MPI_LONG, 0, 0, 1, MPI_LONG, MPI_SUM, win));
    CHECK_RC(MPI_Win_flush(0, win));
    CHECK_RC(MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, 0, MPI_SUM, win));
    CHECK_RC(MPI_Win_flush_all(win));
    CHECK(old >= 1 && old <= 2 * size - 1);
    CHECK_RC(MPI_Compare_and_swap(&swp, &cmp, &old, MPI_LONG, 0, 2, win));
    CHECK_RC(MPI_Win_flush_local(0, win));
    CHECK_RC(MPI_Win_unlock_all(win));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        CHECK(base[0] == 2 * size);
        CHECK(base[2] >= 1 && base[2] <= size);
        CHECK_RC(MPI_Win_unlock(0, win));
    }

    /* Exclusive lock with get_accumulate (REPLACE and NO_OP). */
    CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
    long nv = rank * 7, prev = -5, peek = -5;
    CHECK_RC(MPI_Get_accumulate(&nv, 1, MPI_LONG, &prev, 1, MPI_LONG, right, 3, 1, MPI_LONG, MPI_REPLACE, win));
    CHECK_RC(MPI_Get_accumulate(NULL, 0, MPI_LONG, &peek, 1, MPI_LONG, right, 3, 1, MPI_LONG, MPI_NO_OP, win));
    CHECK_RC(MPI_Win_unlock(right, win));
    CHECK(peek == rank * 7);

    /* Request-based put. */
    CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
    MPI_Request rq;
    long rv = 4242;
    CHECK_RC(MPI_Rput(&rv, 1, MPI_LONG, right, 3, 1, MPI_LONG, win, &rq));
    CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Win_unlock(right, win));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(base[3] == 4242);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD)); /* every rank has read its base[3] */
    CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    long rd = -1, rgot = -1, add = 8;
    CHECK_RC(MPI_Raccumulate(&add, 1, MPI_LONG, right, 3, 1, MPI_LONG, MPI_SUM, win, &rq));
    CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Win_flush(right, win));
    CHECK_RC(MPI_Rget_accumulate(NULL, 0, MPI_LONG, &rd, 1, MPI_LONG, right, 3, 1, MPI_LONG, MPI_NO_OP, win, &rq));
    CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Rget(&rgot, 1, MPI_LONG, right, 3, 1, MPI_LONG, win, &rq));
    CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Win_unlock(right, win));
    CHECK(rd == 4250 && rgot == 4250);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));

    /* Group of the window; PSCW between neighbours. */
    MPI_Group wg, lg, rg;
    CHECK_RC(MPI_Win_get_group(win, &wg));
    CHECK_RC(MPI_Group_incl(wg, 1, &left, &lg));
    CHECK_RC(MPI_Group_incl(wg, 1, &right, &rg));
    CHECK_RC(MPI_Win_post(lg, 0, win));
    CHECK_RC(MPI_Win_start(rg, 0, win));
    long pv = 900 + rank;
    CHECK_RC(MPI_Put(&pv, 1, MPI_LONG, right, 0, 1, MPI_LONG, win));
    CHECK_RC(MPI_Win_complete(win));
    CHECK_RC(MPI_Win_wait(win));
    CHECK(base[0] == 900 + left);
    CHECK_RC(MPI_Group_free(&lg));
    CHECK_RC(MPI_Group_free(&rg));
    CHECK_RC(MPI_Group_free(&wg));
    CHECK_RC(MPI_Win_free(&win));
    CHECK(win == MPI_WIN_NULL);

    /* Win_create over the caller's memory (separate model). */
    int mem[2] = {rank, rank};
    CHECK_RC(MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_RC(MPI_Win_fence(0, win));
    int iv = 50 + rank;
    CHECK_RC(MPI_Put(&iv, 1, MPI_INT, right, 1, 1, MPI_INT, win));
    CHECK_RC(MPI_Win_fence(0, win));
    CHECK(mem[1] == 50 + left && mem[0] == rank);
    CHECK_RC(MPI_Win_free(&win));

    /* Shared windows: every rank stores straight into its neighbour's part. */
    int *sbase;
    CHECK_RC(MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &sbase, &win));
    MPI_Aint rsz;
    int rdu, *rbase;
    CHECK_RC(MPI_Win_shared_query(win, right, &rsz, &rdu, &rbase));
    CHECK(rsz == sizeof(int) && rdu == sizeof(int));
    CHECK_RC(MPI_Win_lock_all(0, win));
    *rbase = 7000 + rank;
    CHECK_RC(MPI_Win_sync(win));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_RC(MPI_Win_sync(win));
    CHECK(*sbase == 7000 + left);
    CHECK_RC(MPI_Win_unlock_all(win));
    CHECK_RC(MPI_Win_free(&win));

    /* Dynamic windows: attach, exchange addresses, get. */
    long dyn[2] = {rank * 11, rank * 13};
    CHECK_RC(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_RC(MPI_Win_attach(win, dyn, sizeof dyn));
    MPI_Aint mine, theirs;
    CHECK_RC(MPI_Get_address(&dyn[1], &mine));
    CHECK_RC(MPI_Sendrecv(&mine, 1, MPI_AINT, left, 0, &theirs, 1, MPI_AINT, right, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    long dg = 0;
    CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    CHECK_RC(MPI_Get(&dg, 1, MPI_LONG, right, theirs, 1, MPI_LONG, win));
    CHECK_RC(MPI_Win_unlock(right, win));
    CHECK(dg == right * 13);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_RC(MPI_Win_detach(win, dyn));
    CHECK_RC(MPI_Win_free(&win));

    CHECK_RC(MPI_Finalize());
    printf("rma ok %d\n", rank);
    return 0;
}
