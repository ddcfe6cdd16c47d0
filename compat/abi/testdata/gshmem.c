/* gshmem.h alone (no MPI): every family of the symmetric heap's C host
 * API on 1 to 4 PEs. Run with every PE mapped (one node: the C paths) and
 * with each PE on its own node (nothing mapped: every operation through
 * Go), with the same answers. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "shmcheck.h"

enum { ITERS = 200 };

static void rma(int me, int n)
{
    int right = (me + 1) % n, left = (me + n - 1) % n;
    int *ib = gshmem_calloc(16, sizeof(int));
    double *db = gshmem_malloc(16 * sizeof(double));
    char *cb = gshmem_malloc(16);
    uint16_t *hb = gshmem_malloc(16 * sizeof(uint16_t));
    int64_t *lb = gshmem_align(64, 16 * sizeof(int64_t));
    SCHECK(ib && db && cb && hb && lb);
    SCHECK(((uintptr_t)lb & 63) == 0);
    for (int i = 0; i < 16; i++)
        SCHECK(ib[i] == 0); /* calloc */
    SCHECK(gshmem_ptr(ib, me) == ib);
    SCHECK(gshmem_addr_accessible(ib + 3, right) && !gshmem_addr_accessible(&me, right));
    /* Which path the calls take: the C one into mapped PEs (one node), or
     * Go's (each PE on its own node, GSHMEM_NODE_ID=%r). */
    int *rp = gshmem_ptr(ib, right);
    const char *node = getenv("GSHMEM_NODE_ID");
    if (right != me && node != NULL && strcmp(node, "%r") == 0)
        SCHECK(rp == NULL);
    else
        SCHECK(rp != NULL && (rp != ib || right == me));

    int iv[16];
    double dv[16];
    char cv[16];
    uint16_t hv[16];
    int64_t lv[16];
    for (int i = 0; i < 16; i++) {
        iv[i] = me * 100 + i;
        dv[i] = me + i / 4.0;
        cv[i] = (char)('a' + me + i);
        hv[i] = (uint16_t)(60000 + me + i);
        lv[i] = ((int64_t)me << 40) | i;
    }
    gshmem_barrier_all();
    gshmem_int_put(ib, iv, 16, right);
    gshmem_double_put_nbi(db, dv, 16, right);
    gshmem_char_put(cb, cv, 16, right);
    gshmem_uint16_put(hb, hv, 16, right);
    gshmem_putmem_nbi(lb, lv, 16 * sizeof(int64_t), right);
    gshmem_quiet();
    gshmem_barrier_all();
    for (int i = 0; i < 16; i++) {
        SCHECK(ib[i] == left * 100 + i);
        SCHECK(db[i] == left + i / 4.0);
        SCHECK(cb[i] == (char)('a' + left + i));
        SCHECK(hb[i] == (uint16_t)(60000 + left + i));
        SCHECK(lb[i] == (((int64_t)left << 40) | i));
    }
    /* Gets, g, p, the sized forms. */
    int gi[16];
    gshmem_int_get(gi, ib, 16, left); /* left's buffer holds left-1's values */
    for (int i = 0; i < 16; i++)
        SCHECK(gi[i] == ((left + n - 1) % n) * 100 + i);
    double gd[4];
    gshmem_double_get_nbi(gd, db + 4, 4, right);
    gshmem_quiet();
    for (int i = 0; i < 4; i++)
        SCHECK(gd[i] == me + (i + 4) / 4.0);
    SCHECK(gshmem_int_g(ib + 5, right) == me * 100 + 5);
    SCHECK(gshmem_char_g(cb, right) == (char)('a' + me));
    gshmem_barrier_all();
    gshmem_long_p((long *)lb + 15, -7L * me, right);
    gshmem_float_p((float *)(db + 15), 1.5f, right);
    gshmem_put32(ib + 8, iv, 4, right);
    gshmem_put128(lb, lv + 2, 2, right); /* 4 int64 */
    gshmem_barrier_all();
    SCHECK(lb[15] == -7L * left);
    SCHECK(*(float *)(db + 15) == 1.5f);
    for (int i = 0; i < 4; i++) {
        SCHECK(ib[8 + i] == left * 100 + i);
        SCHECK(lb[i] == (((int64_t)left << 40) | (i + 2)));
    }
    int64_t g64[2];
    gshmem_get64(g64, lb + 1, 2, me);
    SCHECK(g64[0] == lb[1] && g64[1] == lb[2]);
    uint8_t g8[3];
    gshmem_get8_nbi(g8, cb, 3, left);
    gshmem_quiet();
    SCHECK(g8[2] == (uint8_t)('a' + ((left + n - 1) % n) + 2));
    gshmem_barrier_all();
    gshmem_free(ib);
    gshmem_free(db);
    gshmem_free(cb);
    gshmem_free(hb);
    gshmem_free(lb);
}

