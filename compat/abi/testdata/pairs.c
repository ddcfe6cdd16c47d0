/* pairs.c: the MAXLOC/MINLOC pair types as MPI-4.1 5.9.4 defines them,
 * type map {(value, 0), (location, off)}: the size is the members' alone,
 * the extent the C struct's (MPI_DOUBLE_INT: 12 and 16). Checked: sizes
 * and bounds, MPI_Get_elements and MPI_Get_count on partial data, Pack
 * and external32 sizes, a vector of pairs sent between ranks, MINLOC and
 * MAXLOC on every pair (the Fortran ones too) in Allreduce, Reduce,
 * Reduce_scatter_block, Scan, Exscan and Iallreduce, and RMA accumulate
 * of pairs with padding inside and after them; and that nothing writes
 * the 2 padding bytes inside an MPI_SHORT_INT (padding()). */
#include <string.h>
#include "check.h"

struct si { short v; int l; };
struct di { double v; int l; };
struct ldi { long double v; int l; };
struct f2 { float v, l; };
struct d2 { double v, l; };

static void sizes(MPI_Datatype t, int size, MPI_Aint extent, MPI_Aint text) {
    int s;
    MPI_Aint lb, e;
    CHECK_RC(MPI_Type_size(t, &s));
    CHECK(s == size);
    CHECK_RC(MPI_Type_get_extent(t, &lb, &e));
    CHECK(lb == 0 && e == extent);
    CHECK_RC(MPI_Type_get_true_extent(t, &lb, &e));
    CHECK(lb == 0 && e == text);
}

/* padding: Put, Accumulate (MPI_REPLACE, MAXLOC, MINLOC),
 * Get_accumulate (MPI_NO_OP, MPI_REPLACE) and Fetch_and_op on
 * MPI_SHORT_INT into rank 0's window, which is all 0xab, and the results
 * fetched into buffers of 0x77: the bytes at 2 and 3 of each element are
 * no part of its type map, so they keep their 0xab (0x77). So do those
 * of a Reduce's and a Recv's receive buffer. */
