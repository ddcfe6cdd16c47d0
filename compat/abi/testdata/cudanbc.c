/* The collectives that run on host copies of device buffers (issue 22):
 * nonblocking (MPI_I*), persistent (MPI_*_init), neighborhood, MPI_Scan,
 * MPI_Exscan, MPI_Alltoallw, user ops, MPI_Pack/MPI_Unpack and
 * MPI_Reduce_local, for a library built with -tags cuda and run with
 * GSHMEM_HEAP=device. Each call runs twice, on host buffers and on
 * cuMemAlloc buffers (some calls with one of each, or MPI_IN_PLACE), and
 * the device result, read back with cuMemcpy, must equal the host result
 * byte for byte, the parts the call leaves alone included; the host results
 * are checked against values computed here. Before this library took
 * device buffers in these calls, each refused them with MPI_ERR_BUFFER
 * (fatal under the default handler). Build: cc cudanbc.c -I<include>
 * -L<lib> -lmpi_abi -lcuda. */
#include <stdint.h>
#include <string.h>
#include <cuda.h>
#include "check.h"

enum { M = 257, MAXP = 4, BIG = 70000 };
#define ALL (MAXP * M + 64)

static int rank, size, waits;
static CUdeviceptr ds, dr;       /* device send and receive buffers */
static int hs[ALL], hr[ALL];     /* host send and receive buffers */
static int got[ALL], want[ALL];  /* the device result read back, the expected */

static void put(CUdeviceptr d, const void *h, size_t n) { CHECK(cuMemcpyHtoD(d, h, n) == CUDA_SUCCESS); }
static void get(void *h, CUdeviceptr d, size_t n) { CHECK(cuMemcpyDtoH(h, d, n) == CUDA_SUCCESS); }
static void *D(CUdeviceptr p) { return (void *)(uintptr_t)p; }

static int val(int r, int salt, int i) { return r * 100003 + salt * 7919 + i % 1000 - 500; }

/* prep fills the send buffers (host and device alike) with this rank's
 * values and poisons both receive buffers. */
static void prep(int salt)
{
    for (int i = 0; i < ALL; i++) {
        hs[i] = val(rank, salt, i);
        hr[i] = -77;
    }
    put(ds, hs, sizeof hs);
    put(dr, hr, sizeof hr);
}

/* same checks the device receive buffer equals the host one, all of it. */
static void same(const char *what)
{
    get(got, dr, sizeof got);
    for (int i = 0; i < ALL; i++)
        if (got[i] != hr[i]) {
            fprintf(stderr, "rank %d: %s: device result [%d] = %d, host %d\n", rank, what, i, got[i], hr[i]);
            CHECK(0);
        }
}

/* expect checks the host result's first n ints. */
static void expect(const char *what, int n)
{
    for (int i = 0; i < n; i++)
        if (hr[i] != want[i]) {
            fprintf(stderr, "rank %d: %s: host result [%d] = %d, want %d\n", rank, what, i, hr[i], want[i]);
            CHECK(0);
        }
}

/* complete waits for a request, every other time by polling MPI_Test: the
 * device buffer must hold the result once either says it is complete. */
static void complete(MPI_Request *rq)
{
    if (waits++ % 2 == 0) {
        CHECK_RC(MPI_Wait(rq, MPI_STATUS_IGNORE));
    } else {
        int flag = 0;
        while (!flag)
            CHECK_RC(MPI_Test(rq, &flag, MPI_STATUS_IGNORE));
    }
    CHECK(*rq == MPI_REQUEST_NULL);
}

/* A user op that does not commute: inout = 3 * in + inout, so a wrong
 * order of the fold shows. Unsigned, so that it may wrap. */
static void affine(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    unsigned *a = in, *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] = 3u * a[i] + b[i];
}

static int csum(int upto, int salt, int i) /* sum of val over ranks 0..upto */
{
    int s = 0;
    for (int p = 0; p <= upto; p++)
        s += val(p, salt, i);
    return s;
}