static void strided_realloc_locks(int me, int n)
{
    int right = (me + 1) % n, left = (me + n - 1) % n;
    int *a = gshmem_calloc(32, sizeof(int));
    SCHECK(a != NULL);
    int src[32], back[8];
    for (int i = 0; i < 32; i++)
        src[i] = me * 1000 + i;
    gshmem_barrier_all();
    gshmem_int_iput(a, src, 2, 3, 8, right); /* a[0,2,..,14] = src[0,3,..,21] */
    gshmem_barrier_all();
    for (int i = 0; i < 8; i++)
        SCHECK(a[2 * i] == left * 1000 + 3 * i && a[2 * i + 1] == 0);
    gshmem_int_iget(back, a, 1, 2, 8, right); /* right's a holds mine */
    for (int i = 0; i < 8; i++)
        SCHECK(back[i] == me * 1000 + 3 * i);
    uint64_t w[4] = {1, 2, 3, 4}, r[4] = {0};
    gshmem_barrier_all();
    gshmem_iput64(a + 16, w, 2, 1, 2, right); /* 64-bit words 8 and 10 of a */
    gshmem_barrier_all();
    gshmem_iget64(r, a + 16, 2, 2, 2, me);
    SCHECK(r[0] == 1 && r[2] == 2 && r[1] == 0);
    gshmem_barrier_all();

    /* realloc keeps the contents and moves the object on every PE. */
    int *b = gshmem_realloc(a, 4096 * sizeof(int));
    SCHECK(b != NULL && b[2] == left * 1000 + 3);
    gshmem_int_p(&b[4095], me, right);
    gshmem_barrier_all();
    SCHECK(b[4095] == left);
    SCHECK(gshmem_realloc(b, 0) == NULL);
    long *lk = gshmem_realloc(NULL, 2 * sizeof(long));
    SCHECK(lk != NULL);
    lk[0] = lk[1] = 0;
    gshmem_barrier_all();

    /* A counter under the lock, by get and put: no update is lost. */
    for (int k = 0; k < 20; k++) {
        gshmem_set_lock(&lk[0]);
        long c = gshmem_long_g(&lk[1], 0);
        gshmem_long_p(&lk[1], c + 1, 0);
        gshmem_quiet();
        gshmem_clear_lock(&lk[0]);
    }
    gshmem_barrier_all();
    SCHECK(gshmem_long_g(&lk[1], 0) == 20L * n);
    if (me == 0) {
        SCHECK(gshmem_test_lock(&lk[0]) == 0); /* taken */
        gshmem_clear_lock(&lk[0]);
    }
    gshmem_barrier_all();
    gshmem_free(lk);
}

