/* wincreate.c: windows over the user's own memory in the unified model,
 * and windows and heaps larger than the old 1 GiB heap, with no setting.
 * Argument "big" adds the 2 GiB MPI_Win_create and the 4 GiB
 * MPI_Win_allocate (2 ranks). Prints "wincreate ok" on every rank. */
#include <stdint.h>
#include <string.h>
#include "check.h"

static int rank, size;

/* Peers' exclusive-lock CAS and puts are in the target's own memory after
 * a barrier, with no window call at the target; a buffer reset with
 * memset between rounds keeps every round's updates. */
static void unified_rounds(void)
{
    int64_t *buf = malloc(64 * sizeof(int64_t));
    CHECK(buf != NULL);
    MPI_Win win;
    CHECK_RC(MPI_Win_create(buf, 64 * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    int *model, flag;
    CHECK_RC(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag));
    CHECK(flag && *model == MPI_WIN_UNIFIED);
    for (int round = 0; round < 6; round++) {
        memset(buf, 0, 64 * sizeof(int64_t));
        CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
        if (rank != 0) {
            int64_t one = 1, zero = 0, me = rank, old;
            CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
            CHECK_RC(MPI_Compare_and_swap(&me, &zero, &old, MPI_INT64_T, 0, 0, win));
            CHECK_RC(MPI_Put(&one, 1, MPI_INT64_T, 0, rank, 1, MPI_INT64_T, win));
            CHECK_RC(MPI_Win_unlock(0, win));
        }
        CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 0) {
            CHECK(buf[0] >= 1 && buf[0] < size);
            for (int r = 1; r < size; r++)
                CHECK(buf[r] == 1);
        }
        CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    }
    /* The owner's plain stores are what a passive-target Get reads. */
    buf[63] = 1000 + rank;
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    int peer = (rank + 1) % size;
    int64_t got = 0;
    CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win));
    CHECK_RC(MPI_Get(&got, 1, MPI_INT64_T, peer, 63, 1, MPI_INT64_T, win));
    CHECK_RC(MPI_Win_unlock(peer, win));
    CHECK(got == 1000 + peer);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_RC(MPI_Win_free(&win));
    CHECK(buf[63] == 1000 + rank); /* private memory again, same contents */
    free(buf);
}

/* Passive-target atomics from every other rank into rank 0's buffer while
 * rank 0 computes, without an MPI call, checked exactly. */
static void atomics_while_computing(void)
{
    enum { N = 2000 };
    int64_t *ctr = calloc(4, sizeof(int64_t));
    CHECK(ctr != NULL);
    MPI_Win win;
    CHECK_RC(MPI_Win_create(ctr, 4 * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        /* Compute until every origin has reported done into ctr[2]. */
        volatile double x = 1.0;
        while (__atomic_load_n(&ctr[2], __ATOMIC_ACQUIRE) != size - 1)
            x = x * 1.0000001 + 1e-9;
    } else {
        int64_t one = 1, prev, sum = 0;
        CHECK_RC(MPI_Win_lock_all(0, win));
        for (int i = 0; i < N; i++) {
            CHECK_RC(MPI_Accumulate(&one, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, MPI_SUM, win));
            CHECK_RC(MPI_Fetch_and_op(&one, &prev, MPI_INT64_T, 0, 1, MPI_SUM, win));
            CHECK_RC(MPI_Win_flush(0, win));
            CHECK(prev >= 0 && prev < (int64_t)N * (size - 1));
            sum += prev;
        }
        (void)sum;
        CHECK_RC(MPI_Fetch_and_op(&one, &prev, MPI_INT64_T, 0, 2, MPI_SUM, win));
        CHECK_RC(MPI_Win_unlock_all(win));
    }
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        CHECK(ctr[0] == (int64_t)N * (size - 1));
        CHECK(ctr[1] == (int64_t)N * (size - 1));
    }
    CHECK_RC(MPI_Win_free(&win));
    free(ctr);
}

/* A buffer freed before MPI_Win_free: nothing crashes, and a later
 * allocation at the same place is the program's own memory. */
static void free_before_win_free(void)
{
    size_t n = 8 << 20; /* mmap-backed: free unmaps it */
    char *big = malloc(n), *small = malloc(100);
    CHECK(big != NULL && small != NULL);
    MPI_Win wb, ws;
    CHECK_RC(MPI_Win_create(big, n, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wb));
    CHECK_RC(MPI_Win_create(small, 100, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &ws));
    CHECK_RC(MPI_Win_fence(0, wb));
    char v = 5;
    CHECK_RC(MPI_Put(&v, 1, MPI_CHAR, (rank + 1) % size, n - 1, 1, MPI_CHAR, wb));
    CHECK_RC(MPI_Win_fence(0, wb));
    CHECK(big[n - 1] == 5);
    free(big);
    free(small);
    char *again = malloc(n);
    CHECK(again != NULL);
    memset(again, 7, n);
    CHECK_RC(MPI_Win_free(&wb));
    CHECK_RC(MPI_Win_free(&ws));
    CHECK(again[0] == 7 && again[n - 1] == 7);
    free(again);
}

/* Windows over buffers that share a page (two arrays in one page, and
 * the first array in a third window) are all unified and reach the same
 * memory; one freed first leaves the others working. */
