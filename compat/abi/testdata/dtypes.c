/* Derived datatypes beyond vectors: indexed, hindexed, indexed_block,
 * struct (of one basic type), resized (scattering matrix columns). */
#include <string.h>
#include "check.h"

int main(int argc, char **argv)
{
    int rank, size, v;
    MPI_Status st;
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    /* Lower triangle of a 3x3 int matrix. */
    int bl[3] = {1, 2, 3}, dp[3] = {0, 3, 6};
    MPI_Datatype tri;
    CHECK_RC(MPI_Type_indexed(3, bl, dp, MPI_INT, &tri));
    CHECK_RC(MPI_Type_commit(&tri));
    CHECK_RC(MPI_Type_size(tri, &v));
    CHECK(v == 6 * 4);
    int a[9], b[9] = {0};
    for (int i = 0; i < 9; i++)
        a[i] = rank * 100 + i;
    CHECK_RC(MPI_Sendrecv(a, 1, tri, right, 0, b, 1, tri, left, 0, MPI_COMM_WORLD, &st));
    CHECK(b[0] == left * 100 && b[3] == left * 100 + 3 && b[4] == left * 100 + 4 && b[8] == left * 100 + 8);
    CHECK(b[1] == 0 && b[2] == 0 && b[5] == 0);
    CHECK_RC(MPI_Get_count(&st, tri, &v));
    CHECK(v == 1);
    CHECK_RC(MPI_Get_count(&st, MPI_INT, &v));
    CHECK(v == 6);

    /* hindexed and indexed_block over doubles. */
    double d[8], e[8];
    for (int i = 0; i < 8; i++)
        d[i] = rank + i / 10.0;
    MPI_Aint hd[2] = {8, 40};
    int hb[2] = {2, 1};
    MPI_Datatype hi, ib;
    CHECK_RC(MPI_Type_create_hindexed(2, hb, hd, MPI_DOUBLE, &hi));
    CHECK_RC(MPI_Type_commit(&hi));
    int idd[2] = {7, 0};
    CHECK_RC(MPI_Type_create_indexed_block(2, 1, idd, MPI_DOUBLE, &ib));
    CHECK_RC(MPI_Type_commit(&ib));
    double packed[3];
    CHECK_RC(MPI_Sendrecv(d, 1, hi, right, 1, packed, 3, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(packed[0] == left + 0.1 && packed[1] == left + 0.2 && packed[2] == left + 0.5);
    memset(e, 0, sizeof e);
    CHECK_RC(MPI_Sendrecv(d, 2, MPI_DOUBLE, right, 2, e, 1, ib, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(e[7] == left + 0.0 && e[0] == left + 0.1 && e[1] == 0);

    /* A struct of one basic type, and a mixed one. */
    struct { double x, y; double pad; double z; } p = {1 + rank, 2 + rank, -1, 3 + rank}, q = {0, 0, 0, 0};
    int sb[2] = {2, 1};
    MPI_Aint sd[2] = {0, 24};
    MPI_Datatype types[2] = {MPI_DOUBLE, MPI_DOUBLE}, pt;
    CHECK_RC(MPI_Type_create_struct(2, sb, sd, types, &pt));
    CHECK_RC(MPI_Type_commit(&pt));
    CHECK_RC(MPI_Sendrecv(&p, 1, pt, right, 3, &q, 1, pt, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(q.x == 1 + left && q.y == 2 + left && q.pad == 0 && q.z == 3 + left);
    MPI_Datatype mixed[2] = {MPI_INT, MPI_DOUBLE}, bad;
    MPI_Aint md[2] = {0, 8};
    int mb[2] = {1, 1};
    CHECK_RC(MPI_Type_create_struct(2, mb, md, mixed, &bad));
    CHECK_RC(MPI_Type_commit(&bad));
    struct { int i; double d; } mx = {rank, rank + 0.5}, my = {0, 0};
    CHECK_RC(MPI_Sendrecv(&mx, 1, bad, right, 4, &my, 1, bad, left, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(my.i == left && my.d == left + 0.5);
    CHECK_RC(MPI_Type_free(&bad));

    /* Scatter the columns of a size x size matrix: a column resized to one element. */
    int n = size;
    int *mat = malloc(sizeof(int) * n * n), col[64];
    for (int i = 0; i < n * n; i++)
        mat[i] = i;
    MPI_Datatype c0, cr;
    CHECK_RC(MPI_Type_vector(n, 1, n, MPI_INT, &c0));
    CHECK_RC(MPI_Type_create_resized(c0, 0, sizeof(int), &cr));
    CHECK_RC(MPI_Type_commit(&cr));
    MPI_Aint lb, ext;
    CHECK_RC(MPI_Type_get_extent(cr, &lb, &ext));
    CHECK(lb == 0 && ext == sizeof(int));
    CHECK_RC(MPI_Scatter(mat, 1, cr, col, n, MPI_INT, 0, MPI_COMM_WORLD));
    for (int i = 0; i < n; i++)
        CHECK(col[i] == i * n + rank);

    /* Decoding: envelopes and contents. */
    int ni, na, nd, comb, ci[8];
    MPI_Aint ca[4];
    MPI_Datatype ct[4];
    CHECK_RC(MPI_Type_get_envelope(MPI_INT, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_NAMED && ni == 0 && nd == 0);
    CHECK_RC(MPI_Type_get_envelope(tri, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_INDEXED && ni == 7 && na == 0 && nd == 1);
    CHECK_RC(MPI_Type_get_contents(tri, 8, 4, 4, ci, ca, ct));
    CHECK(ci[0] == 3 && ci[1] == 1 && ci[3] == 3 && ci[4] == 0 && ci[6] == 6 && ct[0] == MPI_INT);
    CHECK_RC(MPI_Type_get_envelope(cr, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_RESIZED && na == 2 && nd == 1);
    CHECK_RC(MPI_Type_get_contents(cr, 8, 4, 4, ci, ca, ct));
    CHECK(ca[0] == 0 && ca[1] == sizeof(int));
    CHECK_RC(MPI_Type_get_envelope(ct[0], &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_VECTOR && ni == 3);
    CHECK_RC(MPI_Type_free(&ct[0])); /* a new handle for a derived old type */
    CHECK_RC(MPI_Type_get_envelope(pt, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_STRUCT && ni == 3 && na == 2 && nd == 2);

    CHECK_RC(MPI_Type_free(&tri));
    CHECK_RC(MPI_Type_free(&hi));
    CHECK_RC(MPI_Type_free(&ib));
    CHECK_RC(MPI_Type_free(&pt));
    CHECK_RC(MPI_Type_free(&c0));
    CHECK_RC(MPI_Type_free(&cr));
    free(mat);
    CHECK_RC(MPI_Finalize());
    printf("dtypes ok %d\n", rank);
    return 0;
}