static void padding(int rank, int size) {
    enum { K = 6 }; /* slots per rank */
    unsigned char *wb;
    MPI_Win win;
    MPI_Aint bytes = rank == 0 ? (MPI_Aint)(K * size * sizeof(struct si)) : 0;
    CHECK_RC(MPI_Win_allocate(bytes, sizeof(struct si), MPI_INFO_NULL, MPI_COMM_WORLD, &wb, &win));
    if (rank == 0) {
        CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        memset(wb, 0xab, bytes);
        CHECK_RC(MPI_Win_unlock(0, win));
    }
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    struct si mine[2] = {{(short)(7 + rank), 1000 + rank}, {(short)-rank, 2000 + rank}}, got[2];
    unsigned char *g = (unsigned char *)got;
    MPI_Aint at = K * rank;
    CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    CHECK_RC(MPI_Put(mine, 1, MPI_SHORT_INT, 0, at, 1, MPI_SHORT_INT, win));
    CHECK_RC(MPI_Accumulate(mine, 1, MPI_SHORT_INT, 0, at + 1, 1, MPI_SHORT_INT, MPI_REPLACE, win));
    CHECK_RC(MPI_Accumulate(mine, 2, MPI_SHORT_INT, 0, at + 2, 2, MPI_SHORT_INT, MPI_MAXLOC, win));
    CHECK_RC(MPI_Win_flush(0, win));
    CHECK_RC(MPI_Accumulate(mine, 1, MPI_SHORT_INT, 0, at + 2, 1, MPI_SHORT_INT, MPI_MINLOC, win));
    memset(got, 0x77, sizeof got);
    CHECK_RC(MPI_Get_accumulate(NULL, 0, MPI_SHORT_INT, got, 2, MPI_SHORT_INT, 0, at, 2, MPI_SHORT_INT, MPI_NO_OP, win));
    CHECK_RC(MPI_Win_flush(0, win));
    CHECK(got[0].v == mine[0].v && got[0].l == mine[0].l && got[1].v == mine[0].v && got[1].l == mine[0].l);
    CHECK(g[2] == 0x77 && g[3] == 0x77 && g[10] == 0x77 && g[11] == 0x77);
    memset(got, 0x77, sizeof got);
    CHECK_RC(MPI_Get_accumulate(&mine[1], 1, MPI_SHORT_INT, got, 1, MPI_SHORT_INT, 0, at + 4, 1, MPI_SHORT_INT, MPI_REPLACE, win));
    CHECK_RC(MPI_Win_flush(0, win));
    CHECK(g[2] == 0x77 && g[3] == 0x77);
    memset(got, 0x77, sizeof got);
    CHECK_RC(MPI_Fetch_and_op(&mine[1], got, MPI_SHORT_INT, 0, at + 5, MPI_REPLACE, win));
    CHECK_RC(MPI_Win_unlock(0, win));
    CHECK(g[2] == 0x77 && g[3] == 0x77);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        for (int r = 0; r < size; r++) {
            struct si *s = (struct si *)wb + K * r;
            short v0 = (short)(7 + r);
            CHECK(s[0].v == v0 && s[0].l == 1000 + r && s[1].v == v0 && s[1].l == 1000 + r);
            CHECK(s[2].v == v0 && s[2].l == 1000 + r); /* MAXLOC, then MINLOC of the same */
            CHECK(s[3].v == -r && s[3].l == 2000 + r);
            CHECK(s[4].v == -r && s[4].l == 2000 + r && s[5].v == -r && s[5].l == 2000 + r);
            for (int k = 0; k < K; k++) {
                unsigned char *b = (unsigned char *)(s + k);
                if (b[2] != 0xab || b[3] != 0xab)
                    fprintf(stderr, "pairs: rank %d's slot %d: padding %02x %02x\n", r, k, b[2], b[3]);
                CHECK(b[2] == 0xab && b[3] == 0xab);
            }
        }
        CHECK_RC(MPI_Win_unlock(0, win));
    }
    CHECK_RC(MPI_Win_free(&win));
    /* A reduction's and a receive's buffers. */
    memset(got, 0x77, sizeof got);
    CHECK_RC(MPI_Reduce(mine, got, 2, MPI_SHORT_INT, MPI_MAXLOC, 0, MPI_COMM_WORLD));
    if (rank == 0)
        CHECK(g[2] == 0x77 && g[3] == 0x77 && g[10] == 0x77 && g[11] == 0x77);
    if (size > 1 && rank < 2) {
        memset(got, 0x77, sizeof got);
        if (rank == 1)
            CHECK_RC(MPI_Send(mine, 2, MPI_SHORT_INT, 0, 9, MPI_COMM_WORLD));
        else {
            CHECK_RC(MPI_Recv(got, 2, MPI_SHORT_INT, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(got[1].v == -1 && got[1].l == 2001);
            CHECK(g[2] == 0x77 && g[3] == 0x77 && g[10] == 0x77 && g[11] == 0x77);
        }
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    sizes(MPI_FLOAT_INT, 8, 8, 8);
    sizes(MPI_DOUBLE_INT, 12, 16, 12);
    sizes(MPI_LONG_INT, 12, 16, 12);
    sizes(MPI_2INT, 8, 8, 8);
    sizes(MPI_SHORT_INT, 6, 8, 8);
    sizes(MPI_LONG_DOUBLE_INT, 20, 32, 20);
    sizes(MPI_2REAL, 8, 8, 8);
    sizes(MPI_2DOUBLE_PRECISION, 16, 16, 16);
    sizes(MPI_2INTEGER, 8, 8, 8);
    CHECK(sizeof(struct di) == 16 && sizeof(struct si) == 8 && sizeof(struct ldi) == 32);

    /* {double, int, double} received as two MPI_DOUBLE_INT: 20 bytes, three
     * elements, no whole count (MPICH's get-elements-pairtype). */
    struct { double a; int b; double c; } foo = {1.5, 7, 2.5};
    struct di bar[2];
    int bl[3] = {1, 1, 1}, n;
    MPI_Aint dp[3] = {0, 8, 16};
    MPI_Datatype tys[3] = {MPI_DOUBLE, MPI_INT, MPI_DOUBLE}, st;
    CHECK_RC(MPI_Type_create_struct(3, bl, dp, tys, &st));
    CHECK_RC(MPI_Type_commit(&st));
    MPI_Status status;
    CHECK_RC(MPI_Sendrecv(&foo, 1, st, 0, 0, bar, 2, MPI_DOUBLE_INT, 0, 0, MPI_COMM_SELF, &status));
    CHECK_RC(MPI_Get_elements(&status, MPI_DOUBLE_INT, &n));
    CHECK(n == 3);
    CHECK_RC(MPI_Get_count(&status, MPI_DOUBLE_INT, &n));
    CHECK(n == MPI_UNDEFINED);
    CHECK(bar[0].v == 1.5 && bar[0].l == 7 && bar[1].v == 2.5);
    CHECK_RC(MPI_Get_count(&status, MPI_BYTE, &n));
    CHECK(n == 20);
    MPI_Type_free(&st);
    /* Status_set_elements: 3 elements of MPI_SHORT_INT are 6 + 2 bytes. */
    CHECK_RC(MPI_Status_set_elements(&status, MPI_SHORT_INT, 3));
    CHECK_RC(MPI_Get_count(&status, MPI_BYTE, &n));
    CHECK(n == 8);

    /* Pack: 12 bytes per MPI_DOUBLE_INT, 6 per MPI_SHORT_INT; external32
     * 12 and 6 (MPI_LONG_INT 8: a long is 4 bytes there). */
    struct si sv[3] = {{1, 10}, {-2, 20}, {3, 30}}, sback[3];
    char packbuf[64];
    int pos = 0;
    CHECK_RC(MPI_Pack_size(3, MPI_SHORT_INT, MPI_COMM_WORLD, &n));
    CHECK(n >= 18);
    CHECK_RC(MPI_Pack(sv, 3, MPI_SHORT_INT, packbuf, sizeof packbuf, &pos, MPI_COMM_WORLD));
    CHECK(pos == 18);
    short s1;
    memcpy(&s1, packbuf + 6, 2);
    CHECK(s1 == -2);
    memset(sback, 0x55, sizeof sback);
    pos = 0;
    CHECK_RC(MPI_Unpack(packbuf, 18, &pos, sback, 3, MPI_SHORT_INT, MPI_COMM_WORLD));
    CHECK(sback[1].v == -2 && sback[1].l == 20 && sback[2].l == 30);
    MPI_Aint xs;
    CHECK_RC(MPI_Pack_external_size("external32", 2, MPI_DOUBLE_INT, &xs));
    CHECK(xs == 24);
    CHECK_RC(MPI_Pack_external_size("external32", 1, MPI_LONG_INT, &xs));
    CHECK(xs == 8);
    CHECK_RC(MPI_Pack_external_size("external32", 1, MPI_LONG_DOUBLE_INT, &xs));
    CHECK(xs == 20);
    MPI_Aint xpos = 0;
    CHECK_RC(MPI_Pack_external("external32", sv, 1, MPI_SHORT_INT, packbuf, 64, &xpos));
    CHECK(xpos == 6 && (unsigned char)packbuf[1] == 1 && (unsigned char)packbuf[5] == 10);

    /* A vector of pairs (every other MPI_DOUBLE_INT) between ranks. */
    MPI_Datatype vec;
    CHECK_RC(MPI_Type_vector(4, 1, 2, MPI_DOUBLE_INT, &vec));
    CHECK_RC(MPI_Type_commit(&vec));
    sizes(vec, 48, 7 * 16, 6 * 16 + 12);
    if (size > 1 && rank < 2) {
        struct di v8[8];
        for (int i = 0; i < 8; i++) {
            v8[i].v = rank == 0 ? i : -1;
            v8[i].l = rank == 0 ? 100 + i : -1;
        }
        if (rank == 0)
            CHECK_RC(MPI_Send(v8, 1, vec, 1, 5, MPI_COMM_WORLD));
        else {
            CHECK_RC(MPI_Recv(v8, 1, vec, 0, 5, MPI_COMM_WORLD, &status));
            CHECK_RC(MPI_Get_elements(&status, vec, &n));
            CHECK(n == 8);
            for (int i = 0; i < 8; i++)
                CHECK(i % 2 ? v8[i].l == -1 : v8[i].v == i && v8[i].l == 100 + i);
        }
    }

    /* MINLOC and MAXLOC on every pair: value rank % 3 (ties), location rank. */
    int mx = 0; /* the lowest rank of the largest value */
    for (int r = 0; r < size; r++)
        if (r % 3 > mx % 3) mx = r;
    struct di dv[2] = {{rank % 3, rank}, {-(double)rank, rank}}, dres[2];
    CHECK_RC(MPI_Allreduce(dv, dres, 2, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD));
    CHECK(dres[0].v == mx % 3 && dres[0].l == mx && dres[1].v == 0 && dres[1].l == 0);
    struct si sval = {(short)(rank % 3), rank}, sres;
    CHECK_RC(MPI_Allreduce(&sval, &sres, 1, MPI_SHORT_INT, MPI_MINLOC, MPI_COMM_WORLD));
    CHECK(sres.v == 0 && sres.l == 0);
    struct ldi lv = {(long double)(rank % 3), rank}, lres;
    CHECK_RC(MPI_Reduce(&lv, &lres, 1, MPI_LONG_DOUBLE_INT, MPI_MAXLOC, 0, MPI_COMM_WORLD));
    if (rank == 0)
        CHECK(lres.v == mx % 3 && lres.l == mx);
    struct f2 fv = {(float)(rank % 3), (float)rank}, fres;
    CHECK_RC(MPI_Allreduce(&fv, &fres, 1, MPI_2REAL, MPI_MAXLOC, MPI_COMM_WORLD));
    CHECK(fres.v == mx % 3 && fres.l == mx);
    struct d2 d2v = {-(double)(rank % 3), rank}, d2res;
    CHECK_RC(MPI_Allreduce(&d2v, &d2res, 1, MPI_2DOUBLE_PRECISION, MPI_MINLOC, MPI_COMM_WORLD));
    CHECK(d2res.v == -(mx % 3) && d2res.l == mx);
    int iv[2] = {rank % 3, rank}, ires[2];
    CHECK_RC(MPI_Allreduce(iv, ires, 1, MPI_2INTEGER, MPI_MINLOC, MPI_COMM_WORLD));
    CHECK(ires[0] == 0 && ires[1] == 0);
    /* Reduce_scatter_block: one 2DOUBLE_PRECISION per rank, value -rank at
     * every rank's block j but j's own, where it is rank + 10. */
    struct d2 *rsv = malloc(size * sizeof *rsv), rsres;
    for (int j = 0; j < size; j++) {
        rsv[j].v = j == rank ? rank + 10 : -rank;
        rsv[j].l = rank;
    }
    CHECK_RC(MPI_Reduce_scatter_block(rsv, &rsres, 1, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, MPI_COMM_WORLD));
    CHECK(rsres.v == rank + 10 && rsres.l == rank);
    free(rsv);
    /* Scan and Exscan with MPI_2REAL MINLOC: value -rank falls. */
    struct f2 sc = {(float)-rank, (float)rank}, scres = {99, 99};
    CHECK_RC(MPI_Scan(&sc, &scres, 1, MPI_2REAL, MPI_MINLOC, MPI_COMM_WORLD));
    CHECK(scres.v == -rank && scres.l == rank);
    CHECK_RC(MPI_Exscan(&sc, &scres, 1, MPI_2REAL, MPI_MAXLOC, MPI_COMM_WORLD));
    if (rank > 0)
        CHECK(scres.v == 0 && scres.l == 0);
    /* Iallreduce on a vector of MPI_DOUBLE_INT (padding after each). */
    struct di v8[8], r8[8];
    for (int i = 0; i < 8; i++) {
        v8[i].v = (rank + i) % size;
        v8[i].l = rank;
        r8[i].v = -5;
        r8[i].l = -5;
    }
    MPI_Request req;
    CHECK_RC(MPI_Iallreduce(v8, r8, 1, vec, MPI_MAXLOC, MPI_COMM_WORLD, &req));
    CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int i = 0; i < 8; i++) {
        if (i % 2) {
            CHECK(r8[i].v == -5 && r8[i].l == -5);
            continue;
        }
        int who = ((size - 1 - i) % size + size) % size; /* (who + i) % size == size - 1 */
        CHECK(r8[i].v == size - 1 && r8[i].l == who);
    }

    /* RMA: MINLOC accumulate of MPI_SHORT_INT (padding between) and
     * MPI_DOUBLE_INT (padding after) into rank 0, and Get_accumulate. */
    struct { struct si s[2]; struct di d[2]; } *wb;
    MPI_Win win;
    CHECK_RC(MPI_Win_allocate(sizeof *wb, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wb, &win));
    for (int i = 0; i < 2; i++) {
        wb->s[i].v = 100;
        wb->s[i].l = -1;
        wb->d[i].v = 100;
        wb->d[i].l = -1;
    }
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_RC(MPI_Win_lock_all(0, win));
    struct si so[2] = {{(short)(10 - rank), rank}, {(short)(rank % 2), rank}};
    struct di dd[2] = {{10.0 - rank, rank}, {(double)(rank % 2), rank}};
    CHECK_RC(MPI_Accumulate(so, 2, MPI_SHORT_INT, 0, 0, 2, MPI_SHORT_INT, MPI_MINLOC, win));
    CHECK_RC(MPI_Accumulate(dd, 2, MPI_DOUBLE_INT, 0, 16, 2, MPI_DOUBLE_INT, MPI_MINLOC, win));
    CHECK_RC(MPI_Win_unlock_all(win));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        CHECK(wb->s[0].v == 11 - size && wb->s[0].l == size - 1);
        CHECK(wb->s[1].v == 0 && wb->s[1].l == 0);
        CHECK(wb->d[0].v == 11 - size && wb->d[0].l == size - 1);
        CHECK(wb->d[1].v == 0 && wb->d[1].l == 0);
    }
    CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    struct si got[2];
    memset(got, 0x77, sizeof got);
    struct si big[2] = {{200, 9}, {200, 9}};
    CHECK_RC(MPI_Get_accumulate(big, 2, MPI_SHORT_INT, got, 2, MPI_SHORT_INT, 0, 0, 2, MPI_SHORT_INT, MPI_MINLOC, win));
    CHECK_RC(MPI_Win_unlock(0, win));
    CHECK(got[0].v == 11 - size && got[0].l == size - 1 && got[1].v == 0 && got[1].l == 0);
    CHECK_RC(MPI_Win_free(&win));
    MPI_Type_free(&vec);
    padding(rank, size);

    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    printf("pairs ok %d\n", rank);
    MPI_Finalize();
    return 0;
}