static void shared_page(void)
{
    static int64_t pair[2][4] __attribute__((aligned(64))); /* in one page */
    MPI_Win wa, wb, wc;
    CHECK_RC(MPI_Win_create(pair[0], sizeof pair[0], 8, MPI_INFO_NULL, MPI_COMM_WORLD, &wa));
    CHECK_RC(MPI_Win_create(pair[1], sizeof pair[1], 8, MPI_INFO_NULL, MPI_COMM_WORLD, &wb));
    CHECK_RC(MPI_Win_create(pair[0], sizeof pair[0], 8, MPI_INFO_NULL, MPI_COMM_WORLD, &wc));
    MPI_Win all[3] = {wa, wb, wc};
    for (int i = 0; i < 3; i++) {
        int *m, flag;
        CHECK_RC(MPI_Win_get_attr(all[i], MPI_WIN_MODEL, &m, &flag));
        CHECK(flag && *m == MPI_WIN_UNIFIED);
    }
    int peer = (rank + 1) % size, left = (rank + size - 1) % size;
    int64_t v = 10 + rank, u = 20 + rank, one = 1, old;
    CHECK_RC(MPI_Win_fence(0, wa));
    CHECK_RC(MPI_Win_fence(0, wb));
    CHECK_RC(MPI_Put(&v, 1, MPI_INT64_T, peer, 1, 1, MPI_INT64_T, wa));
    CHECK_RC(MPI_Put(&u, 1, MPI_INT64_T, peer, 2, 1, MPI_INT64_T, wb));
    CHECK_RC(MPI_Win_fence(0, wa));
    CHECK_RC(MPI_Win_fence(0, wb));
    CHECK(pair[0][1] == 10 + left && pair[1][2] == 20 + left);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_RC(MPI_Win_free(&wa));
    /* wc reaches what wa's put left, passive target. */
    CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, wc));
    CHECK_RC(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, peer, 1, MPI_SUM, wc));
    CHECK_RC(MPI_Win_unlock(peer, wc));
    CHECK(old == 10 + rank);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(pair[0][1] == 11 + left);
    CHECK_RC(MPI_Win_free(&wc));
    CHECK_RC(MPI_Win_free(&wb));
    CHECK(pair[0][1] == 11 + left && pair[1][2] == 20 + left);
}

/* MPI_Alloc_mem memory is used in place. */
static void alloc_mem_window(void)
{
    int64_t *m;
    CHECK_RC(MPI_Alloc_mem(16 * sizeof(int64_t), MPI_INFO_NULL, &m));
    memset(m, 0, 16 * sizeof(int64_t));
    MPI_Win win;
    CHECK_RC(MPI_Win_create(m, 16 * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_RC(MPI_Win_fence(0, win));
    int64_t v = 40 + rank;
    CHECK_RC(MPI_Put(&v, 1, MPI_INT64_T, (rank + 1) % size, 3, 1, MPI_INT64_T, win));
    CHECK_RC(MPI_Win_fence(0, win));
    CHECK(m[3] == 40 + (rank + size - 1) % size);
    CHECK_RC(MPI_Win_free(&win));
    CHECK_RC(MPI_Free_mem(m));
}

/* Windows larger than the old 1 GiB heap, with no setting. */
static void big_windows(void)
{
    size_t n = (size_t)2 << 30;
    char *b = malloc(n);
    CHECK(b != NULL);
    b[n - 1] = 0;
    MPI_Win win;
    CHECK_RC(MPI_Win_create(b, n, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_RC(MPI_Win_lock_all(0, win));
    char v = 9;
    CHECK_RC(MPI_Put(&v, 1, MPI_CHAR, (rank + 1) % size, n - 1, 1, MPI_CHAR, win));
    CHECK_RC(MPI_Win_flush_all(win));
    CHECK_RC(MPI_Win_unlock_all(win));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(b[n - 1] == 9);
    CHECK_RC(MPI_Win_free(&win));
    free(b);

    size_t a = (size_t)4 << 30;
    char *base;
    CHECK_RC(MPI_Win_allocate(a, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    CHECK(base[0] == 0 && base[a - 1] == 0);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_RC(MPI_Win_lock_all(0, win));
    CHECK_RC(MPI_Put(&v, 1, MPI_CHAR, (rank + 1) % size, a - 1, 1, MPI_CHAR, win));
    CHECK_RC(MPI_Win_unlock_all(win));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(base[a - 1] == 9);
    CHECK_RC(MPI_Win_free(&win));
}

/* 1000 regions attached to one dynamic window. */
static void many_attached(void)
{
    enum { R = 1000 };
    MPI_Win win;
    CHECK_RC(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    int64_t *regs = calloc(R * 2, sizeof(int64_t)); /* every other int64: no two regions touch */
    CHECK(regs != NULL);
    for (int i = 0; i < R; i++)
        CHECK_RC(MPI_Win_attach(win, &regs[2 * i], sizeof(int64_t)));
    MPI_Aint mine, theirs;
    CHECK_RC(MPI_Get_address(&regs[2 * (R - 1)], &mine));
    int peer = (rank + 1) % size;
    CHECK_RC(MPI_Sendrecv(&mine, 1, MPI_AINT, (rank + size - 1) % size, 0, &theirs, 1, MPI_AINT, peer, 0,
                          MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, peer, 0, win));
    int64_t v = 77;
    CHECK_RC(MPI_Put(&v, 1, MPI_INT64_T, peer, theirs, 1, MPI_INT64_T, win));
    CHECK_RC(MPI_Win_unlock(peer, win));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
    CHECK_RC(MPI_Win_sync(win));
    CHECK_RC(MPI_Win_unlock(rank, win));
    CHECK(regs[2 * (R - 1)] == 77);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < R; i++)
        CHECK_RC(MPI_Win_detach(win, &regs[2 * i]));
    CHECK_RC(MPI_Win_free(&win));
    free(regs);
}

int main(int argc, char **argv)
{
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    unified_rounds();
    atomics_while_computing();
    free_before_win_free();
    alloc_mem_window();
    shared_page();
    many_attached();
    if (argc > 1 && strcmp(argv[1], "big") == 0)
        big_windows();
    printf("wincreate ok\n");
    CHECK_RC(MPI_Finalize());
    return 0;
}
