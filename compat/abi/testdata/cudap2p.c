/* Point-to-point and RMA on device buffers through the ABI (a CUDA-aware
 * MPI), for a library built with -tags cuda and run with GSHMEM_HEAP=device:
 * Send/Recv, Isend/Irecv, Sendrecv, Sendrecv_replace, persistent requests
 * and Probe+Recv between device (cuMemAlloc), symmetric device (a device
 * window's memory) and host buffers on either side, at eager and rendezvous
 * sizes; put, get, accumulate, fetch-and-op and compare-and-swap on a window
 * whose memory is on the GPU (MPI_Win_allocate, info gshmem_memory=device)
 * and on a window created over cuMemAlloc memory; MPIX_Query_cuda_support.
 * Then CUDA IPC of cuMemAlloc buffers between processes (offsets, buffers
 * freed and allocated again, VMM memory IPC refuses) and MPI_Alloc_mem's
 * device and host memory (ipc_cases).
 * The program touches device memory only through cuMemcpy. Build: cc
 * cudap2p.c -I<include> -L<lib> -lmpi_abi -lcuda. */
#include <stdint.h>
#include <string.h>
#include <cuda.h>
#include <mpi-ext.h>
#include "check.h"

#if !defined(MPIX_CUDA_AWARE_SUPPORT) || !MPIX_CUDA_AWARE_SUPPORT
#error "mpi-ext.h of a CUDA-aware build must define MPIX_CUDA_AWARE_SUPPORT 1"
#endif

#define MAXB ((1 << 20) + 12) /* over four staging chunks of 256 KiB */

static CUdeviceptr dalloc(size_t n)
{
    CUdeviceptr p = 0;
    CHECK(cuMemAlloc(&p, n) == CUDA_SUCCESS);
    return p;
}

static void put(void *d, const void *h, size_t n) { CHECK(cuMemcpyHtoD((CUdeviceptr)(uintptr_t)d, h, n) == CUDA_SUCCESS); }
static void get(void *h, const void *d, size_t n) { CHECK(cuMemcpyDtoH(h, (CUdeviceptr)(uintptr_t)d, n) == CUDA_SUCCESS); }

static int is_device(const void *p)
{
    unsigned int t = 0;
    if (cuPointerGetAttribute(&t, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)p) != CUDA_SUCCESS)
        return 0;
    return t == CU_MEMORYTYPE_DEVICE;
}

/* A buffer of one kind: 'D' cuMemAlloc, 'S' symmetric device memory (a
 * device window's), 'H' host. */
struct buf {
    char kind;
    void *p;
};

static unsigned char pat(int src, int k, int i) { return (unsigned char)(src * 31 + k * 7 + i * 13 + (i >> 8)); }

static void fill(struct buf b, int src, int k, size_t n)
{
    static unsigned char h[MAXB];
    for (size_t i = 0; i < n; i++)
        h[i] = pat(src, k, (int)i);
    if (b.kind == 'H')
        memcpy(b.p, h, n);
    else
        put(b.p, h, n);
}

static void zero(struct buf b, size_t n)
{
    static unsigned char h[MAXB];
    memset(h, 0, n);
    if (b.kind == 'H')
        memset(b.p, 0, n);
    else
        put(b.p, h, n);
}

static void verify(struct buf b, int src, int k, size_t n)
{
    static unsigned char h[MAXB];
    if (b.kind == 'H')
        memcpy(h, b.p, n);
    else
        get(h, b.p, n);
    for (size_t i = 0; i < n; i++) {
        if (h[i] != pat(src, k, (int)i)) {
            fprintf(stderr, "byte %zu of %zu (case %d, kind %c): got %d want %d\n", i, n, k, b.kind, h[i], pat(src, k, (int)i));
            CHECK(h[i] == pat(src, k, (int)i));
        }
    }
}

static void check_status(MPI_Status *st, int src, size_t n)
{
    int count = -1;
    CHECK(st->MPI_SOURCE == src);
    CHECK_RC(MPI_Get_count(st, MPI_BYTE, &count));
    CHECK(count == (int)n);
}

/* One round: every rank sends n bytes from s to the next rank and receives
 * them from the previous into r (even ranks send first), then checks r. */