static void nonblocking(void)
{
    MPI_Request rq;
    /* Ibcast from the last rank. */
    int root = size - 1;
    prep(1);
    if (rank == root) {
        memcpy(hr, hs, M * sizeof(int));
        put(dr, hr, M * sizeof(int));
    }
    CHECK_RC(MPI_Ibcast(hr, M, MPI_INT, root, MPI_COMM_WORLD, &rq));
    complete(&rq);
    CHECK_RC(MPI_Ibcast(D(dr), M, MPI_INT, root, MPI_COMM_WORLD, &rq));
    complete(&rq);
    for (int i = 0; i < M; i++)
        want[i] = val(root, 1, i);
    expect("MPI_Ibcast", M);
    same("MPI_Ibcast");

    /* Iallreduce: device to device, in place, and device to host. */
    prep(2);
    CHECK_RC(MPI_Iallreduce(hs, hr, M, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq));
    complete(&rq);
    CHECK_RC(MPI_Iallreduce(D(ds), D(dr), M, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq));
    complete(&rq);
    for (int i = 0; i < M; i++)
        want[i] = csum(size - 1, 2, i);
    expect("MPI_Iallreduce", M);
    same("MPI_Iallreduce");
    put(dr, hs, M * sizeof(int));
    CHECK_RC(MPI_Iallreduce(MPI_IN_PLACE, D(dr), M, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq));
    complete(&rq);
    same("MPI_Iallreduce in place");
    memset(got, 0, sizeof got);
    CHECK_RC(MPI_Iallreduce(D(ds), got, M, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq));
    complete(&rq);
    CHECK(memcmp(got, hr, M * sizeof(int)) == 0);

    /* Ireduce, max, to rank 1 % size; host send, device receive. */
    root = 1 % size;
    prep(3);
    CHECK_RC(MPI_Ireduce(hs, hr, M, MPI_INT, MPI_MAX, root, MPI_COMM_WORLD, &rq));
    complete(&rq);
    CHECK_RC(MPI_Ireduce(hs, D(dr), M, MPI_INT, MPI_MAX, root, MPI_COMM_WORLD, &rq));
    complete(&rq);
    if (rank == root) {
        for (int i = 0; i < M; i++)
            want[i] = val(size - 1, 3, i);
        expect("MPI_Ireduce", M);
    }
    same("MPI_Ireduce");

    /* Iallgather, then in place. */
    prep(4);
    CHECK_RC(MPI_Iallgather(hs, M, MPI_INT, hr, M, MPI_INT, MPI_COMM_WORLD, &rq));
    complete(&rq);
    CHECK_RC(MPI_Iallgather(D(ds), M, MPI_INT, D(dr), M, MPI_INT, MPI_COMM_WORLD, &rq));
    complete(&rq);
    for (int p = 0; p < size; p++)
        for (int i = 0; i < M; i++)
            want[p * M + i] = val(p, 4, i);
    expect("MPI_Iallgather", size * M);
    same("MPI_Iallgather");
    for (int i = 0; i < ALL; i++)
        got[i] = -77;
    memcpy(got + rank * M, hs, M * sizeof(int));
    put(dr, got, sizeof got);
    CHECK_RC(MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, D(dr), M, MPI_INT, MPI_COMM_WORLD, &rq));
    complete(&rq);
    same("MPI_Iallgather in place");

    /* Ialltoall. */
    prep(5);
    CHECK_RC(MPI_Ialltoall(hs, M, MPI_INT, hr, M, MPI_INT, MPI_COMM_WORLD, &rq));
    complete(&rq);
    CHECK_RC(MPI_Ialltoall(D(ds), M, MPI_INT, D(dr), M, MPI_INT, MPI_COMM_WORLD, &rq));
    complete(&rq);
    for (int p = 0; p < size; p++)
        for (int i = 0; i < M; i++)
            want[p * M + i] = val(p, 5, rank * M + i);
    expect("MPI_Ialltoall", size * M);
    same("MPI_Ialltoall");

    /* Igather to rank 0, then in place at the root. */
    prep(6);
    CHECK_RC(MPI_Igather(hs, M, MPI_INT, hr, M, MPI_INT, 0, MPI_COMM_WORLD, &rq));
    complete(&rq);
    CHECK_RC(MPI_Igather(D(ds), M, MPI_INT, D(dr), M, MPI_INT, 0, MPI_COMM_WORLD, &rq));
    complete(&rq);
    if (rank == 0) {
        for (int p = 0; p < size; p++)
            for (int i = 0; i < M; i++)
                want[p * M + i] = val(p, 6, i);
        expect("MPI_Igather", size * M);
    }
    same("MPI_Igather");
    if (rank == 0) {
        for (int i = 0; i < ALL; i++)
            got[i] = -77;
        memcpy(got, hs, M * sizeof(int));
        put(dr, got, sizeof got);
    }
    CHECK_RC(MPI_Igather(rank == 0 ? MPI_IN_PLACE : D(ds), M, MPI_INT, D(dr), M, MPI_INT, 0, MPI_COMM_WORLD, &rq));
    complete(&rq);
    same("MPI_Igather in place");

    /* Iscatter from rank 0. */
    prep(7);
    CHECK_RC(MPI_Iscatter(hs, M, MPI_INT, hr, M, MPI_INT, 0, MPI_COMM_WORLD, &rq));
    complete(&rq);
    CHECK_RC(MPI_Iscatter(D(ds), M, MPI_INT, D(dr), M, MPI_INT, 0, MPI_COMM_WORLD, &rq));
    complete(&rq);
    for (int i = 0; i < M; i++)
        want[i] = val(0, 7, rank * M + i);
    expect("MPI_Iscatter", M);
    same("MPI_Iscatter");

    /* Ialltoallv: rank i sends (i + j) % 3 + 1 ints to rank j, the blocks
     * one int apart in the receive buffer (the gaps stay poisoned). */
    int sc[MAXP], sd[MAXP], rc[MAXP], rd[MAXP];
    for (int j = 0; j < size; j++) {
        sc[j] = rc[j] = (rank + j) % 3 + 1;
        sd[j] = j * 5;
        rd[j] = j * 5 + 1;
    }
    prep(8);
    CHECK_RC(MPI_Ialltoallv(hs, sc, sd, MPI_INT, hr, rc, rd, MPI_INT, MPI_COMM_WORLD, &rq));
    complete(&rq);
    CHECK_RC(MPI_Ialltoallv(D(ds), sc, sd, MPI_INT, D(dr), rc, rd, MPI_INT, MPI_COMM_WORLD, &rq));
    complete(&rq);
    for (int i = 0; i < 5 * size + 1; i++)
        want[i] = -77;
    for (int p = 0; p < size; p++)
        for (int k = 0; k < rc[p]; k++)
            want[rd[p] + k] = val(p, 8, rank * 5 + k);
    expect("MPI_Ialltoallv", 5 * size + 1);
    same("MPI_Ialltoallv");

    /* Iallgatherv: rank p gives p + 1 ints at 2 * p * p. */
    int gc[MAXP], gd[MAXP];
    for (int p = 0; p < size; p++)
        gc[p] = p + 1, gd[p] = 2 * p * p;
    prep(9);
    CHECK_RC(MPI_Iallgatherv(hs, rank + 1, MPI_INT, hr, gc, gd, MPI_INT, MPI_COMM_WORLD, &rq));
    complete(&rq);
    CHECK_RC(MPI_Iallgatherv(D(ds), rank + 1, MPI_INT, D(dr), gc, gd, MPI_INT, MPI_COMM_WORLD, &rq));
    complete(&rq);
    same("MPI_Iallgatherv");

    /* Iscan and Iexscan, sum; Iexscan leaves rank 0's buffer alone. */
    prep(10);
    CHECK_RC(MPI_Iscan(hs, hr, M, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq));
    complete(&rq);
    CHECK_RC(MPI_Iscan(D(ds), D(dr), M, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq));
    complete(&rq);
    for (int i = 0; i < M; i++)
        want[i] = csum(rank, 10, i);
    expect("MPI_Iscan", M);
    same("MPI_Iscan");
    prep(11);
    CHECK_RC(MPI_Iexscan(hs, hr, M, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq));
    complete(&rq);
    CHECK_RC(MPI_Iexscan(D(ds), D(dr), M, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq));
    complete(&rq);
    for (int i = 0; i < M; i++)
        want[i] = rank == 0 ? -77 : csum(rank - 1, 11, i);
    expect("MPI_Iexscan", M);
    same("MPI_Iexscan");

    /* Ireduce_scatter_block, sum, in place on the device. */
    prep(12);
    CHECK_RC(MPI_Ireduce_scatter_block(hs, hr, M, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq));
    complete(&rq);
    for (int i = 0; i < M; i++)
        want[i] = csum(size - 1, 12, rank * M + i);
    expect("MPI_Ireduce_scatter_block", M);
    put(dr, hs, sizeof hs);
    CHECK_RC(MPI_Ireduce_scatter_block(MPI_IN_PLACE, D(dr), M, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq));
    complete(&rq);
    get(got, dr, M * sizeof(int));
    CHECK(memcmp(got, hr, M * sizeof(int)) == 0);

    /* Igatherv to the last rank and Iscatterv from it: rank p's p + 1 ints
     * at 2 * p * p (the gaps stay poisoned). */
    root = size - 1;
    prep(13);
    CHECK_RC(MPI_Igatherv(hs, rank + 1, MPI_INT, hr, gc, gd, MPI_INT, root, MPI_COMM_WORLD, &rq));
    complete(&rq);
    CHECK_RC(MPI_Igatherv(D(ds), rank + 1, MPI_INT, D(dr), gc, gd, MPI_INT, root, MPI_COMM_WORLD, &rq));
    complete(&rq);
    if (rank == root)
        for (int p = 0; p < size; p++)
            for (int k = 0; k <= p; k++)
                CHECK(hr[gd[p] + k] == val(p, 13, k));
    same("MPI_Igatherv");
    prep(14);
    CHECK_RC(MPI_Iscatterv(hs, gc, gd, MPI_INT, hr, rank + 1, MPI_INT, root, MPI_COMM_WORLD, &rq));
    complete(&rq);
    CHECK_RC(MPI_Iscatterv(D(ds), gc, gd, MPI_INT, D(dr), rank + 1, MPI_INT, root, MPI_COMM_WORLD, &rq));
    complete(&rq);
    for (int k = 0; k <= rank; k++)
        want[k] = val(root, 14, gd[rank] + k);
    expect("MPI_Iscatterv", rank + 1);
    same("MPI_Iscatterv");

    /* Ireduce_scatter, sum: rank p keeps p + 1 ints of the reduced vector. */
    prep(15);
    CHECK_RC(MPI_Ireduce_scatter(hs, hr, gc, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq));
    complete(&rq);
    CHECK_RC(MPI_Ireduce_scatter(D(ds), D(dr), gc, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq));
    complete(&rq);
    for (int k = 0; k <= rank; k++)
        want[k] = csum(size - 1, 15, rank * (rank + 1) / 2 + k);
    expect("MPI_Ireduce_scatter", rank + 1);
    same("MPI_Ireduce_scatter");

    /* Ialltoallw: the Ialltoallv layout with byte displacements. */
    MPI_Datatype ty[MAXP];
    int sdb[MAXP], rdb[MAXP];
    for (int j = 0; j < size; j++) {
        ty[j] = MPI_INT;
        sdb[j] = sd[j] * (int)sizeof(int);
        rdb[j] = rd[j] * (int)sizeof(int);
    }
    prep(16);
    CHECK_RC(MPI_Ialltoallw(hs, sc, sdb, ty, hr, rc, rdb, ty, MPI_COMM_WORLD, &rq));
    complete(&rq);
    CHECK_RC(MPI_Ialltoallw(D(ds), sc, sdb, ty, D(dr), rc, rdb, ty, MPI_COMM_WORLD, &rq));
    complete(&rq);
    for (int p = 0; p < size; p++)
        for (int k = 0; k < rc[p]; k++)
            CHECK(hr[rd[p] + k] == val(p, 16, rank * 5 + k));
    same("MPI_Ialltoallw");

    /* A large Iallreduce of floats (past the eager limit). */
    static float fs[BIG], fr[BIG], fg[BIG];
    CUdeviceptr fds, fdr;
    CHECK(cuMemAlloc(&fds, sizeof fs) == CUDA_SUCCESS && cuMemAlloc(&fdr, sizeof fr) == CUDA_SUCCESS);
    for (int i = 0; i < BIG; i++)
        fs[i] = (float)((i * 7 + rank * 13) % 1000) * 0.25f;
    put(fds, fs, sizeof fs);
    CHECK_RC(MPI_Iallreduce(fs, fr, BIG, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &rq));
    complete(&rq);
    CHECK_RC(MPI_Iallreduce(D(fds), D(fdr), BIG, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &rq));
    complete(&rq);
    get(fg, fdr, sizeof fg);
    CHECK(memcmp(fg, fr, sizeof fg) == 0);
    CHECK(cuMemFree(fds) == CUDA_SUCCESS && cuMemFree(fdr) == CUDA_SUCCESS);
}

