/* dtypes2.c: the general datatype engine checked against MPI-4.1 chapter
 * 5's definitions (lb, ub, extent, true bounds, size, envelope, contents),
 * negative displacements, zero-length blocks, sticky resized bounds in
 * structs, a mixed struct sent and received as a different matching map
 * (by MPI_BOTTOM and absolute addresses), external32, a subarray halo
 * exchange, a block-cyclic darray, a type past 2 GiB, long double sums
 * and MPI_Get_elements on partial data. */
#include <string.h>
#include <stddef.h>
#include "check.h"

static void bounds(MPI_Datatype t, MPI_Aint lb, MPI_Aint ext, MPI_Aint tlb, MPI_Aint text, int size) {
    MPI_Aint l, e;
    int s;
    CHECK_RC(MPI_Type_get_extent(t, &l, &e));
    CHECK(l == lb && e == ext);
    CHECK_RC(MPI_Type_get_true_extent(t, &l, &e));
    CHECK(l == tlb && e == text);
    CHECK_RC(MPI_Type_size(t, &s));
    CHECK(s == size);
}

struct rec { char c; double d; int i[3]; };

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* hindexed_block at byte 8: lb 8, extent 4. */
    MPI_Datatype hb, neg, zero, rs, st, dup;
    MPI_Aint d8 = 8;
    CHECK_RC(MPI_Type_create_hindexed_block(1, 1, &d8, MPI_INT, &hb));
    bounds(hb, 8, 4, 8, 4, 4);
    /* Negative displacements: ints at -8 and 4 (elements -2 and 1). */
    int bl[3] = {1, 1, 0}, dp[3] = {-2, 1, 10};
    CHECK_RC(MPI_Type_indexed(2, bl, dp, MPI_INT, &neg));
    bounds(neg, -8, 16, -8, 16, 8);
    /* A zero-length block does not count for the bounds. */
    CHECK_RC(MPI_Type_indexed(3, bl, dp, MPI_INT, &zero));
    bounds(zero, -8, 16, -8, 16, 8);
    int ni, na, nd, comb, ints[16];
    MPI_Aint aints[4];
    MPI_Datatype olds[4];
    CHECK_RC(MPI_Type_get_envelope(zero, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_INDEXED && ni == 7 && na == 0 && nd == 1);
    CHECK_RC(MPI_Type_get_contents(zero, 16, 4, 4, ints, aints, olds));
    CHECK(ints[0] == 3 && ints[1] == 1 && ints[3] == 0 && ints[4] == -2 && ints[6] == 10 && olds[0] == MPI_INT);
    /* Resized with a negative lb; its bounds stick inside a struct. */
    CHECK_RC(MPI_Type_create_resized(MPI_INT, -4, 16, &rs));
    bounds(rs, -4, 16, 0, 4, 4);
    int sb[2] = {1, 1};
    MPI_Aint sd[2] = {0, 100};
    MPI_Datatype stt[2] = {rs, MPI_CHAR};
    CHECK_RC(MPI_Type_create_struct(2, sb, sd, stt, &st));
    bounds(st, -4, 16, 0, 101, 5); /* the char at 100 does not move ub */
    CHECK_RC(MPI_Type_get_envelope(st, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_STRUCT && ni == 3 && na == 2 && nd == 2);
    CHECK_RC(MPI_Type_get_contents(st, 16, 4, 4, ints, aints, olds));
    CHECK(aints[1] == 100 && olds[1] == MPI_CHAR);
    MPI_Aint l, e;
    CHECK_RC(MPI_Type_get_extent(olds[0], &l, &e));
    CHECK(l == -4 && e == 16);
    CHECK_RC(MPI_Type_free(&olds[0]));
    /* Dup keeps the map. */
    CHECK_RC(MPI_Type_dup(st, &dup));
    bounds(dup, -4, 16, 0, 101, 5);
    CHECK_RC(MPI_Type_get_envelope(dup, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_DUP && nd == 1);

    /* A struct {char, double, int[3]}: padded extent, sent as one type map
     * and received as another (absolute addresses from MPI_BOTTOM). */
    MPI_Datatype rt, rt2;
    int rbl[3] = {1, 1, 3};
    MPI_Aint rdp[3] = {offsetof(struct rec, c), offsetof(struct rec, d), offsetof(struct rec, i)};
    MPI_Datatype rty[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
    CHECK_RC(MPI_Type_create_struct(3, rbl, rdp, rty, &rt));
    CHECK_RC(MPI_Type_commit(&rt));
    bounds(rt, 0, sizeof(struct rec), 0, offsetof(struct rec, i) + 12, 21);
    char c2;
    double d2;
    int i2[3];
    MPI_Aint abs[3];
    MPI_Get_address(&c2, &abs[0]);
    MPI_Get_address(&d2, &abs[1]);
    MPI_Get_address(i2, &abs[2]);
    CHECK_RC(MPI_Type_create_struct(3, rbl, abs, rty, &rt2));
    CHECK_RC(MPI_Type_commit(&rt2));
    if (size >= 2 && rank < 2) {
        struct rec r[2] = {{'a', 1.5, {1, 2, 3}}, {'b', 2.5, {4, 5, 6}}};
        if (rank == 0) {
            CHECK_RC(MPI_Send(&r[1], 1, rt, 1, 7, MPI_COMM_WORLD));
        } else {
            MPI_Status stt;
            CHECK_RC(MPI_Recv(MPI_BOTTOM, 1, rt2, 0, 7, MPI_COMM_WORLD, &stt));
            CHECK(c2 == 'b' && d2 == 2.5 && i2[0] == 4 && i2[2] == 6);
            int n;
            CHECK_RC(MPI_Get_elements(&stt, rt2, &n));
            CHECK(n == 5);
            CHECK_RC(MPI_Get_count(&stt, MPI_INT, &n));
            CHECK(n == MPI_UNDEFINED);
        }
        /* external32 there and back: 1 + 8 + 12 bytes, big-endian. */
        MPI_Aint esz, pos = 0;
        CHECK_RC(MPI_Pack_external_size("external32", 2, rt, &esz));
        CHECK(esz == 42);
        char pk[64];
        if (rank == 0) {
            CHECK_RC(MPI_Pack_external("external32", r, 2, rt, pk, sizeof pk, &pos));
            CHECK(pos == 42 && pk[0] == 'a' && (unsigned char)pk[1] == 0x3f && pk[12] == 1);
            CHECK_RC(MPI_Send(pk, (int)pos, MPI_BYTE, 1, 8, MPI_COMM_WORLD));
        } else {
            struct rec got[2];
            memset(got, 0, sizeof got);
            CHECK_RC(MPI_Recv(pk, 64, MPI_BYTE, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK_RC(MPI_Unpack_external("external32", pk, 42, &pos, got, 2, rt));
            CHECK(pos == 42 && got[0].c == 'a' && got[1].d == 2.5 && got[1].i[1] == 5);
        }
        /* MPI_LONG is 4 bytes in external32. */
        CHECK_RC(MPI_Pack_external_size("external32", 3, MPI_LONG, &esz));
        CHECK(esz == 12);
        CHECK_RC(MPI_Pack_external_size("external32", 1, MPI_LONG_DOUBLE, &esz));
        CHECK(esz == 16);
    }

    /* A 2-D subarray halo exchange: each rank's 4x6 block with a halo of
     * 1 sends its last interior column to the next rank's first halo. */
    {
        double a[4][6];
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 6; j++) a[i][j] = rank * 100 + i * 10 + j;
        int sz[2] = {4, 6}, ss[2] = {2, 1}, st0[2] = {1, 4}, st1[2] = {1, 0};
        MPI_Datatype sendcol, recvcol;
        CHECK_RC(MPI_Type_create_subarray(2, sz, ss, st0, MPI_ORDER_C, MPI_DOUBLE, &sendcol));
        CHECK_RC(MPI_Type_create_subarray(2, sz, ss, st1, MPI_ORDER_C, MPI_DOUBLE, &recvcol));
        CHECK_RC(MPI_Type_commit(&sendcol));
        CHECK_RC(MPI_Type_commit(&recvcol));
        bounds(sendcol, 0, sizeof a, (6 + 4) * 8, 7 * 8, 16);
        int next = (rank + 1) % size, prev = (rank + size - 1) % size;
        CHECK_RC(MPI_Sendrecv(a, 1, sendcol, next, 9, a, 1, recvcol, prev, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(a[1][0] == prev * 100 + 14 && a[2][0] == prev * 100 + 24 && a[0][0] == rank * 100);
        CHECK_RC(MPI_Type_get_envelope(sendcol, &ni, &na, &nd, &comb));
        CHECK(comb == MPI_COMBINER_SUBARRAY && ni == 8 && na == 0 && nd == 1);
        /* Fortran order: the first dimension is fastest. */
        MPI_Datatype f;
        int fs[2] = {6, 4}, fss[2] = {1, 2}, fst[2] = {4, 1};
        CHECK_RC(MPI_Type_create_subarray(2, fs, fss, fst, MPI_ORDER_FORTRAN, MPI_DOUBLE, &f));
        bounds(f, 0, sizeof a, (6 + 4) * 8, 7 * 8, 16);
        MPI_Type_free(&f);
        MPI_Type_free(&sendcol);
        MPI_Type_free(&recvcol);
    }

    /* A darray: 8 ints cyclic(2) over 2 processes (rank 0: 0,1,4,5). */
    {
        int g = 8, dist = MPI_DISTRIBUTE_CYCLIC, darg = 2, ps = 2;
        MPI_Datatype da;
        CHECK_RC(MPI_Type_create_darray(2, 1, 1, &g, &dist, &darg, &ps, MPI_ORDER_C, MPI_INT, &da));
        bounds(da, 0, 32, 8, 24, 16);
        CHECK_RC(MPI_Type_commit(&da));
        int src[8] = {0, 1, 2, 3, 4, 5, 6, 7}, out[4], p = 0;
        CHECK_RC(MPI_Pack(src, 1, da, out, sizeof out, &p, MPI_COMM_WORLD));
        CHECK(p == 16 && out[0] == 2 && out[1] == 3 && out[2] == 6 && out[3] == 7);
        MPI_Type_free(&da);
        /* 2-D block x block over a 2x2 grid: rank 3 owns the bottom-right. */
        int g2[2] = {4, 4}, d2[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK}, a2[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, p2[2] = {2, 2};
        CHECK_RC(MPI_Type_create_darray(4, 3, 2, g2, d2, a2, p2, MPI_ORDER_C, MPI_INT, &da));
        bounds(da, 0, 64, 40, 24, 16);
        MPI_Type_free(&da);
    }

    /* Larger than 2 GiB, described only. */
    {
        MPI_Datatype big;
        MPI_Count bsz, blb, bext;
        CHECK_RC(MPI_Type_contiguous_c((MPI_Count)3 << 30, MPI_DOUBLE, &big));
        CHECK_RC(MPI_Type_size_c(big, &bsz));
        CHECK(bsz == ((MPI_Count)3 << 30) * 8);
        CHECK_RC(MPI_Type_get_extent_c(big, &blb, &bext));
        CHECK(blb == 0 && bext == bsz);
        int sz32;
        CHECK_RC(MPI_Type_size(big, &sz32));
        CHECK(sz32 == MPI_UNDEFINED);
        MPI_Count nc;
        int combc;
        MPI_Count ci, ca, cc, cd;
        CHECK_RC(MPI_Type_get_envelope_c(big, &ci, &ca, &cc, &cd, &combc));
        CHECK(combc == MPI_COMBINER_CONTIGUOUS && ci == 0 && cc == 1 && cd == 1);
        MPI_Datatype od;
        CHECK_RC(MPI_Type_get_contents_c(big, 0, 0, 1, 1, NULL, NULL, &nc, &od));
        CHECK(nc == ((MPI_Count)3 << 30) && od == MPI_DOUBLE);
        MPI_Type_free(&big);
    }

    /* long double: 16 bytes, summed in its own precision. */
    {
        int s;
        CHECK_RC(MPI_Type_size(MPI_LONG_DOUBLE, &s));
        CHECK(s == 16);
        CHECK_RC(MPI_Type_size(MPI_C_LONG_DOUBLE_COMPLEX, &s));
        CHECK(s == 32);
        long double x = 1.0L + (long double)rank * 1e-18L, sum = 0;
        CHECK_RC(MPI_Allreduce(&x, &sum, 1, MPI_LONG_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
        long double want = 0;
        for (int r = 0; r < size; r++) want += 1.0L + (long double)r * 1e-18L;
        CHECK(sum - want < 4e-18L && want - sum < 4e-18L);
        struct { long double v; int i; } li = {(long double)rank, rank}, lo;
        CHECK_RC(MPI_Allreduce(&li, &lo, 1, MPI_LONG_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD));
        CHECK(lo.v == size - 1 && lo.i == size - 1);
        MPI_Datatype m;
        CHECK_RC(MPI_Type_match_size(MPI_TYPECLASS_REAL, 16, &m));
        CHECK_RC(MPI_Type_size(m, &s));
        CHECK(s == 16);
    }

    /* Partial data: a {int, double} struct packs into 12 bytes, so 16
     * bytes are one struct and the next int. */
    {
        MPI_Status stp;
        MPI_Datatype idt;
        int b2[2] = {1, 1};
        MPI_Aint dd[2] = {0, 8};
        MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE};
        CHECK_RC(MPI_Type_create_struct(2, b2, dd, ty, &idt));
        CHECK_RC(MPI_Status_set_elements(&stp, MPI_BYTE, 16));
        int n;
        CHECK_RC(MPI_Get_elements(&stp, idt, &n));
        CHECK(n == 3); /* one whole struct (2) and the next int (1) */
        CHECK_RC(MPI_Status_set_elements(&stp, MPI_BYTE, 18));
        CHECK_RC(MPI_Get_elements(&stp, idt, &n));
        CHECK(n == MPI_UNDEFINED); /* ends inside the double */
        CHECK_RC(MPI_Status_set_elements(&stp, idt, 3));
        CHECK_RC(MPI_Get_elements(&stp, idt, &n));
        CHECK(n == 3);
        MPI_Count nc;
        CHECK_RC(MPI_Get_elements_c(&stp, MPI_BYTE, &nc));
        CHECK(nc == 16);
        CHECK_RC(MPI_Get_count(&stp, idt, &n));
        CHECK(n == MPI_UNDEFINED);
        MPI_Type_free(&idt);
    }

    /* The v collectives' large-count forms, as a standard-ABI binding
     * calls them: every rank gives rank+1 ints, gathered at rank offsets. */
    {
        MPI_Count *cnt = malloc(sizeof(MPI_Count) * size);
        MPI_Aint *dsp = malloc(sizeof(MPI_Aint) * size);
        int total = 0, mine[64], all[256];
        for (int r = 0; r < size; r++) {
            cnt[r] = r + 1;
            dsp[r] = total;
            total += r + 1;
        }
        for (int k = 0; k <= rank; k++) mine[k] = 100 * rank + k;
        CHECK_RC(MPI_Allgatherv_c(mine, rank + 1, MPI_INT, all, cnt, dsp, MPI_INT, MPI_COMM_WORLD));
        for (int r = 0; r < size; r++)
            for (int k = 0; k <= r; k++) CHECK(all[dsp[r] + k] == 100 * r + k);
        MPI_Request rq;
        memset(all, 0, sizeof all);
        CHECK_RC(MPI_Iallgatherv_c(mine, rank + 1, MPI_INT, all, cnt, dsp, MPI_INT, MPI_COMM_WORLD, &rq));
        CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        CHECK(all[dsp[size - 1] + size - 1] == 100 * (size - 1) + size - 1);
        /* Reduce_scatter_c: rank r keeps r+1 sums. */
        int in[256], outv[64];
        for (int k = 0; k < total; k++) in[k] = k;
        CHECK_RC(MPI_Reduce_scatter_c(in, outv, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        CHECK(outv[0] == (int)dsp[rank] * size);
        free(cnt);
        free(dsp);
    }

    MPI_Type_free(&hb);
    MPI_Type_free(&neg);
    MPI_Type_free(&zero);
    MPI_Type_free(&rs);
    MPI_Type_free(&st);
    MPI_Type_free(&dup);
    MPI_Type_free(&rt);
    MPI_Type_free(&rt2);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("dtypes2 ok\n");
    MPI_Finalize();
    return 0;
}
