/* useropdt.c: user ops over non-contiguous datatypes (MPI-4.1 6.9.5: the
 * function gets the datatype handle and works on buffers laid out as it
 * says). A non-commutative op (2x2 matrix products, in rank order) over
 * a vector of longs with gaps, and over a resized type whose data starts
 * 8 bytes into each instance (true lb 8), in every reduction: Allreduce
 * (in place too), Reduce, Scan, Exscan, Reduce_scatter_block,
 * Reduce_scatter, Iallreduce, Ireduce and Reduce_local; and on an
 * intercommunicator of the world's two halves (MPI-4.1 6.9.x: a group
 * gets the reduction of the other group's data, in its rank order):
 * Allreduce, Reduce, Reduce_scatter_block, Reduce_scatter, Iallreduce,
 * and a commutative user op on MPI_INT. Gaps of the receive buffers stay as they
 * were. */
#include <string.h>
#include "check.h"

/* A layout: instance k's matrix element j is at longs k*S + O + j*D. */
struct layout { MPI_Datatype t; int S, O, D; };
static struct layout vec = {MPI_DATATYPE_NULL, 7, 0, 2}, rec = {MPI_DATATYPE_NULL, 5, 1, 1};

#define EL(L, buf, k, j) ((long *)(buf))[(k) * (L)->S + (L)->O + (j) * (L)->D]

static void mul(long *a, long *b, long *r)
{
    r[0] = a[0] * b[0] + a[1] * b[2]; r[1] = a[0] * b[1] + a[1] * b[3];
    r[2] = a[2] * b[0] + a[3] * b[2]; r[3] = a[2] * b[1] + a[3] * b[3];
}

/* inout = in x inout, instance by instance, through the layout of *dt. */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    struct layout *L = *dt == vec.t ? &vec : &rec;
    CHECK(*dt == vec.t || *dt == rec.t);
    for (int k = 0; k < *len; k++) {
        long a[4], b[4], r[4];
        for (int j = 0; j < 4; j++) {
            a[j] = EL(L, in, k, j);
            b[j] = EL(L, inout, k, j);
        }
        mul(a, b, r);
        for (int j = 0; j < 4; j++)
            EL(L, inout, k, j) = r[j];
    }
}

static void mat(int i, long *m) { m[0] = 1; m[1] = i + 1; m[2] = i % 2; m[3] = 1; }

/* The product of mat(i + k) for i = from..to. */
static void ref(int from, int to, int k, long *out)
{
    long acc[4] = {1, 0, 0, 1};
    for (int i = from; i <= to; i++) {
        long m[4], r[4];
        mat(i + k, m);
        mul(acc, m, r);
        memcpy(acc, r, sizeof r);
    }
    memcpy(out, acc, sizeof acc);
}

#define NL 64 /* longs per buffer: room for 8 instances of either layout */

static void fill(struct layout *L, long *buf, int n, int base)
{
    for (int i = 0; i < NL; i++) buf[i] = -99;
    for (int k = 0; k < n; k++) {
        long m[4];
        mat(base + k, m);
        for (int j = 0; j < 4; j++) EL(L, buf, k, j) = m[j];
    }
}

/* buf holds instance k (k < n) = ref(from, to, k0 + k) and -99 elsewhere;
 * a failure names the caller's line. */
static int line;
#define expect(...) (line = __LINE__, expect_(__VA_ARGS__))
static void expect_(struct layout *L, long *buf, int n, int from, int to, int k0)
{
    long want[NL];
    for (int i = 0; i < NL; i++) want[i] = -99;
    for (int k = 0; k < n; k++) {
        long m[4];
        ref(from, to, k0 + k, m);
        for (int j = 0; j < 4; j++) EL(L, want, k, j) = m[j];
    }
    if (memcmp(buf, want, sizeof want) != 0)
        fprintf(stderr, "useropdt: the result checked at line %d differs\n", line);
    CHECK(memcmp(buf, want, sizeof want) == 0);
}

