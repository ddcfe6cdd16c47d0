/* conform.c: regression tests of what MPICH's test programs found (run
 * by hand against the library): MPI_Info_get_nthkey numbers keys in the
 * order they were set; MPI_Comm_dup whose attribute copy function fails
 * returns the error and MPI_COMM_NULL; MPI_Reduce_scatter(_block) with a
 * user op; a put and an accumulate through a transpose (columns of a
 * matrix, one element apart, which interleave without overlapping); and
 * what mpi4py's tests found: MPI_Info_get_string on MPI_INFO_NULL is an
 * error; predefined datatypes take new names; MPI_Type_match_size of a
 * 4-byte complex; MPI_COMM_TYPE_RESOURCE_GUIDED by mpi_hw_resource_type;
 * MPI_Win_shared_query on a window not allocated shared; an empty
 * all-to-all region whose displacement is past the buffer; an
 * accumulate of no element with an op its type does not take.
 * Runs on 1 or more processes. */
#include <string.h>
#include "check.h"

static int failingCopy(MPI_Comm comm, int key, void *extra, void *in, void *out, int *flag)
{
    (void)comm; (void)key; (void)extra; (void)in; (void)out; (void)flag;
    return MPI_ERR_OTHER;
}

/* A user op that sums ints, in the order MPI gives. */
static void isum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++) ((int *)inout)[i] += ((int *)in)[i];
}

enum { N = 300 }; /* N*N elements: past the exact small-map overlap check */