/* A persistent collective started twice, its device input changed between
 * the starts: each start must read the input anew. */
static void persistent(void)
{
    MPI_Request rq, hq;
    prep(20);
    CHECK_RC(MPI_Allreduce_init(hs, hr, M, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &hq));
    CHECK_RC(MPI_Allreduce_init(D(ds), D(dr), M, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < M; i++)
            hs[i] = val(rank, 21 + round, i);
        put(ds, hs, M * sizeof(int));
        CHECK_RC(MPI_Start(&hq));
        CHECK_RC(MPI_Wait(&hq, MPI_STATUS_IGNORE));
        CHECK_RC(MPI_Start(&rq));
        if (round == 0) {
            CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        } else {
            int flag = 0;
            while (!flag)
                CHECK_RC(MPI_Test(&rq, &flag, MPI_STATUS_IGNORE));
        }
        CHECK(rq != MPI_REQUEST_NULL);
        for (int i = 0; i < M; i++)
            want[i] = csum(size - 1, 21 + round, i);
        expect("MPI_Allreduce_init", M);
        same("MPI_Allreduce_init");
    }
    CHECK_RC(MPI_Request_free(&rq));
    CHECK_RC(MPI_Request_free(&hq));

    /* A persistent broadcast, device buffer, started twice. */
    int root = size - 1;
    CHECK_RC(MPI_Bcast_init(D(dr), M, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < M; i++)
            hr[i] = rank == root ? val(root, 30 + round, i) : -77;
        put(dr, hr, M * sizeof(int));
        CHECK_RC(MPI_Start(&rq));
        CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        get(got, dr, M * sizeof(int));
        for (int i = 0; i < M; i++)
            CHECK(got[i] == val(root, 30 + round, i));
    }
    CHECK_RC(MPI_Request_free(&rq));
}

