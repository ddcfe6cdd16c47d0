/* OpenSHMEM 1.5 (shmem.h) under oshrun: RMA, atomics, waits, signals,
 * contexts, teams, collectives (team-based and active-set with pSync) and
 * locks, on the symmetric heap and on the program's own globals and
 * statics, with the typed, the C11 generic and the deprecated names.
 *
 * oshmem [shm|any] [start_pes|exit|bad-*]: shm asks shmem_ptr to reach
 * every PE (one node, mapped); start_pes starts with the deprecated call;
 * exit ends the job by shmem_global_exit(7) from the last PE; bad-pe,
 * bad-addr, bad-set, bad-psync and bad-ctx make PE 1 pass a bad argument. */
#include <complex.h>
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, npes;

#define CHECK(c)                                                                                   \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fprintf(stderr, "PE %d: %s:%d: check failed: %s\n", me, __FILE__, __LINE__, #c);      \
            shmem_global_exit(2);                                                                  \
        }                                                                                          \
    } while (0)

/* Globals and statics: .data and .bss. */
int data_init[4] = {11, 22, 33, 44};
static unsigned char bytes[8192];
static char big[1 << 20]; /* a megabyte of .bss: its far end is symmetric too */
static long counter;
static unsigned long bits;
static float fl;
static long flag;
static int flags[4];
static uint64_t sig;
static long lock;
static long shared_count;
static long ps_bar[SHMEM_BARRIER_SYNC_SIZE], ps_bc[SHMEM_BCAST_SYNC_SIZE], ps_col[SHMEM_COLLECT_SYNC_SIZE];
static long ps_red[SHMEM_REDUCE_SYNC_SIZE], ps_a2a[SHMEM_ALLTOALL_SYNC_SIZE];
static int iwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 8];
static double dwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 8];
static long src64[64], dst64[64 * 8];
static int src32[64], dst32[64 * 8];
static double dsrc[4], ddst[4];
static long double ldsrc[3], lddst[3];
static double _Complex csrc[2], cdst[2];

static unsigned char pattern(int pe, size_t len, size_t align, size_t i) { return (unsigned char)(pe * 31 + len * 7 + align * 3 + i); }

/* Put and get of every small size and alignment into a static array. */
static void rma_sizes(void)
{
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    static const size_t lens[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 64, 100, 1000, 4000};
    unsigned char src[4096], back[4096];
    for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++) {
        for (size_t a = 0; a < 4; a++) {
            size_t len = lens[l];
            for (size_t i = 0; i < len; i++)
                src[i] = pattern(me, len, a, i);
            shmem_putmem(bytes + a, src, len, right);
            shmem_barrier_all();
            for (size_t i = 0; i < len; i++)
                CHECK(bytes[a + i] == pattern(left, len, a, i));
            shmem_getmem(back, bytes + a, len, right);
            for (size_t i = 0; i < len; i++)
                CHECK(back[i] == pattern(me, len, a, i));
            shmem_barrier_all();
        }
    }
}

static void rma_typed(int *heap)
{
    long tail = 1000 + me, back = 0;
    shmem_putmem(big + sizeof big - 8, &tail, 8, (me + 1) % npes);
    shmem_barrier_all();
    shmem_getmem(&back, big + sizeof big - 8, 8, me);
    CHECK(back == 1000 + (me + npes - 1) % npes);
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    int src[8];
    for (int i = 0; i < 8; i++)
        src[i] = me * 100 + i;
    shmem_int_put(heap, src, 8, right);
    shmem_put((int *)bytes, src, 8, right); /* generic */
    shmem_p(&data_init[3], me, right);
    shmem_int_put_nbi(heap + 8, src, 8, right);
    shmem_quiet();
    shmem_barrier_all();
    for (int i = 0; i < 8; i++) {
        CHECK(heap[i] == left * 100 + i);
        CHECK(heap[8 + i] == left * 100 + i);
        CHECK(((int *)bytes)[i] == left * 100 + i);
    }
    CHECK(data_init[3] == left);
    CHECK(shmem_g(&data_init[3], right) == me);
    CHECK(shmem_int_g(heap, right) == me * 100);
    double d = 2.5, dv[2];
    shmem_double_p(&dsrc[0], d + me, right);
    shmem_barrier_all();
    CHECK(dsrc[0] == d + left);
    shmem_get(dv, dsrc, 1, right);
    CHECK(dv[0] == d + me);
    long double ld = 1.25L * me;
    shmem_longdouble_put(&ldsrc[1], &ld, 1, right);
    shmem_barrier_all();
    CHECK(ldsrc[1] == 1.25L * left);
    /* Strided: every other int. */
    int s8[8] = {0}, g8[8] = {0};
    for (int i = 0; i < 8; i++)
        s8[i] = me + i;
    shmem_int_iput((int *)(bytes + 1024), s8, 2, 1, 4, right);
    shmem_barrier_all();
    for (int i = 0; i < 4; i++)
        CHECK(((int *)(bytes + 1024))[2 * i] == left + i);
    shmem_iget(g8, (int *)(bytes + 1024), 1, 2, 4, right);
    for (int i = 0; i < 4; i++)
        CHECK(g8[i] == me + i);
    shmem_barrier_all();
}