int main(int argc, char **argv)
{
    int rank, size;
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));

    /* Keys in the order they were set, through delete, re-set and dup. */
    MPI_Info info, dup;
    char key[MPI_MAX_INFO_KEY];
    const char *set[] = {"zeta", "alpha", "mid", "beta"};
    CHECK_RC(MPI_Info_create(&info));
    for (int i = 0; i < 4; i++) CHECK_RC(MPI_Info_set(info, set[i], "v"));
    CHECK_RC(MPI_Info_set(info, "alpha", "again")); /* a new value keeps its place */
    for (int i = 0; i < 4; i++) {
        CHECK_RC(MPI_Info_get_nthkey(info, i, key));
        CHECK(strcmp(key, set[i]) == 0);
    }
    CHECK_RC(MPI_Info_delete(info, "alpha"));
    CHECK_RC(MPI_Info_set(info, "alpha", "last"));
    const char *after[] = {"zeta", "mid", "beta", "alpha"};
    CHECK_RC(MPI_Info_dup(info, &dup));
    for (int i = 0; i < 4; i++) {
        CHECK_RC(MPI_Info_get_nthkey(info, i, key));
        CHECK(strcmp(key, after[i]) == 0);
        CHECK_RC(MPI_Info_get_nthkey(dup, i, key));
        CHECK(strcmp(key, after[i]) == 0);
    }
    CHECK_RC(MPI_Info_free(&info));
    CHECK_RC(MPI_Info_free(&dup));
    CHECK_RC(MPI_Info_create(&info)); /* a new info (maybe the same handle) starts empty */
    CHECK_RC(MPI_Info_set(info, "b", "1"));
    CHECK_RC(MPI_Info_set(info, "a", "1"));
    CHECK_RC(MPI_Info_get_nthkey(info, 0, key));
    CHECK(strcmp(key, "b") == 0);
    CHECK_RC(MPI_Info_free(&info));

    /* A failing copy function: the error, and no communicator. */
    MPI_Comm d = MPI_COMM_WORLD, d2;
    int kv;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &d2));
    CHECK_RC(MPI_Comm_set_errhandler(d2, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Comm_create_keyval(failingCopy, MPI_COMM_NULL_DELETE_FN, &kv, NULL));
    CHECK_RC(MPI_Comm_set_attr(d2, kv, &kv));
    CHECK(MPI_Comm_dup(d2, &d) != MPI_SUCCESS);
    CHECK(d == MPI_COMM_NULL);
    CHECK_RC(MPI_Comm_free_keyval(&kv));
    CHECK_RC(MPI_Comm_free(&d2));

    /* Reduce_scatter and Reduce_scatter_block with a user op: member r
     * gets r+1 elements (block: 2), element j of the whole vector summing
     * rank*100+j over the ranks. */
    MPI_Op op;
    CHECK_RC(MPI_Op_create(isum, 1, &op));
    int total = size * (size + 1) / 2, counts[64], before = 0;
    CHECK(size <= 64);
    for (int r = 0; r < size; r++) {
        counts[r] = r + 1;
        if (r < rank) before += r + 1;
    }
    int *in = malloc(sizeof(int) * total), *out = malloc(sizeof(int) * total);
    for (int j = 0; j < total; j++) in[j] = rank * 100 + j;
    int sumRanks = 100 * size * (size - 1) / 2;
    CHECK_RC(MPI_Reduce_scatter(in, out, counts, MPI_INT, op, MPI_COMM_WORLD));
    for (int j = 0; j < rank + 1; j++) CHECK(out[j] == sumRanks + size * (before + j));
    CHECK_RC(MPI_Reduce_scatter(MPI_IN_PLACE, in, counts, MPI_INT, op, MPI_COMM_WORLD));
    for (int j = 0; j < rank + 1; j++) CHECK(in[j] == sumRanks + size * (before + j));
    for (int j = 0; j < 2 * size; j++) in[j] = rank * 100 + j;
    CHECK_RC(MPI_Reduce_scatter_block(in, out, 2, MPI_INT, op, MPI_COMM_WORLD));
    for (int j = 0; j < 2; j++) CHECK(out[j] == sumRanks + size * (2 * rank + j));
    CHECK_RC(MPI_Op_free(&op));
    free(in);
    free(out);

    /* A transpose through a put and an accumulate: the target type is N
     * columns, each a vector of N ints a row apart, the columns one int
     * apart. */
    int *a = malloc(sizeof(int) * N * N), *b;
    MPI_Datatype column, xpose;
    MPI_Win win;
    CHECK_RC(MPI_Type_vector(N, 1, N, MPI_INT, &column));
    CHECK_RC(MPI_Type_create_hvector(N, 1, sizeof(int), column, &xpose));
    CHECK_RC(MPI_Type_commit(&xpose));
    CHECK_RC(MPI_Win_allocate(sizeof(int) * N * N, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &b, &win));
    for (int i = 0; i < N * N; i++) a[i] = i, b[i] = -1;
    int to = (rank + 1) % size;
    CHECK_RC(MPI_Win_fence(0, win));
    CHECK_RC(MPI_Put(a, N * N, MPI_INT, to, 0, 1, xpose, win));
    CHECK_RC(MPI_Win_fence(0, win));
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) CHECK(b[j * N + i] == i * N + j);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD)); /* the checks read before the next epoch writes */
    CHECK_RC(MPI_Accumulate(a, N * N, MPI_INT, to, 0, 1, xpose, MPI_SUM, win));
    CHECK_RC(MPI_Win_fence(0, win));
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) CHECK(b[j * N + i] == 2 * (i * N + j));
    CHECK_RC(MPI_Win_free(&win));
    CHECK_RC(MPI_Type_free(&column));
    CHECK_RC(MPI_Type_free(&xpose));
    free(a);

    /* MPI_INFO_NULL holds no key to read. */
    {
        char v[8];
        int len = sizeof v, flag = 0;
        CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
        CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        CHECK(MPI_Info_get_string(MPI_INFO_NULL, "key", &len, v, &flag) != MPI_SUCCESS);
        CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
        CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    }

    /* A predefined datatype's name may change. */
    {
        char nm[MPI_MAX_OBJECT_NAME];
        int len;
        CHECK_RC(MPI_Type_set_name(MPI_SHORT, "my short"));
        CHECK_RC(MPI_Type_get_name(MPI_SHORT, nm, &len));
        CHECK(strcmp(nm, "my short") == 0 && len == 8);
        CHECK_RC(MPI_Type_set_name(MPI_SHORT, "MPI_SHORT"));
        MPI_Datatype c4;
        int sz;
        CHECK_RC(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 4, &c4));
        CHECK(c4 == MPI_COMPLEX4);
        CHECK_RC(MPI_Type_size(c4, &sz));
        CHECK(sz == 4);
    }

    /* RESOURCE_GUIDED takes HW_GUIDED's key too; an unknown one gives none. */
    {
        MPI_Info hi;
        MPI_Comm t;
        int n;
        CHECK_RC(MPI_Info_create(&hi));
        CHECK_RC(MPI_Info_set(hi, "mpi_hw_resource_type", "mpi_shared_memory"));
        CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, 0, hi, &t));
        CHECK(t != MPI_COMM_NULL);
        CHECK_RC(MPI_Comm_size(t, &n));
        CHECK(n == size);
        CHECK_RC(MPI_Comm_free(&t));
        CHECK_RC(MPI_Info_set(hi, "mpi_hw_resource_type", "no-such-thing"));
        CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, 0, hi, &t));
        CHECK(t == MPI_COMM_NULL);
        CHECK_RC(MPI_Info_free(&hi));
    }

    /* An empty region's displacement is not significant. */
    {
        int *cnt = calloc(size, sizeof(int)), *far = malloc(size * sizeof(int)), x = 5, y = 6;
        for (int r = 0; r < size; r++) far[r] = 1000 + r;
        CHECK_RC(MPI_Alltoallv(&x, cnt, far, MPI_INT, &y, cnt, far, MPI_INT, MPI_COMM_WORLD));
        CHECK(x == 5 && y == 6);
        MPI_Request q;
        CHECK_RC(MPI_Ialltoallv(&x, cnt, far, MPI_INT, &y, cnt, far, MPI_INT, MPI_COMM_WORLD, &q));
        CHECK_RC(MPI_Wait(&q, MPI_STATUS_IGNORE));
        CHECK_RC(MPI_Ialltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, &y, cnt, far, MPI_INT, MPI_COMM_WORLD, &q));
        CHECK_RC(MPI_Wait(&q, MPI_STATUS_IGNORE));
        CHECK(x == 5 && y == 6);
        free(cnt);
        free(far);
    }

    /* A window not allocated shared: size 0 at NULL for every rank; an
     * accumulate of no element takes any predefined op, one of an
     * element an op its type takes. */
    {
        char *mem, *q = (char *)&q, o = 1, r = 0;
        MPI_Aint qs = -1;
        int du = 0;
        CHECK_RC(MPI_Win_allocate(8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
        CHECK_RC(MPI_Win_shared_query(win, 0, &qs, &du, &q));
        CHECK(qs == 0 && q == NULL && du == 1);
        CHECK_RC(MPI_Win_fence(0, win));
        CHECK_RC(MPI_Get_accumulate(&o, 0, MPI_BYTE, &r, 0, MPI_BYTE, 0, 0, 0, MPI_BYTE, MPI_SUM, win));
        CHECK_RC(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
        int rc = MPI_Get_accumulate(&o, 1, MPI_BYTE, &r, 1, MPI_BYTE, 0, 0, 1, MPI_BYTE, MPI_SUM, win), cls;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_OP);
        CHECK_RC(MPI_Win_fence(0, win));
        CHECK_RC(MPI_Win_free(&win));
    }

    CHECK_RC(MPI_Finalize());
    printf("conform ok\n");
    return 0;
}