static void ring(int rank, int size, struct buf s, struct buf r, size_t n, int k)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    fill(s, rank, k, n);
    zero(r, n);
    MPI_Status st;
    for (int phase = 0; phase < 2; phase++) {
        if ((rank % 2 == 0) == (phase == 0))
            CHECK_RC(MPI_Send(s.p, (int)n, MPI_BYTE, next, k % 30000, MPI_COMM_WORLD));
        else
            CHECK_RC(MPI_Recv(r.p, (int)n, MPI_BYTE, prev, k % 30000, MPI_COMM_WORLD, &st));
    }
    check_status(&st, prev, n);
    verify(r, prev, k, n);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
}

/* Device memory from the virtual memory management API (cuMemCreate +
 * cuMemMap), which cuIpcGetMemHandle refuses: its large messages take the
 * staged path. */
static CUdeviceptr vmm_alloc(size_t n, CUmemGenericAllocationHandle *h, size_t *sz)
{
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t g = 0;
    CHECK(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) == CUDA_SUCCESS);
    *sz = (n + g - 1) / g * g;
    CHECK(cuMemCreate(h, *sz, &prop, 0) == CUDA_SUCCESS);
    CUdeviceptr p = 0;
    CHECK(cuMemAddressReserve(&p, *sz, 0, 0, 0) == CUDA_SUCCESS);
    CHECK(cuMemMap(p, *sz, 0, *h, 0) == CUDA_SUCCESS);
    CUmemAccessDesc a;
    memset(&a, 0, sizeof a);
    a.location = prop.location;
    a.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CHECK(cuMemSetAccess(p, *sz, &a, 1) == CUDA_SUCCESS);
    return p;
}

/* Large messages between cuMemAlloc buffers of different processes go by
 * CUDA IPC of the sender's allocation (compat/p2p_ipc.go); these check it
 * from inside an allocation, after the sender frees its buffer and
 * allocates another (of another size, maybe at the same address: the
 * receiver must not copy from its mapping of the old one), from memory
 * IPC cannot export, and MPI_Alloc_mem's device and host memory. Returns
 * the cases run. */
static int ipc_cases(int rank, int size, int *k, void *rbuf)
{
    int cases = 0;
    struct buf r = {'D', rbuf};
    /* From and into the middle of allocations. */
    CUdeviceptr a = dalloc(MAXB + 8192);
    ring(rank, size, (struct buf){'D', (void *)(uintptr_t)(a + 4096)}, (struct buf){'D', (char *)rbuf + 1000}, 300000, ++*k);
    cases++;
    /* Freed and allocated again: other sizes, the same address when the
     * allocator gives it back (it usually does for the same size). */
    const size_t again[] = {MAXB + 8192, 200000, MAXB + 8192, 1 << 20, MAXB};
    int same = 0;
    for (size_t i = 0; i < sizeof again / sizeof again[0]; i++) {
        CUdeviceptr old = a;
        CHECK(cuMemFree(a) == CUDA_SUCCESS);
        a = dalloc(again[i]);
        same += a == old;
        size_t n = again[i] < 300000 ? again[i] : 300000 + i;
        ring(rank, size, (struct buf){'D', (void *)(uintptr_t)a}, r, n, ++*k);
        cases++;
    }
    CHECK(cuMemFree(a) == CUDA_SUCCESS);
    /* The same buffer many times: one mapping, kept. */
    CUdeviceptr b = dalloc(MAXB);
    for (int i = 0; i < 20; i++, cases++)
        ring(rank, size, (struct buf){'D', (void *)(uintptr_t)b}, r, 65536 + i, ++*k);
    CHECK(cuMemFree(b) == CUDA_SUCCESS);
    /* MPI_Alloc_mem: device memory when info asks for it, else host. */
    MPI_Info di, ki;
    CHECK_RC(MPI_Info_create(&di));
    CHECK_RC(MPI_Info_set(di, "gshmem_memory", "device"));
    CHECK_RC(MPI_Info_create(&ki));
    CHECK_RC(MPI_Info_set(ki, "mpi_assert_memory_alloc_kinds", "cuda:device"));
    void *md = NULL, *mk = NULL, *mh = NULL;
    CHECK_RC(MPI_Alloc_mem(MAXB, di, &md));
    CHECK_RC(MPI_Alloc_mem(4096, ki, &mk));
    CHECK_RC(MPI_Alloc_mem(MAXB, MPI_INFO_NULL, &mh));
    CHECK(is_device(md) && is_device(mk) && !is_device(mh));
    const size_t sizes[] = {8, 4096, 65536, MAXB};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        ring(rank, size, (struct buf){'D', md}, r, sizes[i], ++*k);
        ring(rank, size, r, (struct buf){'D', md}, sizes[i], ++*k);
        ring(rank, size, (struct buf){'H', mh}, (struct buf){'D', md}, sizes[i], ++*k);
        ring(rank, size, (struct buf){'D', md}, (struct buf){'H', mh}, sizes[i], ++*k);
        cases += 4;
    }
    ring(rank, size, (struct buf){'D', mk}, r, 4096, ++*k);
    cases++;
    CHECK_RC(MPI_Free_mem(md));
    CHECK_RC(MPI_Free_mem(mk));
    CHECK_RC(MPI_Free_mem(mh));
    /* Device memory again, maybe where MPI_Alloc_mem's was. */
    CUdeviceptr c = dalloc(MAXB);
    ring(rank, size, (struct buf){'D', (void *)(uintptr_t)c}, r, MAXB, ++*k);
    cases++;
    CHECK(cuMemFree(c) == CUDA_SUCCESS);
    CHECK_RC(MPI_Info_free(&di));
    CHECK_RC(MPI_Info_free(&ki));
    if (rank == 0) {
        printf("cudap2p: IPC, reuse and MPI_Alloc_mem: %d cases ok\n", cases);
        fflush(stdout);
    }
    /* VMM memory: cuIpcGetMemHandle refuses it; staged instead. */
    CUmemGenericAllocationHandle h;
    size_t vsz = 0;
    CUdeviceptr v = vmm_alloc(MAXB, &h, &vsz);
    CHECK(is_device((void *)(uintptr_t)v));
    ring(rank, size, (struct buf){'D', (void *)(uintptr_t)v}, r, MAXB, ++*k);
    ring(rank, size, r, (struct buf){'D', (void *)(uintptr_t)v}, 100000, ++*k);
    cases += 2;
    CHECK(cuMemUnmap(v, vsz) == CUDA_SUCCESS && cuMemAddressFree(v, vsz) == CUDA_SUCCESS && cuMemRelease(h) == CUDA_SUCCESS);
    if (rank == 0)
        printf("cudap2p: with VMM memory (staged): %d cases ok (a freed buffer's address given back %d of 5 times)\n", cases, same);
    return cases;
}