static void atomics(int me, int n)
{
    struct counters {
        int i;
        unsigned int ui;
        long l;
        uint64_t u64;
        int32_t i32;
        uint32_t bits;
        uint64_t xbits;
        double d;
        float f;
        int64_t cas;
        size_t sz;
        ptrdiff_t pd;
    } *c = gshmem_calloc(1, sizeof *c);
    SCHECK(c != NULL);
    gshmem_barrier_all();
    for (int k = 0; k < ITERS; k++) {
        gshmem_int_atomic_add(&c->i, 1, 0);
        gshmem_uint_atomic_inc(&c->ui, 0);
        (void)gshmem_long_atomic_fetch_add(&c->l, 2, 0);
        (void)gshmem_uint64_atomic_fetch_inc(&c->u64, 0);
        gshmem_int32_atomic_add(&c->i32, -1, 0);
        gshmem_size_atomic_inc(&c->sz, 0);
        gshmem_ptrdiff_atomic_add(&c->pd, -3, 0);
    }
    /* A ticket lock by compare_swap: each PE takes the word from what it
     * read to that plus one. */
    for (int k = 0; k < ITERS; k++) {
        int64_t cur = gshmem_int64_atomic_fetch(&c->cas, 0), old;
        while ((old = gshmem_int64_atomic_compare_swap(&c->cas, cur, cur + 1, 0)) != cur)
            cur = old;
    }
    int64_t tickets[4];
    for (int k = 0; k < 4; k++)
        gshmem_int64_atomic_fetch_add_nbi(&tickets[k], &c->cas, 0, 0);
    gshmem_quiet();
    SCHECK(tickets[3] >= (int64_t)ITERS);
    gshmem_uint32_atomic_or(&c->bits, 1u << me, 0);
    (void)gshmem_uint64_atomic_fetch_xor(&c->xbits, 0xffull << (8 * me), 0);
    gshmem_barrier_all();
    if (me == 0) {
        SCHECK(c->i == n * ITERS && c->ui == (unsigned)(n * ITERS) && c->l == 2L * n * ITERS);
        SCHECK(c->u64 == (uint64_t)n * ITERS && c->i32 == -n * ITERS && c->cas == (int64_t)n * ITERS);
        SCHECK(c->sz == (size_t)n * ITERS && c->pd == -3 * n * ITERS);
        SCHECK(c->bits == (1u << n) - 1);
        uint64_t want = 0;
        for (int p = 0; p < n; p++)
            want |= 0xffull << (8 * p);
        SCHECK(c->xbits == want);
    }
    gshmem_barrier_all();
    /* and, fetch_and, fetch_or, xor on the bits; set, swap, fetch on floats. */
    uint32_t before = gshmem_uint32_atomic_fetch_and(&c->bits, ~(1u << me), 0);
    SCHECK(before & (1u << me));
    gshmem_barrier_all();
    SCHECK(gshmem_uint32_atomic_fetch(&c->bits, 0) == 0);
    gshmem_barrier_all();
    if (me == n - 1) {
        gshmem_double_atomic_set(&c->d, 2.25, 0);
        SCHECK(gshmem_double_atomic_swap(&c->d, -1.0, 0) == 2.25);
        gshmem_float_atomic_set(&c->f, 0.5f, 0);
        SCHECK(gshmem_float_atomic_fetch(&c->f, 0) == 0.5f);
        SCHECK(gshmem_uint32_atomic_fetch_or(&c->bits, 6, 0) == 0);
        gshmem_uint32_atomic_xor(&c->bits, 3, 0);
        gshmem_uint32_atomic_and(&c->bits, 7, 0);
        SCHECK(gshmem_uint32_atomic_fetch(&c->bits, 0) == 5);
        SCHECK(gshmem_int_atomic_fetch_inc(&c->i, 0) == n * ITERS);
        SCHECK(gshmem_int_atomic_swap(&c->i, 42, 0) == n * ITERS + 1);
    }
    gshmem_barrier_all();
    SCHECK(gshmem_double_atomic_fetch(&c->d, 0) == -1.0);
    SCHECK(gshmem_int_atomic_fetch(&c->i, 0) == 42);
    gshmem_barrier_all();
    gshmem_free(c);
}

static void signals(int me, int n)
{
    int right = (me + 1) % n, left = (me + n - 1) % n;
    uint64_t *sig = gshmem_calloc(2, sizeof(uint64_t));
    long *data = gshmem_malloc(64 * sizeof(long));
    int *flag = gshmem_calloc(1, sizeof(int));
    short *sflag = gshmem_calloc(1, sizeof(short));
    SCHECK(sig && data && flag && sflag);
    gshmem_barrier_all();
    long src[64];
    for (int round = 1; round <= 20; round++) {
        for (int i = 0; i < 64; i++)
            src[i] = me * 1000 + round * 64 + i;
        if (round % 2)
            gshmem_long_put_signal(data, src, 64, &sig[0], 1, GSHMEM_SIGNAL_ADD, right);
        else
            gshmem_putmem_signal_nbi(data, src, sizeof src, &sig[0], 1, GSHMEM_SIGNAL_ADD, right);
        SCHECK(gshmem_signal_wait_until(&sig[0], GSHMEM_CMP_GE, (uint64_t)round) >= (uint64_t)round);
        for (int i = 0; i < 64; i++)
            SCHECK(data[i] == left * 1000 + round * 64 + i);
        /* The left neighbour may not overwrite data before this PE read it. */
        gshmemx_signal_op(&sig[1], (uint64_t)round, GSHMEM_SIGNAL_SET, left);
        gshmem_uint64_wait_until(&sig[1], GSHMEM_CMP_EQ, (uint64_t)round);
    }
    SCHECK(gshmem_signal_fetch(&sig[0]) == 20);
    /* Typed waits: signed compare on a negative value, a short. */
    gshmem_int_p(flag, -5 - me, right);
    gshmem_int_wait_until(flag, GSHMEM_CMP_LT, -4);
    SCHECK(*flag == -5 - left && gshmem_int_test(flag, GSHMEM_CMP_LE, -5));
    SCHECK(!gshmem_int_test(flag, GSHMEM_CMP_GT, 0));
    gshmem_short_p(sflag, (short)(me + 1), right);
    gshmem_short_wait_until(sflag, GSHMEM_CMP_NE, 0);
    SCHECK(*sflag == left + 1);
    gshmem_fence();
    gshmem_sync_all();
    gshmem_barrier_all();
    gshmem_free(sig);
    gshmem_free(data);
    gshmem_free(flag);
    gshmem_free(sflag);
}