static void atomics(void)
{
    int right = (me + 1) % npes;
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0);
    shmem_atomic_fetch_add(&counter, (long)me + 1, 0);
    shmem_atomic_inc(ctx, &counter, 0); /* generic with a context */
    shmem_long_atomic_add(&counter, 10, 0);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    long want = (long)npes * (npes + 1) / 2 + 11L * npes;
    CHECK(shmem_atomic_fetch(&counter, 0) == want);
    long old = -1;
    shmem_atomic_fetch_nbi(&old, &counter, 0);
    shmem_quiet();
    CHECK(old == want);
    shmem_barrier_all();
    if (me == 0) {
        CHECK(shmem_atomic_compare_swap(&counter, want, 5L, 0) == want);
        CHECK(shmem_long_atomic_swap(&counter, 6, 0) == 5);
        shmem_atomic_set(&counter, 0L, 0);
    }
    shmem_barrier_all();
    shmem_atomic_or(&bits, 1UL << me, 0);
    shmem_ulong_atomic_fetch_xor(&bits, 1UL << 40, right);
    shmem_barrier_all();
    if (me == 0)
        CHECK(shmem_atomic_fetch(&bits, 0) == (((1UL << npes) - 1) | 1UL << 40));
    shmem_atomic_set(ctx, &fl, 1.5f + me, right);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    CHECK(fl == 1.5f + (me + npes - 1) % npes);
    CHECK(shmem_float_atomic_fetch(&fl, right) == 1.5f + me);
    /* The OpenSHMEM 1.3 names. */
    shmem_barrier_all();
    shmem_long_finc(&counter, 0);
    shmem_long_add(&counter, 2, 0);
    shmem_barrier_all();
    if (me == 0)
        CHECK(shmem_long_fetch(&counter, 0) == 3L * npes);
    shmem_barrier_all();
    shmem_ctx_destroy(ctx);
    /* On SHMEM_CTX_INVALID, these do nothing. */
    shmem_ctx_quiet(SHMEM_CTX_INVALID);
    shmem_ctx_fence(SHMEM_CTX_INVALID);
    shmem_ctx_destroy(SHMEM_CTX_INVALID);
}