static void run(struct layout *L, MPI_Op op, int rank, int size)
{
    long s[NL], r[NL];
    fill(L, s, 2, rank);
    fill(L, r, 0, 0);
    CHECK_RC(MPI_Allreduce(s, r, 2, L->t, op, MPI_COMM_WORLD));
    expect(L, r, 2, 0, size - 1, 0);
    fill(L, r, 2, rank);
    CHECK_RC(MPI_Allreduce(MPI_IN_PLACE, r, 2, L->t, op, MPI_COMM_WORLD));
    expect(L, r, 2, 0, size - 1, 0);
    fill(L, r, 0, 0);
    CHECK_RC(MPI_Reduce(s, r, 2, L->t, op, size - 1, MPI_COMM_WORLD));
    if (rank == size - 1)
        expect(L, r, 2, 0, size - 1, 0);
    fill(L, r, 0, 0);
    CHECK_RC(MPI_Scan(s, r, 2, L->t, op, MPI_COMM_WORLD));
    expect(L, r, 2, 0, rank, 0);
    fill(L, r, 0, 0);
    CHECK_RC(MPI_Exscan(s, r, 2, L->t, op, MPI_COMM_WORLD));
    if (rank == 0)
        expect(L, r, 0, 0, 0, 0); /* untouched */
    else
        expect(L, r, 2, 0, rank - 1, 0);
    /* Reduce_scatter(_block): instance j of every input goes to rank j. */
    long big[8 * NL];
    for (int i = 0; i < 8 * NL; i++) big[i] = -99;
    for (int k = 0; k < size; k++) {
        long m[4];
        mat(rank + k, m);
        for (int j = 0; j < 4; j++) EL(L, big, k, j) = m[j];
    }
    fill(L, r, 0, 0);
    CHECK_RC(MPI_Reduce_scatter_block(big, r, 1, L->t, op, MPI_COMM_WORLD));
    expect(L, r, 1, 0, size - 1, rank);
    int counts[64];
    for (int j = 0; j < size; j++) counts[j] = 1;
    fill(L, r, 0, 0);
    CHECK_RC(MPI_Reduce_scatter(big, r, counts, L->t, op, MPI_COMM_WORLD));
    expect(L, r, 1, 0, size - 1, rank);
    /* Nonblocking. */
    MPI_Request req;
    fill(L, r, 0, 0);
    CHECK_RC(MPI_Iallreduce(s, r, 2, L->t, op, MPI_COMM_WORLD, &req));
    CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE));
    expect(L, r, 2, 0, size - 1, 0);
    fill(L, r, 0, 0);
    CHECK_RC(MPI_Ireduce(s, r, 2, L->t, op, 0, MPI_COMM_WORLD, &req));
    CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE));
    if (rank == 0)
        expect(L, r, 2, 0, size - 1, 0);
    /* Reduce_local: the function sees the user's buffers themselves. */
    long a[NL], b[NL];
    fill(L, a, 2, 1);
    fill(L, b, 2, 2);
    CHECK_RC(MPI_Reduce_local(a, b, 2, L->t, op));
    long want[NL];
    for (int i = 0; i < NL; i++) want[i] = -99;
    for (int k = 0; k < 2; k++) {
        long x[4], y[4], z[4];
        mat(1 + k, x);
        mat(2 + k, y);
        mul(x, y, z);
        for (int j = 0; j < 4; j++) EL(L, want, k, j) = z[j];
    }
    CHECK(memcmp(b, want, sizeof b) == 0);
}

static void isum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    CHECK(*dt == MPI_INT);
    for (int i = 0; i < *len; i++) ((int *)inout)[i] += ((int *)in)[i] + 1; /* not MPI_SUM */
}

/* inter runs the reductions on an intercommunicator of the halves (the
 * left one is world ranks 0..size/2-1): the remote group's world ranks
 * are first..first+n-1, and its reduction is ref(first, first+n-1, k). */