static void sets(int me, int n)
{
    int64_t *flags = gshmem_calloc((size_t)n, sizeof(int64_t));
    int *late = gshmem_calloc(4, sizeof(int));
    SCHECK(flags && late);
    int64_t want[4];
    int status[4] = {0};
    size_t idx[4];
    for (int p = 0; p < n; p++)
        want[p] = p + 1;
    SCHECK(gshmem_int64_test_any(flags, (size_t)n, NULL, GSHMEM_CMP_NE, 0) == SIZE_MAX);
    SCHECK(gshmem_int64_test_some(flags, (size_t)n, idx, NULL, GSHMEM_CMP_NE, 0) == 0);
    SCHECK(!gshmem_int64_test_all(flags, (size_t)n, NULL, GSHMEM_CMP_NE, 0));
    gshmem_barrier_all();
    for (int p = 0; p < n; p++)
        gshmem_int64_p(&flags[me], me + 1, p);
    gshmem_int64_wait_until_all(flags, (size_t)n, NULL, GSHMEM_CMP_NE, 0);
    gshmem_int64_wait_until_all_vector(flags, (size_t)n, NULL, GSHMEM_CMP_EQ, want);
    SCHECK(gshmem_int64_test_all_vector(flags, (size_t)n, NULL, GSHMEM_CMP_EQ, want));
    size_t i = gshmem_int64_wait_until_any(flags, (size_t)n, NULL, GSHMEM_CMP_GT, 0);
    SCHECK(i < (size_t)n && flags[i] == (int64_t)i + 1);
    SCHECK(gshmem_int64_wait_until_some(flags, (size_t)n, idx, NULL, GSHMEM_CMP_GE, 1) == (size_t)n);
    SCHECK(idx[n - 1] == (size_t)n - 1);
    /* status leaves elements out: all of them, then all but the last. */
    for (int p = 0; p < n; p++)
        status[p] = 1;
    SCHECK(gshmem_int64_wait_until_any(flags, (size_t)n, status, GSHMEM_CMP_EQ, -1) == SIZE_MAX);
    SCHECK(gshmem_int64_test_all(flags, (size_t)n, status, GSHMEM_CMP_EQ, -1));
    status[n - 1] = 0;
    SCHECK(gshmem_int64_test_any_vector(flags, (size_t)n, status, GSHMEM_CMP_EQ, want) == (size_t)n - 1);
    SCHECK(gshmem_int64_wait_until_some_vector(flags, (size_t)n, idx, status, GSHMEM_CMP_LE, want) == 1 &&
           idx[0] == (size_t)n - 1);
    /* A wait that sleeps: PE 0 waits for the last PE, which first makes
     * sure PE 0 is waiting (or about to). */
    gshmem_barrier_all();
    if (me == n - 1) {
        for (volatile long k = 0; k < 2000000; k++)
            ;
        gshmem_int_atomic_set(&late[2], 7, 0);
    }
    if (me == 0) {
        SCHECK(gshmem_int_wait_until_any(late, 4, NULL, GSHMEM_CMP_EQ, 7) == 2);
        SCHECK(gshmem_int_wait_until_some(late, 4, idx, NULL, GSHMEM_CMP_NE, 0) == 1 && idx[0] == 2);
    }
    gshmem_barrier_all();
    gshmem_free(flags);
    gshmem_free(late);
}