static void waits_and_signals(long *heap)
{
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    shmem_long_atomic_set(&flag, left == me ? 1 : me + 1, right);
    shmem_wait_until(&flag, SHMEM_CMP_EQ, (long)left + 1);
    CHECK(shmem_test(&flag, SHMEM_CMP_EQ, (long)left + 1));
    CHECK(!shmem_long_test(&flag, SHMEM_CMP_GT, (long)left + 1));
    /* An array: each PE sets its slot on every PE. */
    for (int p = 0; p < npes; p++)
        shmem_int_atomic_set(&flags[me % 4], 1, p);
    int status[4] = {0, 0, 0, 0};
    for (int i = npes; i < 4; i++)
        status[i] = 1; /* slots no PE sets */
    shmem_int_wait_until_all(flags, 4, status, SHMEM_CMP_EQ, 1);
    CHECK(shmem_test_any(flags, 4, status, SHMEM_CMP_EQ, 1) < 4);
    /* Fair: repeated tests find every element that holds. */
    int found[4] = {0, 0, 0, 0}, nfound = 0;
    for (int i = 0; i < 64 && nfound < npes; i++) {
        size_t k = shmem_test_any(flags, 4, status, SHMEM_CMP_EQ, 1);
        CHECK(k < (size_t)npes);
        nfound += !found[k];
        found[k] = 1;
    }
    CHECK(nfound == npes);
    shmem_barrier_all();
    /* Put with signal into the heap, the signal a global. */
    long src[4] = {me, me + 1, me + 2, me + 3};
    shmem_long_put_signal(heap, src, 4, &sig, 1, SHMEM_SIGNAL_ADD, right);
    CHECK(shmem_signal_wait_until(&sig, SHMEM_CMP_GE, 1) >= 1);
    for (int i = 0; i < 4; i++)
        CHECK(heap[i] == left + i);
    CHECK(shmem_signal_fetch(&sig) == 1);
    shmem_barrier_all();
    /* Deprecated waits. */
    shmem_long_atomic_set(&flag, 0, right);
    shmem_barrier_all();
    shmem_long_atomic_set(&flag, 42, right);
    shmem_long_wait(&flag, 0);
    shmem_wait_until(&flag, SHMEM_CMP_EQ, 42L);
    shmem_barrier_all();
}

static void pointers(int want_mapped)
{
    int right = (me + 1) % npes;
    long here = 0;
    CHECK(shmem_addr_accessible(&counter, right));
    CHECK(shmem_addr_accessible(bytes + 100, right));
    CHECK(!shmem_addr_accessible(&here, right));
    CHECK(shmem_ptr(&counter, me) == &counter);
    shmem_barrier_all();
    counter = 1000 + me;
    shmem_barrier_all();
    long *p = shmem_ptr(&counter, right);
    if (want_mapped)
        CHECK(p != NULL);
    if (p != NULL)
        CHECK(*p == 1000 + right);
    shmem_barrier_all();
    counter = 0;
    shmem_barrier_all();
}

static void teams_and_contexts(void)
{
    shmem_team_t even = SHMEM_TEAM_INVALID;
    shmem_team_config_t cfg = {1};
    int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, &cfg, SHMEM_TEAM_NUM_CONTEXTS, &even);
    CHECK(rc == 0);
    CHECK(shmem_team_n_pes(SHMEM_TEAM_WORLD) == npes);
    CHECK(shmem_team_my_pe(SHMEM_TEAM_WORLD) == me);
    if (me % 2 == 0) {
        int tn = shmem_team_n_pes(even), tme = shmem_team_my_pe(even);
        CHECK(tn == (npes + 1) / 2 && tme == me / 2);
        CHECK(shmem_team_translate_pe(even, tme, SHMEM_TEAM_WORLD) == me);
        shmem_ctx_t ctx;
        CHECK(shmem_team_create_ctx(even, 0, &ctx) == 0);
        shmem_team_t got;
        CHECK(shmem_ctx_get_team(ctx, &got) == 0 && got == even);
        /* The context's PEs are the team's. */
        int v = 500 + me;
        shmem_ctx_int_put(ctx, &data_init[0], &v, 1, (tme + 1) % tn);
        shmem_ctx_quiet(ctx);
        shmem_team_sync(even);
        CHECK(data_init[0] == 500 + 2 * ((tme + tn - 1) % tn));
        static long one = 1, sum;
        CHECK(shmem_long_sum_reduce(even, &sum, &one, 1) == 0);
        CHECK(sum == tn);
        shmem_ctx_destroy(ctx);
        shmem_team_destroy(even);
    } else {
        CHECK(even == SHMEM_TEAM_INVALID);
    }
    shmem_barrier_all();
}

