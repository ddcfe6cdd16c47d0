/* Communicator attributes with user keyvals: copy on dup, delete on free. */
#include "check.h"

static int copies = 0, deletes = 0;

static int copy_fn(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm; (void)keyval;
    CHECK(*(int *)extra == 42);
    copies++;
    *(void **)out = (char *)in + 1;
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm; (void)keyval; (void)val; (void)extra;
    deletes++;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    int rank, flag, extra = 42, key, nocopy;
    static char value[4];
    void *got;
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_create_keyval(copy_fn, delete_fn, &key, &extra));
    CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &nocopy, NULL));
    MPI_Comm c;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK_RC(MPI_Comm_get_attr(c, key, &got, &flag));
    CHECK(flag == 0);
    CHECK_RC(MPI_Comm_set_attr(c, key, value));
    CHECK_RC(MPI_Comm_set_attr(c, nocopy, value + 2));
    CHECK_RC(MPI_Comm_get_attr(c, key, &got, &flag));
    CHECK(flag == 1 && got == value);

    MPI_Comm d;
    CHECK_RC(MPI_Comm_dup(c, &d));
    CHECK(copies == 1);
    CHECK_RC(MPI_Comm_get_attr(d, key, &got, &flag));
    CHECK(flag == 1 && got == value + 1);
    CHECK_RC(MPI_Comm_get_attr(d, nocopy, &got, &flag));
    CHECK(flag == 0);
    CHECK_RC(MPI_Comm_set_attr(d, key, value + 3)); /* replaces: deletes the old */
    CHECK(deletes == 1);
    CHECK_RC(MPI_Comm_free(&d));
    CHECK(deletes == 2);
    CHECK_RC(MPI_Comm_delete_attr(c, key));
    CHECK(deletes == 3);
    CHECK_RC(MPI_Comm_get_attr(c, key, &got, &flag));
    CHECK(flag == 0);
    CHECK_RC(MPI_Comm_free_keyval(&key));
    CHECK(key == MPI_KEYVAL_INVALID);
    CHECK_RC(MPI_Comm_free(&c));
    CHECK(deletes == 3);

    int *tag_ub;
    CHECK_RC(MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag));
    CHECK(flag == 1 && *tag_ub > 0);
    CHECK_RC(MPI_Finalize());
    printf("attr ok %d\n", rank);
    return 0;
}