static void collectives(int me, int n)
{
    long *src = gshmem_malloc(4 * 8 * sizeof(long));
    long *dst = gshmem_malloc(4 * 8 * sizeof(long));
    double *fs = gshmem_malloc(4 * sizeof(double));
    double *fd = gshmem_malloc(4 * sizeof(double));
    uint8_t *bs = gshmem_malloc(4);
    uint8_t *bd = gshmem_malloc(4);
    SCHECK(src && dst && fs && fd && bs && bd);
    for (int i = 0; i < 4 * 8; i++)
        src[i] = me * 100 + i;
    for (int i = 0; i < 4; i++)
        fs[i] = me + 0.5 * i;
    bs[0] = (uint8_t)(1u << me), bs[1] = 0xff, bs[2] = (uint8_t)(0xf0 | me), bs[3] = (uint8_t)me;
    gshmem_barrier_all();

    SCHECK(gshmem_long_broadcast(GSHMEM_TEAM_WORLD, dst, src, 4, n - 1) == 0);
    for (int i = 0; i < 4; i++)
        SCHECK(dst[i] == (n - 1) * 100 + i);
    SCHECK(gshmem_long_fcollect(GSHMEM_TEAM_WORLD, dst, src, 2) == 0);
    for (int p = 0; p < n; p++)
        SCHECK(dst[2 * p] == p * 100 && dst[2 * p + 1] == p * 100 + 1);
    SCHECK(gshmem_long_alltoall(GSHMEM_TEAM_WORLD, dst, src, 2) == 0);
    for (int p = 0; p < n; p++)
        SCHECK(dst[2 * p] == p * 100 + 2 * me && dst[2 * p + 1] == p * 100 + 2 * me + 1);
    SCHECK(gshmem_alltoallmem(GSHMEM_TEAM_WORLD, dst, src, sizeof(long)) == 0);
    for (int p = 0; p < n; p++)
        SCHECK(dst[p] == p * 100 + me);

    long sum = 0, prod = 1;
    for (int p = 0; p < n; p++)
        sum += p * 100, prod *= p * 100 + 1;
    SCHECK(gshmem_long_sum_reduce(GSHMEM_TEAM_WORLD, dst, src, 4) == 0);
    SCHECK(dst[0] == sum && dst[3] == sum + 3 * n);
    SCHECK(gshmem_long_prod_reduce(GSHMEM_TEAM_WORLD, dst, src + 1, 1) == 0);
    SCHECK(dst[0] == prod);
    SCHECK(gshmem_long_max_reduce(GSHMEM_TEAM_WORLD, dst, src, 2) == 0 && dst[1] == (n - 1) * 100 + 1);
    SCHECK(gshmem_double_min_reduce(GSHMEM_TEAM_WORLD, fd, fs, 4) == 0 && fd[3] == 1.5);
    SCHECK(gshmem_double_sum_reduce(GSHMEM_TEAM_WORLD, fd, fs, 4) == 0);
    SCHECK(fd[2] == n * (n - 1) / 2.0 + n * 1.0);
    SCHECK(gshmem_uint8_or_reduce(GSHMEM_TEAM_WORLD, bd, bs, 1) == 0 && bd[0] == (uint8_t)((1u << n) - 1));
    SCHECK(gshmem_uchar_and_reduce(GSHMEM_TEAM_WORLD, bd, bs + 2, 1) == 0 && bd[0] == 0xf0);
    SCHECK(gshmem_uint8_xor_reduce(GSHMEM_TEAM_WORLD, bd, bs + 3, 1) == 0);
    uint8_t x = 0;
    for (int p = 0; p < n; p++)
        x ^= (uint8_t)p;
    SCHECK(bd[0] == x);

    /* A team of the even PEs. */
    gshmem_team_t even;
    SCHECK(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0, &even) == 0);
    if (me % 2 == 0) {
        SCHECK(even != GSHMEM_TEAM_INVALID);
        SCHECK(gshmem_team_my_pe(even) == me / 2 && gshmem_team_n_pes(even) == (n + 1) / 2);
        SCHECK(gshmem_team_translate_pe(even, gshmem_team_n_pes(even) - 1, GSHMEM_TEAM_WORLD) == 2 * ((n + 1) / 2 - 1));
        SCHECK(gshmem_int64_sum_reduce(even, (int64_t *)dst, (int64_t *)src, 1) == 0);
        int64_t want = 0;
        for (int p = 0; p < n; p += 2)
            want += p * 100;
        SCHECK(dst[0] == want);
        SCHECK(gshmem_broadcastmem(even, dst, src, 8, 0) == 0 && dst[0] == 0);
        SCHECK(gshmem_team_sync(even) == 0);
        gshmem_barrier(even);
        gshmem_team_destroy(even);
    } else {
        SCHECK(even == GSHMEM_TEAM_INVALID && gshmem_team_my_pe(even) == -1);
    }
    /* alltoalls: PE me sends src[(j*1+0)*2] to PE j, stored at dst[me*3]. */
    for (int i = 0; i < 4 * 8; i++)
        src[i] = me * 100 + i;
    gshmem_barrier_all();
    SCHECK(gshmem_long_alltoalls(GSHMEM_TEAM_WORLD, dst, src, 3, 2, 1) == 0);
    for (int p = 0; p < n; p++)
        SCHECK(dst[3 * p] == p * 100 + 2 * me);
    /* reducescatter: block me of the sum of every PE's src. */
    SCHECK(gshmem_long_sum_reducescatter(GSHMEM_TEAM_WORLD, dst, src, 2) == 0);
    for (int k = 0; k < 2; k++)
        SCHECK(dst[k] == sum + (long)n * (2 * me + k));
    /* collect: PE p adds p elements, PE 0 none. */
    for (int i = 0; i < n; i++)
        src[i] = 10 * me + i;
    gshmem_barrier_all();
    SCHECK(gshmem_long_collect(GSHMEM_TEAM_WORLD, dst, src, (size_t)me) == 0);
    for (int p = 0, k = 0; p < n; p++)
        for (int i = 0; i < p; i++, k++)
            SCHECK(dst[k] == 10 * p + i);
    /* 2D split: rows of 2. */
    gshmem_team_t row, col;
    gshmem_team_config_t cfg = {.num_contexts = 2};
    SCHECK(gshmem_team_split_2d(GSHMEM_TEAM_WORLD, 2, &cfg, GSHMEM_TEAM_NUM_CONTEXTS, &row, NULL, 0, &col) == 0);
    SCHECK(gshmem_team_my_pe(row) == me % 2 && gshmem_team_my_pe(col) == me / 2);
    SCHECK(gshmem_team_n_pes(row) == (n < 2 ? n : (me / 2 * 2 + 2 <= n ? 2 : 1)));
    gshmem_team_config_t got = {0};
    SCHECK(gshmem_team_get_config(row, GSHMEM_TEAM_NUM_CONTEXTS, &got) == 0 && got.num_contexts == 2);
    SCHECK(gshmem_team_ptr(col, dst, gshmem_team_my_pe(col)) == dst);
    gshmem_team_destroy(row);
    gshmem_team_destroy(col);
    SCHECK(gshmem_team_my_pe(GSHMEM_TEAM_SHARED) >= 0 && gshmem_team_n_pes(GSHMEMX_TEAM_NODE) >= 1);
    SCHECK(gshmem_team_n_pes(GSHMEM_TEAM_WORLD) == n);
    gshmem_barrier_all();
    gshmem_free(src);
    gshmem_free(dst);
    gshmem_free(fs);
    gshmem_free(fd);
    gshmem_free(bs);
    gshmem_free(bd);
}