static void team_collectives(void)
{
    for (int i = 0; i < 4; i++)
        src32[i] = me * 10 + i;
    CHECK(shmem_int_sum_reduce(SHMEM_TEAM_WORLD, dst32, src32, 4) == 0);
    for (int i = 0; i < 4; i++)
        CHECK(dst32[i] == 10 * npes * (npes - 1) / 2 + npes * i);
    CHECK(shmem_max_reduce(SHMEM_TEAM_WORLD, dst32, src32, 4) == 0); /* generic */
    CHECK(dst32[0] == (npes - 1) * 10);
    src64[0] = me + 7;
    CHECK(shmem_broadcast(SHMEM_TEAM_WORLD, dst64, src64, 1, npes - 1) == 0);
    CHECK(dst64[0] == npes - 1 + 7);
    CHECK(shmem_long_fcollect(SHMEM_TEAM_WORLD, dst64, src64, 1) == 0);
    for (int p = 0; p < npes; p++)
        CHECK(dst64[p] == p + 7);
    for (int p = 0; p < npes; p++)
        src64[p] = me * 100 + p;
    CHECK(shmem_alltoall(SHMEM_TEAM_WORLD, dst64, src64, 1) == 0);
    for (int p = 0; p < npes; p++)
        CHECK(dst64[p] == p * 100 + me);
    ldsrc[0] = 0.5L * me;
    CHECK(shmem_longdouble_sum_reduce(SHMEM_TEAM_WORLD, lddst, ldsrc, 1) == 0);
    CHECK(lddst[0] == 0.25L * npes * (npes - 1));
    csrc[0] = me + 1.0 * I;
    CHECK(shmem_complexd_sum_reduce(SHMEM_TEAM_WORLD, cdst, csrc, 1) == 0);
    CHECK(creal(cdst[0]) == npes * (npes - 1) / 2.0 && cimag(cdst[0]) == npes);
    shmem_barrier_all();
}

static void active_set_collectives(void)
{
    shmem_barrier(0, 0, npes, ps_bar);
    shmem_sync(0, 0, npes, ps_bar);
    for (int i = 0; i < 4; i++) {
        src64[i] = 100 * me + i;
        dst64[i] = -1;
    }
    shmem_broadcast64(dst64, src64, 4, 0, 0, 0, npes, ps_bc);
    for (int i = 0; i < 4; i++)
        CHECK(dst64[i] == (me == 0 ? -1 : i)); /* the root's dest is left alone */
    shmem_barrier_all();
    /* collect32: PE p gives p+1 ints. */
    for (int i = 0; i <= me; i++)
        src32[i] = me;
    shmem_collect32(dst32, src32, (size_t)me + 1, 0, 0, npes, ps_col);
    int at = 0;
    for (int p = 0; p < npes; p++)
        for (int i = 0; i <= p; i++)
            CHECK(dst32[at++] == p);
    shmem_fcollect64(dst64, src64, 2, 0, 0, npes, ps_col);
    for (int p = 0; p < npes; p++)
        CHECK(dst64[2 * p] == 100 * p && dst64[2 * p + 1] == 100 * p + 1);
    for (int p = 0; p < npes; p++)
        src32[p] = me * 1000 + p;
    shmem_alltoall32(dst32, src32, 1, 0, 0, npes, ps_a2a);
    for (int p = 0; p < npes; p++)
        CHECK(dst32[p] == p * 1000 + me);
    /* Reductions, and in place. */
    src32[0] = me + 1;
    shmem_int_sum_to_all(dst32, src32, 1, 0, 0, npes, iwrk, ps_red);
    CHECK(dst32[0] == npes * (npes + 1) / 2);
    shmem_int_prod_to_all(src32, src32, 1, 0, 0, npes, iwrk, ps_red);
    int fact = 1;
    for (int p = 1; p <= npes; p++)
        fact *= p;
    CHECK(src32[0] == fact);
    dsrc[1] = -me;
    shmem_double_min_to_all(&ddst[1], &dsrc[1], 1, 0, 0, npes, dwrk, ps_red);
    CHECK(ddst[1] == -(npes - 1));
    /* A strided active set: the even PEs. */
    if (me % 2 == 0) {
        int n = (npes + 1) / 2;
        src64[0] = me;
        shmem_long_max_to_all(dst64, src64, 1, 0, 1, n, (long *)dwrk, ps_red);
        CHECK(dst64[0] == 2 * (n - 1));
        shmem_barrier(0, 1, n, ps_bar);
    }
    shmem_barrier_all();
    /* Back-to-back barriers, on one pSync and the world's: each orders the
     * put before it (two slots, so that the left PE's next put cannot land
     * before this PE has looked), and pSync is at rest after them all. */
    static long seen[2];
    int right = (me + 1) % npes;
    for (int i = 1; i <= 200; i++) {
        shmem_long_p(&seen[i % 2], i, right);
        if (i % 3 == 0)
            shmem_barrier_all();
        else
            shmem_barrier(0, 0, npes, ps_bar);
        CHECK(seen[i % 2] == i);
    }
    shmem_barrier_all();
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
        CHECK(ps_bar[i] == SHMEM_SYNC_VALUE);
}