int main(int argc, char **argv)
{
    int rank, size;
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(MPIX_Query_cuda_support() == 1);
    CUdevice dev;
    CUcontext ctx;
    CHECK(cuInit(0) == CUDA_SUCCESS);
    CHECK(cuDeviceGet(&dev, 0) == CUDA_SUCCESS);
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev) == CUDA_SUCCESS);
    CHECK(cuCtxSetCurrent(ctx) == CUDA_SUCCESS);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;

    /* Device memory in the symmetric heap: two device windows' memory. */
    MPI_Info info;
    CHECK_RC(MPI_Info_create(&info));
    CHECK_RC(MPI_Info_set(info, "gshmem_memory", "device"));
    void *sym[2];
    MPI_Win symwin[2];
    for (int i = 0; i < 2; i++) {
        CHECK_RC(MPI_Win_allocate(MAXB, 1, info, MPI_COMM_WORLD, &sym[i], &symwin[i]));
        CHECK(is_device(sym[i]));
    }
    void *dbuf[2] = {(void *)(uintptr_t)dalloc(MAXB), (void *)(uintptr_t)dalloc(MAXB)};
    void *hbuf[2] = {malloc(MAXB), malloc(MAXB)};
    CHECK(hbuf[0] && hbuf[1]);

    const char kinds[] = "DSH";
    const size_t sizes[] = {8, 4000, 8192, 100000, MAXB};
    int k = 0, cases = 0;
    for (int si = 0; si < 3; si++)
        for (int ri = 0; ri < 3; ri++)
            for (size_t zi = 0; zi < sizeof sizes / sizeof sizes[0]; zi++)
                for (int call = 0; call < 6; call++) {
                    size_t n = sizes[zi];
                    k++;
                    char sk = kinds[si], rk = kinds[ri];
                    struct buf s = {sk, sk == 'D' ? dbuf[0] : sk == 'S' ? sym[0] : hbuf[0]};
                    struct buf r = {rk, rk == 'D' ? dbuf[1] : rk == 'S' ? sym[1] : hbuf[1]};
                    fill(s, rank, k, n);
                    zero(r, n);
                    MPI_Status st;
                    int tag = k % 30000;
                    switch (call) {
                    case 0: /* Send/Recv, even ranks first */
                    case 1: /* Probe + Recv */
                        for (int phase = 0; phase < 2; phase++) {
                            if ((rank % 2 == 0) == (phase == 0)) {
                                CHECK_RC(MPI_Send(s.p, (int)n, MPI_BYTE, next, tag, MPI_COMM_WORLD));
                            } else {
                                if (call == 1) {
                                    CHECK_RC(MPI_Probe(prev, tag, MPI_COMM_WORLD, &st));
                                    check_status(&st, prev, n);
                                }
                                CHECK_RC(MPI_Recv(r.p, (int)n, MPI_BYTE, prev, tag, MPI_COMM_WORLD, &st));
                            }
                        }
                        break;
                    case 2: { /* Isend/Irecv */
                        MPI_Request q[2];
                        MPI_Status sts[2];
                        CHECK_RC(MPI_Irecv(r.p, (int)n, MPI_BYTE, prev, tag, MPI_COMM_WORLD, &q[0]));
                        CHECK_RC(MPI_Isend(s.p, (int)n, MPI_BYTE, next, tag, MPI_COMM_WORLD, &q[1]));
                        CHECK_RC(MPI_Waitall(2, q, sts));
                        st = sts[0];
                        break;
                    }
                    case 3:
                        CHECK_RC(MPI_Sendrecv(s.p, (int)n, MPI_BYTE, next, tag, r.p, (int)n, MPI_BYTE, prev, tag, MPI_COMM_WORLD, &st));
                        break;
                    case 4: /* Sendrecv_replace: the send buffer receives */
                        CHECK_RC(MPI_Sendrecv_replace(s.p, (int)n, MPI_BYTE, next, tag, prev, tag, MPI_COMM_WORLD, &st));
                        r = s;
                        break;
                    case 5: { /* persistent, started twice */
                        MPI_Request q[2];
                        MPI_Status sts[2];
                        CHECK_RC(MPI_Recv_init(r.p, (int)n, MPI_BYTE, prev, tag, MPI_COMM_WORLD, &q[0]));
                        CHECK_RC(MPI_Send_init(s.p, (int)n, MPI_BYTE, next, tag, MPI_COMM_WORLD, &q[1]));
                        for (int it = 0; it < 2; it++) {
                            if (it == 1)
                                zero(r, n);
                            CHECK_RC(MPI_Startall(2, q));
                            CHECK_RC(MPI_Waitall(2, q, sts));
                        }
                        CHECK_RC(MPI_Request_free(&q[0]));
                        CHECK_RC(MPI_Request_free(&q[1]));
                        st = sts[0];
                        break;
                    }
                    }
                    check_status(&st, prev, n);
                    verify(r, prev, k, n);
                    cases++;
                    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
                }

    /* A buffered send from device memory, a matched probe delivered into
     * device memory, MPI_Isendrecv_replace on device memory. */
    {
        const size_t n = 100000;
        struct buf s = {'D', dbuf[0]}, r = {'D', dbuf[1]};
        MPI_Status st;
        k++;
        fill(s, rank, k, n);
        zero(r, n);
        int bsz = (int)n + MPI_BSEND_OVERHEAD;
        void *att = malloc((size_t)bsz);
        CHECK(att != NULL);
        CHECK_RC(MPI_Buffer_attach(att, bsz));
        CHECK_RC(MPI_Bsend(s.p, (int)n, MPI_BYTE, next, 7, MPI_COMM_WORLD));
        MPI_Message msg;
        CHECK_RC(MPI_Mprobe(prev, 7, MPI_COMM_WORLD, &msg, &st));
        CHECK_RC(MPI_Mrecv(r.p, (int)n, MPI_BYTE, &msg, &st));
        check_status(&st, prev, n);
        verify(r, prev, k, n);
        CHECK_RC(MPI_Buffer_detach(&att, &bsz));
        free(att);
        k++;
        fill(s, rank, k, n);
        MPI_Request q;
        CHECK_RC(MPI_Isendrecv_replace(s.p, (int)n, MPI_BYTE, next, 8, prev, 8, MPI_COMM_WORLD, &q));
        CHECK_RC(MPI_Wait(&q, &st));
        check_status(&st, prev, n);
        verify(s, prev, k, n);
        cases += 2;
        CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    }

    /* A window on the GPU: fence epochs. */
    enum { W = 4096 };
    int *wbase;
    MPI_Win win;
    CHECK_RC(MPI_Win_allocate(W * sizeof(int), sizeof(int), info, MPI_COMM_WORLD, &wbase, &win));
    CHECK(is_device(wbase));
    {
        int flag = 0;
        MPI_Info got;
        char val[32];
        CHECK_RC(MPI_Win_get_info(win, &got));
        CHECK_RC(MPI_Info_get(got, "gshmem_memory", sizeof val - 1, val, &flag));
        CHECK(flag && strcmp(val, "device") == 0);
        CHECK_RC(MPI_Info_free(&got));
    }
    static int hv[W], hw[W];
    int *dorig = (int *)(uintptr_t)dalloc(W * sizeof(int)), *dres = (int *)(uintptr_t)dalloc(W * sizeof(int));
    for (int i = 0; i < W; i++)
        hv[i] = rank * 100000 + i;
    put(dorig, hv, sizeof hv);
    CHECK_RC(MPI_Win_fence(0, win));
    /* First half from a device origin, second half from a host one. */
    CHECK_RC(MPI_Put(dorig, W / 2, MPI_INT, next, 0, W / 2, MPI_INT, win));
    CHECK_RC(MPI_Put(hv + W / 2, W / 2, MPI_INT, next, W / 2, W / 2, MPI_INT, win));
    CHECK_RC(MPI_Win_fence(0, win));
    get(hw, wbase, sizeof hw);
    for (int i = 0; i < W; i++)
        CHECK(hw[i] == prev * 100000 + i);
    /* Get into a device result and into a host one. */
    CHECK_RC(MPI_Get(dres, W, MPI_INT, next, 0, W, MPI_INT, win));
    CHECK_RC(MPI_Get(hw, 8, MPI_INT, next, 0, 8, MPI_INT, win));
    CHECK_RC(MPI_Win_fence(0, win));
    for (int i = 0; i < 8; i++)
        CHECK(hw[i] == rank * 100000 + i);
    get(hw, dres, sizeof hw);
    for (int i = 0; i < W; i++)
        CHECK(hw[i] == rank * 100000 + i);
    /* Accumulate from every rank into rank 0, from a device origin. */
    for (int i = 0; i < W; i++)
        hv[i] = rank + i;
    put(dorig, hv, sizeof hv);
    if (rank == 0) {
        memset(hw, 0, sizeof hw);
        put(wbase, hw, sizeof hw);
    }
    CHECK_RC(MPI_Win_fence(0, win));
    CHECK_RC(MPI_Accumulate(dorig, W, MPI_INT, 0, 0, W, MPI_INT, MPI_SUM, win));
    CHECK_RC(MPI_Win_fence(0, win));
    if (rank == 0) {
        get(hw, wbase, sizeof hw);
        for (int i = 0; i < W; i++)
            CHECK(hw[i] == size * i + size * (size - 1) / 2);
    }
    CHECK_RC(MPI_Win_fence(0, win));
    /* Passive target: fetch-and-op and compare-and-swap on rank 0's word 0,
     * which its owner zeroes first. */
    if (rank == 0) {
        int z = 0;
        put(wbase, &z, sizeof z);
        /* The others read it after a plain barrier, no window call: the
         * copy must have landed (a cuMemcpy from pageable memory may return
         * before it does; the window's own synchronization calls wait for
         * such copies, MPI_Barrier does not). */
        CHECK(cuCtxSynchronize() == CUDA_SUCCESS);
    }
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    int one = 1, old = -1;
    CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    CHECK_RC(MPI_Fetch_and_op(&one, &old, MPI_INT, 0, 0, MPI_SUM, win));
    CHECK_RC(MPI_Win_unlock(0, win));
    CHECK(old >= 0 && old < size);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        int cmp = size, nv = -7, prior = 0;
        CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        CHECK_RC(MPI_Compare_and_swap(&nv, &cmp, &prior, MPI_INT, 0, 0, win));
        CHECK_RC(MPI_Win_unlock(0, win));
        CHECK(prior == size);
        get(hw, wbase, sizeof(int));
        CHECK(hw[0] == -7);
    }
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    /* Lock, put 8 B from a device origin, flush, unlock. */
    CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, 0, win));
    CHECK_RC(MPI_Put(dorig, 2, MPI_INT, next, 100, 2, MPI_INT, win));
    CHECK_RC(MPI_Win_flush(next, win));
    CHECK_RC(MPI_Win_unlock(next, win));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    get(hw, wbase + 100, 2 * sizeof(int));
    CHECK(hw[0] == prev + 0 && hw[1] == prev + 1);
    CHECK_RC(MPI_Win_free(&win));

    /* A window created over cuMemAlloc memory (the separate model). */
    int *cbase = (int *)(uintptr_t)dalloc(W * sizeof(int));
    for (int i = 0; i < W; i++)
        hv[i] = -1;
    put(cbase, hv, sizeof hv);
    CHECK_RC(MPI_Win_create(cbase, W * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    for (int i = 0; i < W; i++)
        hv[i] = rank * 1000 + i;
    put(dorig, hv, sizeof hv);
    CHECK_RC(MPI_Win_fence(0, win));
    CHECK_RC(MPI_Put(dorig, W / 2, MPI_INT, next, W / 2, W / 2, MPI_INT, win));
    CHECK_RC(MPI_Win_fence(0, win));
    get(hw, cbase, sizeof hw);
    for (int i = 0; i < W; i++)
        CHECK(hw[i] == (i < W / 2 ? -1 : prev * 1000 + i - W / 2));
    CHECK_RC(MPI_Win_free(&win));

    for (int i = 0; i < 2; i++)
        CHECK_RC(MPI_Win_free(&symwin[i]));
    CHECK_RC(MPI_Info_free(&info));
    /* The nonblocking collectives and MPI_Scan take device buffers too
     * (over host copies; cudanbc.c checks each such call), and host
     * buffers still go through. */
    {
        MPI_Request rq = MPI_REQUEST_NULL;
        int one = 1, sum = 0;
        put(dbuf[0], &one, sizeof one);
        CHECK_RC(MPI_Iallreduce(dbuf[0], dbuf[1], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq));
        CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        get(&sum, dbuf[1], sizeof sum);
        CHECK(sum == size);
        CHECK_RC(MPI_Scan(dbuf[0], dbuf[1], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        get(&sum, dbuf[1], sizeof sum);
        CHECK(sum == rank + 1);
        int in = 1, out = 0;
        CHECK_RC(MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq));
        CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        CHECK(out == size);
    }
    /* The rooted and v-collectives run on host copies of device buffers:
     * MPI_Gather, MPI_Alltoallv and MPI_Reduce_scatter_block between
     * cuMemAlloc buffers, checked against what each rank sent. */
    {
        int hs[64], hr[64];
        CHECK(size <= 64);
        for (int i = 0; i < size; i++)
            hs[i] = rank * 100 + i;
        put(dbuf[0], hs, size * sizeof(int));
        memset(hr, 0xff, sizeof hr);
        put(dbuf[1], hr, size * sizeof(int));
        CHECK_RC(MPI_Gather(dbuf[0], 1, MPI_INT, dbuf[1], 1, MPI_INT, 0, MPI_COMM_WORLD));
        if (rank == 0) {
            get(hr, dbuf[1], size * sizeof(int));
            for (int i = 0; i < size; i++)
                CHECK(hr[i] == i * 100);
        }
        int counts[64], displs[64];
        for (int i = 0; i < size; i++)
            counts[i] = 1, displs[i] = i;
        CHECK_RC(MPI_Alltoallv(dbuf[0], counts, displs, MPI_INT, dbuf[1], counts, displs, MPI_INT, MPI_COMM_WORLD));
        get(hr, dbuf[1], size * sizeof(int));
        for (int i = 0; i < size; i++)
            CHECK(hr[i] == i * 100 + rank);
        CHECK_RC(MPI_Reduce_scatter_block(dbuf[0], dbuf[1], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        int sum = 0;
        get(&sum, dbuf[1], sizeof sum);
        CHECK(sum == 100 * size * (size - 1) / 2 + size * rank);
    }
    cases += ipc_cases(rank, size, &k, dbuf[1]);
    CHECK(cuMemFree((CUdeviceptr)(uintptr_t)dbuf[0]) == CUDA_SUCCESS && cuMemFree((CUdeviceptr)(uintptr_t)dbuf[1]) == CUDA_SUCCESS);
    CHECK(cuMemFree((CUdeviceptr)(uintptr_t)dorig) == CUDA_SUCCESS && cuMemFree((CUdeviceptr)(uintptr_t)dres) == CUDA_SUCCESS);
    CHECK(cuMemFree((CUdeviceptr)(uintptr_t)cbase) == CUDA_SUCCESS);
    free(hbuf[0]);
    free(hbuf[1]);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("cudap2p: %d ranks, %d point-to-point cases and device windows through the ABI: ok\n", size, cases);
    CHECK_RC(MPI_Finalize());
    return 0;
}