int main(void)
{
    gshmem_init();
    int me = gshmem_my_pe(), n = gshmem_n_pes();
    SCHECK(me >= 0 && me < n && gshmem_team_my_pe(GSHMEM_TEAM_WORLD) == me);
    int major, minor;
    gshmem_info_get_version(&major, &minor);
    SCHECK(major == 1 && minor == 5);
    SCHECK(gshmemx_heap_on_device() == 0); /* the host build, or GSHMEM_HEAP=host */
    char name[GSHMEM_MAX_NAME_LEN];
    gshmem_info_get_name(name);
    SCHECK(strncmp(name, "gshmem (libmpi_abi ", 19) == 0 && strstr(name, " build)") != NULL);
    SCHECK(gshmem_malloc(0) == NULL);
    /* PEs that disagree on a size all get NULL, and nobody hangs. */
    void *m = gshmem_malloc(me == 0 ? 8 : 0);
    if (n == 1) {
        SCHECK(m != NULL);
        gshmem_free(m);
    } else {
        SCHECK(m == NULL);
    }
    gshmem_free(NULL);
    rma(me, n);
    strided_realloc_locks(me, n);
    atomics(me, n);
    signals(me, n);
    sets(me, n);
    collectives(me, n);
    gshmem_finalize();
    printf("gshmem ok %d/%d\n", me, n);
    return 0;
}