static void locks(void)
{
    for (int i = 0; i < 20; i++) {
        shmem_set_lock(&lock);
        long v = shmem_long_g(&shared_count, 0);
        shmem_long_p(&shared_count, v + 1, 0);
        shmem_quiet();
        shmem_clear_lock(&lock);
    }
    shmem_barrier_all();
    if (me == 0)
        CHECK(shared_count == 20L * npes);
    if (shmem_test_lock(&lock) == 0)
        shmem_clear_lock(&lock);
    shmem_barrier_all();
}

static void deprecated(void)
{
    CHECK(_my_pe() == me && _num_pes() == npes);
    long *p = shmalloc(64);
    CHECK(p != NULL);
    p = shrealloc(p, 128);
    CHECK(p != NULL);
    shfree(p);
    void *q = shmemalign(256, 64);
    CHECK(q != NULL && ((uintptr_t)q & 255) == 0);
    shfree(q);
    shmem_clear_cache_inv();
    shmem_set_cache_inv();
    shmem_set_cache_line_inv(&counter);
    shmem_clear_cache_line_inv(&counter);
    shmem_udcflush();
    shmem_udcflush_line(&counter);
    CHECK(shmem_int_swap(&data_init[1], 5, me) == 22);
    CHECK(shmem_int_cswap(&data_init[1], 5, 6, me) == 5);
    CHECK(data_init[1] == 6);
    shmem_barrier_all();
}

int main(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[2], "start_pes") == 0)
        start_pes(0);
    else
        shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    int major = 0, minor = 0;
    char name[SHMEM_MAX_NAME_LEN];
    shmem_info_get_version(&major, &minor);
    shmem_info_get_name(name);
    CHECK(major == SHMEM_MAJOR_VERSION && minor == SHMEM_MINOR_VERSION && major == 1 && minor == 5);
    CHECK(strcmp(name, SHMEM_VENDOR_STRING) == 0);
    CHECK(data_init[2] == 33); /* .data kept its values */
    if (argc > 2 && strcmp(argv[2], "exit") == 0) {
        if (me == npes - 1)
            shmem_global_exit(7);
        shmem_barrier_all(); /* the others wait, and are ended */
        return 1;
    }
    if (argc > 2 && strncmp(argv[2], "bad-", 4) == 0) {
        /* Bad arguments end the job naming the routine; PE 1 makes them. */
        long here = 0, v = 1;
        shmem_barrier_all();
        if (me == 1) {
            if (strcmp(argv[2], "bad-pe") == 0)
                shmem_long_put(&counter, &v, 1, npes);
            if (strcmp(argv[2], "bad-addr") == 0)
                shmem_long_put(&here, &v, 1, 0);
            if (strcmp(argv[2], "bad-set") == 0)
                shmem_barrier(0, 0, npes + 1, ps_bar);
            if (strcmp(argv[2], "bad-psync") == 0)
                shmem_barrier(1, 0, 1, &here);
            if (strcmp(argv[2], "bad-ctx") == 0)
                shmem_ctx_long_put(SHMEM_CTX_INVALID, &counter, &v, 1, 0);
            printf("not fatal\n");
        }
        shmem_barrier_all();
        return 0;
    }
    int *iheap = shmem_calloc(64, sizeof(int));
    long *lheap = shmem_malloc(64 * sizeof(long));
    CHECK(iheap != NULL && lheap != NULL);
    rma_sizes();
    rma_typed(iheap);
    atomics();
    waits_and_signals(lheap);
    pointers(argc > 1 && strcmp(argv[1], "shm") == 0);
    teams_and_contexts();
    team_collectives();
    active_set_collectives();
    locks();
    deprecated();
    shmem_free(iheap);
    shmem_free(lheap);
    shmem_barrier_all();
    printf("oshmem ok %d/%d\n", me, npes);
    shmem_finalize();
    CHECK(data_init[2] == 33); /* the globals stay the program's */
    return 0;
}
