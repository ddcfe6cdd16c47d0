/* dynwin.c: dynamic windows in the unified model. Every rank attaches
 * memory of each kind a program has (a global array, a stack array, two
 * halves of one malloc'd page, a large malloc'd array across pages, and
 * MPI_Alloc_mem memory), sends its addresses (MPI_Get_address), and its
 * left neighbour reaches them with every RMA call; the target then reads
 * its own memory with no window call. Addresses outside attached memory
 * give MPI_ERR_RMA_RANGE; detach leaves the memory the program's own, and
 * memory freed after detach stays safe. Prints "dynwin ok" on every rank. */
#include <stdint.h>
#include <string.h>
#include "check.h"

enum { BIG = 300000, NADDR = 6 };

static int64_t global[32];

static int rank, size;

static void range_errors(MPI_Win win, int t, MPI_Aint gap, MPI_Aint end)
{
    int64_t v = 1, r;
    CHECK_RC(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    int rc = MPI_Put(&v, 1, MPI_INT64_T, t, gap, 1, MPI_INT64_T, win);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RMA_RANGE);
    rc = MPI_Fetch_and_op(&v, &r, MPI_INT64_T, t, end, MPI_SUM, win);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RMA_RANGE);
    int64_t two[2] = {1, 2};
    rc = MPI_Get(two, 2, MPI_INT64_T, t, end - 8, 2, MPI_INT64_T, win);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RMA_RANGE);
    CHECK_RC(MPI_Win_set_errhandler(win, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    MPI_Win win;
    CHECK_RC(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    int *model, flavor_flag, *flavor;
    CHECK_RC(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flavor_flag));
    CHECK(flavor_flag && *model == MPI_WIN_UNIFIED);
    CHECK_RC(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flavor_flag));
    CHECK(flavor_flag && *flavor == MPI_WIN_FLAVOR_DYNAMIC);

    int64_t stack[16] = {0};
    int64_t *page = malloc(64 * sizeof(int64_t));
    int64_t *big = malloc(BIG * sizeof(int64_t));
    int64_t *mem;
    CHECK(page && big);
    CHECK_RC(MPI_Alloc_mem(16 * sizeof(int64_t), MPI_INFO_NULL, &mem));
    memset(page, 0, 64 * sizeof(int64_t));
    memset(mem, 0, 16 * sizeof(int64_t));
    for (int i = 0; i < BIG; i++)
        big[i] = rank * 1000000 + i;
    CHECK_RC(MPI_Win_attach(win, global, sizeof global));
    CHECK_RC(MPI_Win_attach(win, stack, sizeof stack));
    CHECK_RC(MPI_Win_attach(win, page, 16 * sizeof(int64_t)));      /* page[0..16) */
    CHECK_RC(MPI_Win_attach(win, page + 32, 16 * sizeof(int64_t))); /* page[32..48): the gap is not attached */
    CHECK_RC(MPI_Win_attach(win, big, BIG * sizeof(int64_t)));
    CHECK_RC(MPI_Win_attach(win, mem, 16 * sizeof(int64_t)));

    MPI_Aint mine[NADDR], t[NADDR];
    CHECK_RC(MPI_Get_address(global, &mine[0]));
    CHECK_RC(MPI_Get_address(stack, &mine[1]));
    CHECK_RC(MPI_Get_address(page, &mine[2]));
    CHECK_RC(MPI_Get_address(page + 32, &mine[3]));
    CHECK_RC(MPI_Get_address(big, &mine[4]));
    CHECK_RC(MPI_Get_address(mem, &mine[5]));
    /* Every rank sends its addresses to its left neighbour, its origin. */
    CHECK_RC(MPI_Sendrecv(mine, NADDR, MPI_AINT, left, 0, t, NADDR, MPI_AINT, right, 0, MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE));

    CHECK_RC(MPI_Win_lock_all(0, win));
    int64_t v = 10 + rank, r = -1, cmp = 0;
    CHECK_RC(MPI_Put(&v, 1, MPI_INT64_T, right, t[0] + 8 * 5, 1, MPI_INT64_T, win));
    CHECK_RC(MPI_Accumulate(&v, 1, MPI_INT64_T, right, t[1] + 8 * 2, 1, MPI_INT64_T, MPI_SUM, win));
    CHECK_RC(MPI_Accumulate(&v, 1, MPI_INT64_T, right, t[1] + 8 * 2, 1, MPI_INT64_T, MPI_SUM, win));
    CHECK_RC(MPI_Get_accumulate(&v, 1, MPI_INT64_T, &r, 1, MPI_INT64_T, right, t[2] + 8 * 15, 1, MPI_INT64_T,
                                MPI_SUM, win));
    CHECK_RC(MPI_Win_flush(right, win));
    CHECK(r == 0);
    CHECK_RC(MPI_Fetch_and_op(&v, &r, MPI_INT64_T, right, t[3], MPI_SUM, win));
    CHECK_RC(MPI_Win_flush(right, win));
    CHECK(r == 0);
    CHECK_RC(MPI_Compare_and_swap(&v, &cmp, &r, MPI_INT64_T, right, t[5] + 8 * 7, win));
    CHECK_RC(MPI_Win_flush(right, win));
    CHECK(r == 0);
    /* A put and a get across the large array's pages, request-based. */
    int64_t *span = malloc(100000 * sizeof(int64_t)), *back = malloc(100000 * sizeof(int64_t));
    CHECK(span && back);
    for (int i = 0; i < 100000; i++)
        span[i] = -(rank * 1000000 + i);
    MPI_Request req[2];
    CHECK_RC(MPI_Rput(span, 100000, MPI_INT64_T, right, t[4] + 8 * 1000, 100000, MPI_INT64_T, win, &req[0]));
    CHECK_RC(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Win_flush(right, win));
    CHECK_RC(MPI_Rget(back, 100000, MPI_INT64_T, right, t[4] + 8 * 1000, 100000, MPI_INT64_T, win, &req[1]));
    CHECK_RC(MPI_Wait(&req[1], MPI_STATUS_IGNORE));
    CHECK(memcmp(span, back, 100000 * sizeof(int64_t)) == 0);
    int64_t tail[2];
    CHECK_RC(MPI_Get(tail, 2, MPI_INT64_T, right, t[4] + 8 * (BIG - 2), 2, MPI_INT64_T, win));
    CHECK_RC(MPI_Win_flush(right, win));
    CHECK(tail[0] == right * 1000000 + BIG - 2 && tail[1] == right * 1000000 + BIG - 1);
    range_errors(win, right, t[2] + 8 * 16, t[3] + 8 * 16);
    CHECK_RC(MPI_Win_unlock_all(win));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));

    /* Unified: the target's own memory, with no window call. */
    int64_t lv = 10 + left;
    CHECK(global[5] == lv);
    CHECK(stack[2] == 2 * lv);
    CHECK(page[15] == lv && page[32] == lv);
    for (int i = 16; i < 32; i++)
        CHECK(page[i] == 0);
    CHECK(mem[7] == lv);
    for (int i = 0; i < BIG; i++) {
        int64_t want = (i >= 1000 && i < 101000) ? -(left * 1000000 + i - 1000) : rank * 1000000 + i;
        CHECK(big[i] == want);
    }
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));

    /* Detach: the memory stays the program's, with its data; a detached
     * region is out of range; the other half of the page still works. */
    CHECK_RC(MPI_Win_detach(win, page));
    CHECK_RC(MPI_Win_detach(win, big));
    CHECK(page[15] == lv && big[1000] == -(left * 1000000));
    free(big); /* freed after detach: peers cannot reach it */
    big = malloc(BIG * sizeof(int64_t));
    CHECK(big != NULL);
    memset(big, 0x5a, BIG * sizeof(int64_t));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_RC(MPI_Win_lock_all(0, win));
    CHECK_RC(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    int cls = -1;
    MPI_Error_class(MPI_Put(&v, 1, MPI_INT64_T, right, t[2], 1, MPI_INT64_T, win), &cls);
    CHECK(cls == MPI_ERR_RMA_RANGE);
    MPI_Error_class(MPI_Put(&v, 1, MPI_INT64_T, right, t[4] + 8 * 5, 1, MPI_INT64_T, win), &cls);
    CHECK(cls == MPI_ERR_RMA_RANGE);
    CHECK_RC(MPI_Win_set_errhandler(win, MPI_ERRORS_ARE_FATAL));
    CHECK_RC(MPI_Accumulate(&v, 1, MPI_INT64_T, right, t[3] + 8, 1, MPI_INT64_T, MPI_SUM, win));
    CHECK_RC(MPI_Win_unlock_all(win));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(page[33] == lv);
    for (int i = 0; i < BIG; i += 4096)
        CHECK(big[i] == 0x5a5a5a5a5a5a5a5aLL);

    /* Re-attach where memory was: reachable again. */
    CHECK_RC(MPI_Win_attach(win, page, 16 * sizeof(int64_t)));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
    CHECK_RC(MPI_Put(&v, 1, MPI_INT64_T, right, t[2] + 8, 1, MPI_INT64_T, win));
    CHECK_RC(MPI_Win_unlock(right, win));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(page[1] == lv);

    CHECK_RC(MPI_Win_free(&win)); /* detaches what is still attached */
    stack[0] = 1;
    page[0] = 2;
    global[0] = 3;
    CHECK(stack[0] + page[0] + global[0] == 6);
    free(page);
    free(big);
    free(span);
    free(back);
    CHECK_RC(MPI_Free_mem(mem));
    printf("dynwin ok\n");
    CHECK_RC(MPI_Finalize());
    return 0;
}
