/* User ops (a non-commutative one: 2x2 matrix products, which must come
 * out in rank order) in every reduction, MPI_Reduce_scatter(_block)
 * included, MPI_Reduce_local, and a few environment queries. */
#include <stdlib.h>
#include <string.h>
#include "check.h"

/* inout = in x inout, for len 2x2 matrices of longs (4 MPI_LONG each). */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    long *a = in, *b = inout;
    CHECK(*dt == MPI_LONG);
    for (int k = 0; k + 3 < *len; k += 4, a += 4, b += 4) {
        long r[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                     a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
        memcpy(b, r, sizeof r);
    }
}

/* m(i) = [[1, i], [0, 1]] scaled: a product of them in order is [[1, s], [0, 1]]
 * with s the sum; make them non-commuting with a swap on odd ranks. */
static void mat(int i, long *m)
{
    m[0] = 1; m[1] = i + 1; m[2] = i % 2; m[3] = 1;
}

static void ref(int from, int to, long *out)
{
    long acc[4] = {1, 0, 0, 1};
    for (int i = from; i <= to; i++) {
        long m[4], r[4];
        mat(i, m);
        r[0] = acc[0] * m[0] + acc[1] * m[2]; r[1] = acc[0] * m[1] + acc[1] * m[3];
        r[2] = acc[2] * m[0] + acc[3] * m[2]; r[3] = acc[2] * m[1] + acc[3] * m[3];
        memcpy(acc, r, sizeof r);
    }
    memcpy(out, acc, sizeof acc);
}

int main(int argc, char **argv)
{
    int rank, size, flag;
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK_RC(MPI_Is_thread_main(&flag));
    CHECK(flag == 1);
    MPI_Comm parent;
    CHECK_RC(MPI_Comm_get_parent(&parent));
    CHECK(parent == MPI_COMM_NULL);

    MPI_Op op;
    CHECK_RC(MPI_Op_create(matmul, 0, &op));
    CHECK_RC(MPI_Op_commutative(op, &flag));
    CHECK(flag == 0);
    CHECK_RC(MPI_Op_commutative(MPI_SUM, &flag));
    CHECK(flag == 1);

    long m[4], r[4], want[4];
    mat(rank, m);
    CHECK_RC(MPI_Allreduce(m, r, 4, MPI_LONG, op, MPI_COMM_WORLD));
    ref(0, size - 1, want);
    CHECK(memcmp(r, want, sizeof r) == 0);
    memset(r, 0, sizeof r);
    CHECK_RC(MPI_Reduce(m, r, 4, MPI_LONG, op, size - 1, MPI_COMM_WORLD));
    if (rank == size - 1)
        CHECK(memcmp(r, want, sizeof r) == 0);
    CHECK_RC(MPI_Scan(m, r, 4, MPI_LONG, op, MPI_COMM_WORLD));
    ref(0, rank, want);
    CHECK(memcmp(r, want, sizeof r) == 0);
    long ex[4] = {-7, -7, -7, -7};
    CHECK_RC(MPI_Exscan(m, ex, 4, MPI_LONG, op, MPI_COMM_WORLD));
    if (rank == 0) {
        CHECK(ex[0] == -7); /* untouched */
    } else {
        ref(0, rank - 1, want);
        CHECK(memcmp(ex, want, sizeof ex) == 0);
    }
    memcpy(r, m, sizeof m);
    CHECK_RC(MPI_Allreduce(MPI_IN_PLACE, r, 4, MPI_LONG, op, MPI_COMM_WORLD));
    ref(0, size - 1, want);
    CHECK(memcmp(r, want, sizeof r) == 0);

    /* Reduce_scatter_block: block j of every rank's vector is mat(rank + j);
     * rank j keeps the product of block j over the ranks. */
    long *vec = malloc(sizeof(long) * 4 * size), *acc = malloc(sizeof(long) * 4 * size);
    CHECK(vec && acc);
    for (int j = 0; j < size; j++)
        mat(rank + j, vec + 4 * j);
    CHECK_RC(MPI_Reduce_scatter_block(vec, r, 4, MPI_LONG, op, MPI_COMM_WORLD));
    long prod[4] = {1, 0, 0, 1};
    for (int i = 0; i < size; i++) { /* the product of mat(i + rank), i = 0..size-1 */
        long mi[4], t[4];
        mat(i + rank, mi);
        t[0] = prod[0] * mi[0] + prod[1] * mi[2]; t[1] = prod[0] * mi[1] + prod[1] * mi[3];
        t[2] = prod[2] * mi[0] + prod[3] * mi[2]; t[3] = prod[2] * mi[1] + prod[3] * mi[3];
        memcpy(prod, t, sizeof t);
    }
    CHECK(memcmp(r, prod, sizeof r) == 0);
    /* Reduce_scatter, in place: rank 0 gets no element, the last rank
     * gets two matrices (block j of the vector as above). */
    int *counts = malloc(sizeof(int) * size);
    CHECK(counts);
    for (int j = 0; j < size; j++)
        counts[j] = 4;
    counts[0] = 0;
    counts[size - 1] += 4;
    memcpy(acc, vec, sizeof(long) * 4 * size);
    CHECK_RC(MPI_Reduce_scatter(MPI_IN_PLACE, acc, counts, MPI_LONG, op, MPI_COMM_WORLD));
    if (size > 1 && rank == size - 1) {
        CHECK(memcmp(acc + 4, prod, sizeof prod) == 0); /* the second of its two */
    }
    free(vec);
    free(acc);
    free(counts);

    long a[4], b[4];
    mat(1, a);
    mat(2, b);
    CHECK_RC(MPI_Reduce_local(a, b, 4, MPI_LONG, op));
    ref(1, 2, want);
    CHECK(memcmp(b, want, sizeof b) == 0);
    int x[3] = {1, 2, 3}, y[3] = {10, 20, 30};
    CHECK_RC(MPI_Reduce_local(x, y, 3, MPI_INT, MPI_SUM));
    CHECK(y[0] == 11 && y[2] == 33);
    CHECK_RC(MPI_Op_free(&op));
    CHECK(op == MPI_OP_NULL);

    CHECK_RC(MPI_Finalize());
    printf("userop ok %d\n", rank);
    return 0;
}