/* The blocking calls that run on host copies. */
static void blocking(void)
{
    /* Scan and Exscan, sum. */
    prep(40);
    CHECK_RC(MPI_Scan(hs, hr, M, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_RC(MPI_Scan(D(ds), D(dr), M, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < M; i++)
        want[i] = csum(rank, 40, i);
    expect("MPI_Scan", M);
    same("MPI_Scan");
    prep(41);
    CHECK_RC(MPI_Exscan(hs, hr, M, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_RC(MPI_Exscan(D(ds), D(dr), M, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    same("MPI_Exscan");
    put(dr, hs, M * sizeof(int));
    memcpy(got, hs, M * sizeof(int));
    CHECK_RC(MPI_Scan(MPI_IN_PLACE, D(dr), M, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_RC(MPI_Scan(MPI_IN_PLACE, got, M, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    memcpy(hr, got, M * sizeof(int));
    same("MPI_Scan in place");

    /* Alltoallw: the Ialltoallv layout with byte displacements. */
    int sc[MAXP], sd[MAXP], rc[MAXP], rd[MAXP];
    MPI_Datatype ty[MAXP];
    for (int j = 0; j < size; j++) {
        sc[j] = rc[j] = (rank + j) % 3 + 1;
        sd[j] = j * 5 * (int)sizeof(int);
        rd[j] = (j * 5 + 1) * (int)sizeof(int);
        ty[j] = MPI_INT;
    }
    prep(42);
    CHECK_RC(MPI_Alltoallw(hs, sc, sd, ty, hr, rc, rd, ty, MPI_COMM_WORLD));
    CHECK_RC(MPI_Alltoallw(D(ds), sc, sd, ty, D(dr), rc, rd, ty, MPI_COMM_WORLD));
    for (int p = 0; p < size; p++)
        for (int k = 0; k < rc[p]; k++)
            CHECK(hr[p * 5 + 1 + k] == val(p, 42, rank * 5 + k));
    same("MPI_Alltoallw");

    /* A small Allreduce (recursive doubling on a power-of-two size). */
    prep(43);
    CHECK_RC(MPI_Allreduce(hs, hr, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_RC(MPI_Allreduce(D(ds), D(dr), 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < 4; i++)
        want[i] = csum(size - 1, 43, i);
    expect("MPI_Allreduce of 4", 4);
    same("MPI_Allreduce of 4");
}

/* Neighborhood collectives on a periodic ring (a 1-D Cartesian
 * communicator): each rank gets the blocks of the ranks below and above. */
static void neighborhood(void)
{
    MPI_Comm cart;
    int dims[1] = {size}, periods[1] = {1};
    CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart));
    int me, below, above;
    CHECK_RC(MPI_Comm_rank(cart, &me));
    CHECK_RC(MPI_Cart_shift(cart, 0, 1, &below, &above));
    prep(50);
    CHECK_RC(MPI_Neighbor_allgather(hs, M, MPI_INT, hr, M, MPI_INT, cart));
    CHECK_RC(MPI_Neighbor_allgather(D(ds), M, MPI_INT, D(dr), M, MPI_INT, cart));
    for (int i = 0; i < M; i++) {
        want[i] = val(below, 50, i);
        want[M + i] = val(above, 50, i);
    }
    expect("MPI_Neighbor_allgather", 2 * M);
    same("MPI_Neighbor_allgather");
    MPI_Request rq;
    prep(51);
    CHECK_RC(MPI_Ineighbor_alltoall(hs, M, MPI_INT, hr, M, MPI_INT, cart, &rq));
    complete(&rq);
    CHECK_RC(MPI_Ineighbor_alltoall(D(ds), M, MPI_INT, D(dr), M, MPI_INT, cart, &rq));
    complete(&rq);
    same("MPI_Ineighbor_alltoall");
    prep(52);
    CHECK_RC(MPI_Ineighbor_allgather(D(ds), M, MPI_INT, hr, M, MPI_INT, cart, &rq));
    complete(&rq);
    for (int i = 0; i < M; i++) {
        want[i] = val(below, 52, i);
        want[M + i] = val(above, 52, i);
    }
    expect("MPI_Ineighbor_allgather from the device", 2 * M);
    CHECK_RC(MPI_Comm_free(&cart));
}

/* Reductions with a user op, and MPI_Reduce_local. */
static void userops(void)
{
    MPI_Op op;
    CHECK_RC(MPI_Op_create(affine, 0, &op));
    MPI_Request rq;
    prep(60);
    CHECK_RC(MPI_Allreduce(hs, hr, M, MPI_UNSIGNED, op, MPI_COMM_WORLD));
    CHECK_RC(MPI_Allreduce(D(ds), D(dr), M, MPI_UNSIGNED, op, MPI_COMM_WORLD));
    for (int i = 0; i < M; i++) { /* x0 op (x1 op (...)) */
        unsigned acc = (unsigned)val(size - 1, 60, i);
        for (int p = size - 2; p >= 0; p--)
            acc = 3u * (unsigned)val(p, 60, i) + acc;
        want[i] = (int)acc;
    }
    expect("MPI_Allreduce with a user op", M);
    same("MPI_Allreduce with a user op");
    put(dr, hs, M * sizeof(int));
    CHECK_RC(MPI_Allreduce(MPI_IN_PLACE, D(dr), M, MPI_UNSIGNED, op, MPI_COMM_WORLD));
    same("MPI_Allreduce in place with a user op");
    prep(61);
    CHECK_RC(MPI_Reduce(hs, hr, M, MPI_UNSIGNED, op, 0, MPI_COMM_WORLD));
    CHECK_RC(MPI_Reduce(D(ds), D(dr), M, MPI_UNSIGNED, op, 0, MPI_COMM_WORLD));
    same("MPI_Reduce with a user op");
    prep(62);
    CHECK_RC(MPI_Iallreduce(hs, hr, M, MPI_UNSIGNED, op, MPI_COMM_WORLD, &rq));
    complete(&rq);
    CHECK_RC(MPI_Iallreduce(D(ds), D(dr), M, MPI_UNSIGNED, op, MPI_COMM_WORLD, &rq));
    complete(&rq);
    same("MPI_Iallreduce with a user op");
    prep(63);
    CHECK_RC(MPI_Scan(hs, hr, M, MPI_UNSIGNED, op, MPI_COMM_WORLD));
    CHECK_RC(MPI_Scan(D(ds), D(dr), M, MPI_UNSIGNED, op, MPI_COMM_WORLD));
    same("MPI_Scan with a user op");

    /* Reduce_local: device to device with the user op and with MPI_SUM,
     * host into device. */
    prep(64);
    for (int i = 0; i < M; i++)
        hr[i] = i;
    put(dr, hr, M * sizeof(int));
    CHECK_RC(MPI_Reduce_local(hs, hr, M, MPI_UNSIGNED, op));
    CHECK_RC(MPI_Reduce_local(D(ds), D(dr), M, MPI_UNSIGNED, op));
    for (int i = 0; i < M; i++)
        want[i] = (int)(3u * (unsigned)val(rank, 64, i) + (unsigned)i);
    expect("MPI_Reduce_local with a user op", M);
    same("MPI_Reduce_local with a user op");
    CHECK_RC(MPI_Reduce_local(hs, hr, M, MPI_INT, MPI_SUM));
    CHECK_RC(MPI_Reduce_local(hs, D(dr), M, MPI_INT, MPI_SUM));
    same("MPI_Reduce_local MPI_SUM");
    CHECK_RC(MPI_Op_free(&op));
}

/* MPI_Pack and MPI_Unpack of a strided type between device buffers. */
static void packing(void)
{
    MPI_Datatype vec;
    CHECK_RC(MPI_Type_vector(4, 3, 5, MPI_INT, &vec)); /* 12 ints of 18, with gaps */
    CHECK_RC(MPI_Type_commit(&vec));
    int psize;
    CHECK_RC(MPI_Pack_size(2, vec, MPI_COMM_WORLD, &psize));
    CHECK(psize == 2 * 12 * (int)sizeof(int));
    prep(70);
    /* Pack two instances after 8 bytes already packed, on the host and on
     * the device, then unpack them into poisoned buffers. */
    static char hp[512], dp_host[512];
    CUdeviceptr dp;
    CHECK(cuMemAlloc(&dp, sizeof hp) == CUDA_SUCCESS);
    memset(hp, 0x5a, sizeof hp);
    put(dp, hp, sizeof hp);
    int hpos = 8, dpos = 8;
    CHECK_RC(MPI_Pack(hs, 2, vec, hp, sizeof hp, &hpos, MPI_COMM_WORLD));
    CHECK_RC(MPI_Pack(D(ds), 2, vec, D(dp), sizeof hp, &dpos, MPI_COMM_WORLD));
    CHECK(hpos == 8 + psize && dpos == hpos);
    get(dp_host, dp, sizeof dp_host);
    CHECK(memcmp(dp_host, hp, sizeof hp) == 0);
    for (int k = 0; k < 24; k++) { /* instance k / 12, block (k % 12) / 3 */
        int inst = k / 12, b = (k % 12) / 3, e = k % 3, v;
        memcpy(&v, hp + 8 + k * sizeof(int), sizeof v);
        CHECK(v == val(rank, 70, inst * 18 + b * 5 + e));
    }
    hpos = dpos = 8;
    CHECK_RC(MPI_Unpack(hp, sizeof hp, &hpos, hr, 2, vec, MPI_COMM_WORLD));
    CHECK_RC(MPI_Unpack(D(dp), sizeof hp, &dpos, D(dr), 2, vec, MPI_COMM_WORLD));
    CHECK(hpos == 8 + psize && dpos == hpos);
    for (int i = 0; i < 36; i++) /* the gaps stay poisoned */
        CHECK(hr[i] == ((i % 18) % 5 < 3 ? hs[i] : -77));
    same("MPI_Unpack");
    /* Device source into a host packed buffer, and back out of it. */
    memset(dp_host, 0x5a, sizeof dp_host);
    dpos = 8;
    CHECK_RC(MPI_Pack(D(ds), 2, vec, dp_host, sizeof dp_host, &dpos, MPI_COMM_WORLD));
    CHECK(memcmp(dp_host, hp, sizeof hp) == 0);
    CHECK(cuMemFree(dp) == CUDA_SUCCESS);
    CHECK_RC(MPI_Type_free(&vec));
}

int main(int argc, char **argv)
{
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size <= MAXP);
    /* The library made the GPU's primary context; use it here too. */
    CUdevice dev;
    CUcontext ctx;
    CHECK(cuInit(0) == CUDA_SUCCESS);
    CHECK(cuDeviceGet(&dev, 0) == CUDA_SUCCESS);
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev) == CUDA_SUCCESS);
    CHECK(cuCtxSetCurrent(ctx) == CUDA_SUCCESS);
    CHECK(cuMemAlloc(&ds, sizeof hs) == CUDA_SUCCESS && cuMemAlloc(&dr, sizeof hr) == CUDA_SUCCESS);

    nonblocking();
    persistent();
    blocking();
    neighborhood();
    userops();
    packing();

    CHECK(cuMemFree(ds) == CUDA_SUCCESS && cuMemFree(dr) == CUDA_SUCCESS);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("cudanbc: %d ranks, device buffers in the nonblocking, persistent and neighborhood collectives, "
               "Scan, Exscan, Alltoallw, user ops, Pack/Unpack and Reduce_local: ok\n",
               size);
    CHECK_RC(MPI_Finalize());
    return 0;
}
