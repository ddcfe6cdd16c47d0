/* The RMA hot paths (rma.c) mixed with the Go path on the same windows:
 * predefined types take the C path, a contiguous derived type of the same
 * elements takes Go's, and both must update the same memory atomically
 * with each other, under the same locks and epochs. Run with every rank
 * mapped (one node) and with each rank on its own node (no rank mapped:
 * everything through Go), with the same answers. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

enum { ITERS = 2000 };

int main(int argc, char **argv)
{
    int rank, size;
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MPI_Datatype int2; /* two ints as one derived type: the Go path */
    CHECK_RC(MPI_Type_contiguous(2, MPI_INT, &int2));
    CHECK_RC(MPI_Type_commit(&int2));

    /* Layout of rank 0's window (disp unit 1):
     * 0: int32[2] sums, 8: int64 ticket, 16: double sum, 24: int8[4] and
     * int16[2] small sums, 32: int64 counter under an exclusive lock,
     * 40: uint32 bitwise, 48: int64 CAS word, 56..63: bytes for CAS. */
    uint8_t *base;
    MPI_Win win;
    CHECK_RC(MPI_Win_allocate(128, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    memset(base, 0, 128);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));

    /* Concurrent accumulates through both paths, fetch-and-op tickets,
     * small and float sums, all in one lock_all epoch. */
    int ones[2] = {1, 2};
    int64_t one = 1, got;
    double half = 0.5;
    int8_t i8[4] = {1, -1, 3, 0};
    int16_t i16[2] = {-2, 5};
    uint32_t bit = 1u << rank;
    CHECK_RC(MPI_Win_lock_all(0, win));
    for (int i = 0; i < ITERS; i++) {
        if (i % 2 == 0)
            CHECK_RC(MPI_Accumulate(ones, 2, MPI_INT, 0, 0, 2, MPI_INT, MPI_SUM, win));
        else
            CHECK_RC(MPI_Accumulate(ones, 1, int2, 0, 0, 1, int2, MPI_SUM, win));
        CHECK_RC(MPI_Fetch_and_op(&one, &got, MPI_INT64_T, 0, 8, MPI_SUM, win));
        CHECK(got >= 0 && got < (int64_t)size * ITERS);
        CHECK_RC(MPI_Accumulate(&half, 1, MPI_DOUBLE, 0, 16, 1, MPI_DOUBLE, MPI_SUM, win));
        CHECK_RC(MPI_Accumulate(i8, 4, MPI_INT8_T, 0, 24, 4, MPI_INT8_T, MPI_SUM, win));
        CHECK_RC(MPI_Accumulate(i16, 2, MPI_SHORT, 0, 28, 2, MPI_SHORT, MPI_SUM, win));
        if (i % 100 == 0)
            CHECK_RC(MPI_Win_flush(0, win));
    }
    CHECK_RC(MPI_Accumulate(&bit, 1, MPI_UINT32_T, 0, 40, 1, MPI_UINT32_T, MPI_BOR, win));
    CHECK_RC(MPI_Win_flush_all(win));
    CHECK_RC(MPI_Win_unlock_all(win));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        int32_t *s = (int32_t *)base;
        CHECK(s[0] == size * ITERS && s[1] == 2 * size * ITERS);
        CHECK(*(int64_t *)(base + 8) == (int64_t)size * ITERS);
        CHECK(*(double *)(base + 16) == 0.5 * size * ITERS);
        int8_t *b8 = (int8_t *)(base + 24);
        /* int8 sums wrap as Go's: 3 * size * ITERS mod 256. */
        CHECK(b8[0] == (int8_t)(size * ITERS) && b8[1] == (int8_t)(-size * ITERS) &&
              b8[2] == (int8_t)(3 * size * ITERS) && b8[3] == 0);
        int16_t *b16 = (int16_t *)(base + 28);
        CHECK(b16[0] == (int16_t)(-2 * size * ITERS) && b16[1] == (int16_t)(5 * size * ITERS));
        CHECK(*(uint32_t *)(base + 40) == (size >= 32 ? 0xffffffffu : (1u << size) - 1));
    }

    /* Exclusive locks (Go) and shared locks (C) on the same rank: each
     * rank increments the counter under an exclusive lock while the
     * others read it under shared locks; the final count is exact. */
    for (int i = 0; i < 200; i++) {
        int64_t c;
        CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        CHECK_RC(MPI_Get(&c, 1, MPI_INT64_T, 0, 32, 1, MPI_INT64_T, win));
        CHECK_RC(MPI_Win_flush(0, win));
        c++;
        CHECK_RC(MPI_Put(&c, 1, MPI_INT64_T, 0, 32, 1, MPI_INT64_T, win));
        CHECK_RC(MPI_Win_unlock(0, win));
        CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        int64_t r1, r2;
        CHECK_RC(MPI_Get(&r1, 1, MPI_INT64_T, 0, 32, 1, MPI_INT64_T, win));
        CHECK_RC(MPI_Win_flush(0, win));
        CHECK_RC(MPI_Get(&r2, 1, MPI_INT64_T, 0, 32, 1, MPI_INT64_T, win));
        CHECK_RC(MPI_Win_unlock(0, win));
        CHECK(r1 == r2); /* no writer inside a shared epoch */
    }
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        CHECK(*(int64_t *)(base + 32) == 200 * (int64_t)size);

    /* Compare-and-swap of 8, 4, 2 and 1 bytes: exactly one rank wins each. */
    int64_t cmp8 = 0, new8 = rank + 1, old8;
    int32_t cmp4 = 0, new4 = rank + 1, old4;
    int16_t cmp2 = 0, new2 = (int16_t)(rank + 1), old2;
    int8_t cmp1 = 0, new1 = (int8_t)(rank + 1), old1;
    CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    CHECK_RC(MPI_Compare_and_swap(&new8, &cmp8, &old8, MPI_INT64_T, 0, 48, win));
    CHECK_RC(MPI_Compare_and_swap(&new4, &cmp4, &old4, MPI_INT, 0, 56, win));
    CHECK_RC(MPI_Compare_and_swap(&new2, &cmp2, &old2, MPI_SHORT, 0, 60, win));
    CHECK_RC(MPI_Compare_and_swap(&new1, &cmp1, &old1, MPI_SIGNED_CHAR, 0, 62, win));
    CHECK_RC(MPI_Win_unlock(0, win));
    int wins[4] = {old8 == 0, old4 == 0, old2 == 0, old1 == 0}, total[4];
    CHECK_RC(MPI_Allreduce(wins, total, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < 4; i++)
        CHECK(total[i] == 1);

    /* Put and get through both paths in a lock_all epoch, to the right. */
    int right = (rank + 1) % size;
    int v[2] = {rank, -rank}, w[2];
    CHECK_RC(MPI_Win_lock_all(0, win));
    CHECK_RC(MPI_Put(v, 2, MPI_INT, right, 64, 2, MPI_INT, win));
    CHECK_RC(MPI_Put(v, 1, int2, right, 72, 1, int2, win));
    CHECK_RC(MPI_Win_flush(right, win));
    CHECK_RC(MPI_Get(w, 1, int2, right, 64, 1, int2, win));
    CHECK(w[0] == rank && w[1] == -rank);
    CHECK_RC(MPI_Get(w, 2, MPI_INT, right, 72, 2, MPI_INT, win));
    CHECK(w[0] == rank && w[1] == -rank);
    CHECK_RC(MPI_Win_unlock_all(win));

    /* Errors come from the Go path with their classes. */
    CHECK_RC(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    int cls, rc;
    rc = MPI_Put(v, 1, MPI_INT, right, 0, 1, MPI_INT, win); /* no epoch */
    CHECK_RC(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_RMA_SYNC);
    rc = MPI_Win_flush(right, win);
    CHECK_RC(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_RMA_SYNC);
    CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    rc = MPI_Put(v, 2, MPI_INT, right, 124, 2, MPI_INT, win); /* past the end */
    CHECK_RC(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_RMA_RANGE);
    rc = MPI_Accumulate(&half, 1, MPI_DOUBLE, right, 16, 1, MPI_DOUBLE, MPI_BAND, win);
    CHECK_RC(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_OP);
    rc = MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win); /* already locked */
    CHECK_RC(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_RMA_SYNC);
    CHECK_RC(MPI_Win_unlock(right, win));
    rc = MPI_Win_unlock(right, win);
    CHECK_RC(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_RMA_SYNC);
    rc = MPI_Win_unlock_all(win);
    CHECK_RC(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_RMA_SYNC);

    /* A fence epoch after the passive ones, then free: the handle is dead. */
    CHECK_RC(MPI_Win_fence(0, win));
    CHECK_RC(MPI_Put(v, 2, MPI_INT, right, 64, 2, MPI_INT, win));
    CHECK_RC(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    CHECK(*(int *)(base + 64) == (rank + size - 1) % size);
    MPI_Win stale = win;
    CHECK_RC(MPI_Win_free(&win));
    CHECK(win == MPI_WIN_NULL);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Put(v, 1, MPI_INT, right, 0, 1, MPI_INT, stale);
    CHECK_RC(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_WIN);
    CHECK_RC(MPI_Type_free(&int2));
    printf("rmafast ok\n");
    CHECK_RC(MPI_Finalize());
    return 0;
}