static void inter(struct layout *L, MPI_Op op, int rank, int size)
{
    if (size < 2)
        return;
    int left = rank < size / 2, lsz = left ? size / 2 : size - size / 2, rsz = size - lsz;
    int first = left ? size / 2 : 0, lrank;
    MPI_Comm half, ic;
    CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, left, rank, &half));
    CHECK_RC(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, left ? size / 2 : 0, 7, &ic));
    CHECK_RC(MPI_Comm_rank(half, &lrank));
    long s[NL], r[NL];
    fill(L, s, 2, rank);
    fill(L, r, 0, 0);
    CHECK_RC(MPI_Allreduce(s, r, 2, L->t, op, ic));
    expect(L, r, 2, first, first + rsz - 1, 0);
    fill(L, r, 0, 0);
    MPI_Request req;
    CHECK_RC(MPI_Iallreduce(s, r, 2, L->t, op, ic, &req));
    CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE));
    expect(L, r, 2, first, first + rsz - 1, 0);
    /* Reduce to rank 0 of the left group: the right group's product. */
    fill(L, r, 0, 0);
    int root = left ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    CHECK_RC(MPI_Reduce(s, r, 2, L->t, op, root, ic));
    if (left && lrank == 0)
        expect(L, r, 2, size / 2, size - 1, 0);
    else
        expect(L, r, 0, 0, 0, 0); /* untouched */
    /* Reduce_scatter(_block): each side's vectors are its size times its
     * recvcount (rsz) instances; block j of the other side's comes to
     * rank j here. */
    long big[8 * NL];
    for (int i = 0; i < 8 * NL; i++) big[i] = -99;
    for (int k = 0; k < lsz * rsz; k++) {
        long m[4];
        mat(rank + k, m);
        for (int j = 0; j < 4; j++) EL(L, big, k, j) = m[j];
    }
    fill(L, r, 0, 0);
    CHECK_RC(MPI_Reduce_scatter_block(big, r, rsz, L->t, op, ic));
    expect(L, r, rsz, first, first + rsz - 1, lrank * rsz);
    int counts[64];
    for (int j = 0; j < 64; j++) counts[j] = rsz;
    fill(L, r, 0, 0);
    CHECK_RC(MPI_Reduce_scatter(big, r, counts, L->t, op, ic));
    expect(L, r, rsz, first, first + rsz - 1, lrank * rsz);
    /* A commutative user op on a basic type: a + b + 1. */
    MPI_Op plus1;
    CHECK_RC(MPI_Op_create(isum, 1, &plus1));
    int x[3] = {rank, 10 * rank, -rank}, y[3] = {-1, -1, -1};
    CHECK_RC(MPI_Allreduce(x, y, 3, MPI_INT, plus1, ic));
    int sum = rsz * first + rsz * (rsz - 1) / 2;
    CHECK(y[0] == sum + rsz - 1 && y[1] == 10 * sum + rsz - 1 && y[2] == -sum + rsz - 1);
    CHECK_RC(MPI_Op_free(&plus1));
    CHECK_RC(MPI_Comm_free(&ic));
    CHECK_RC(MPI_Comm_free(&half));
}

int main(int argc, char **argv)
{
    int rank, size;
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size <= 8);

    CHECK_RC(MPI_Type_vector(4, 1, 2, MPI_LONG, &vec.t)); /* extent 7 longs */
    CHECK_RC(MPI_Type_commit(&vec.t));
    MPI_Datatype inner;
    MPI_Aint d8 = 8;
    CHECK_RC(MPI_Type_create_hindexed_block(1, 4, &d8, MPI_LONG, &inner));
    CHECK_RC(MPI_Type_create_resized(inner, 0, 5 * sizeof(long), &rec.t));
    CHECK_RC(MPI_Type_commit(&rec.t));
    MPI_Type_free(&inner);
    MPI_Aint lb, ext;
    CHECK_RC(MPI_Type_get_true_extent(rec.t, &lb, &ext));
    CHECK(lb == 8 && ext == 32);

    MPI_Op op;
    CHECK_RC(MPI_Op_create(matmul, 0, &op));
    run(&vec, op, rank, size);
    run(&rec, op, rank, size);
    inter(&vec, op, rank, size);
    inter(&rec, op, rank, size);
    CHECK_RC(MPI_Op_free(&op));
    MPI_Type_free(&vec.t);
    MPI_Type_free(&rec.t);

    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    printf("useropdt ok %d\n", rank);
    CHECK_RC(MPI_Finalize());
    return 0;
}
