/* Pack/Unpack, MPI-1 attribute names, deprecated info getters, group
 * ranges, Type_match_size, communicator info. */
#include <string.h>
#include "check.h"

static int deleted = 0;

static int del(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm; (void)keyval; (void)val; (void)extra;
    deleted++;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    int rank, size, v, flag;
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));

    /* Pack an int and a column of doubles, send, unpack. */
    double m[6] = {1, 2, 3, 4, 5, 6};
    MPI_Datatype col;
    CHECK_RC(MPI_Type_vector(3, 1, 2, MPI_DOUBLE, &col));
    CHECK_RC(MPI_Type_commit(&col));
    int need, need2;
    CHECK_RC(MPI_Pack_size(1, MPI_INT, MPI_COMM_WORLD, &need));
    CHECK_RC(MPI_Pack_size(1, col, MPI_COMM_WORLD, &need2));
    CHECK(need == 4 && need2 == 24);
    char packed[64];
    int pos = 0, tag = 77 + rank;
    CHECK_RC(MPI_Pack(&tag, 1, MPI_INT, packed, sizeof packed, &pos, MPI_COMM_WORLD));
    CHECK_RC(MPI_Pack(m + 1, 1, col, packed, sizeof packed, &pos, MPI_COMM_WORLD));
    CHECK(pos == 28);
    char got[64];
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    CHECK_RC(MPI_Sendrecv(packed, pos, MPI_PACKED, right, 0, got, sizeof got, MPI_PACKED, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    int t = 0;
    double out[6] = {0};
    pos = 0;
    CHECK_RC(MPI_Unpack(got, sizeof got, &pos, &t, 1, MPI_INT, MPI_COMM_WORLD));
    CHECK_RC(MPI_Unpack(got, sizeof got, &pos, out, 1, col, MPI_COMM_WORLD));
    CHECK(t == 77 + left && out[0] == 2 && out[2] == 4 && out[4] == 6 && out[1] == 0);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    pos = 60;
    CHECK(MPI_Pack(&tag, 2, MPI_INT, packed, sizeof packed, &pos, MPI_COMM_WORLD) == MPI_ERR_TRUNCATE);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    CHECK_RC(MPI_Type_free(&col));

    /* MPI-1 attribute calls. */
    int key;
    static int val;
    int *gotv;
    CHECK_RC(MPI_Keyval_create(MPI_NULL_COPY_FN, del, &key, NULL));
    CHECK_RC(MPI_Attr_put(MPI_COMM_WORLD, key, &val));
    CHECK_RC(MPI_Attr_get(MPI_COMM_WORLD, key, &gotv, &flag));
    CHECK(flag == 1 && gotv == &val);
    CHECK_RC(MPI_Attr_delete(MPI_COMM_WORLD, key));
    CHECK(deleted == 1);
    CHECK_RC(MPI_Keyval_free(&key));
    CHECK(key == MPI_KEYVAL_INVALID);

    /* Deprecated info getters. */
    MPI_Info info;
    char value[16];
    CHECK_RC(MPI_Info_create(&info));
    CHECK_RC(MPI_Info_set(info, "alpha", "beta"));
    CHECK_RC(MPI_Info_get_valuelen(info, "alpha", &v, &flag));
    CHECK(flag == 1 && v == 4);
    CHECK_RC(MPI_Info_get(info, "alpha", sizeof value - 1, value, &flag));
    CHECK(flag == 1 && strcmp(value, "beta") == 0);
    CHECK_RC(MPI_Info_get(info, "gamma", sizeof value - 1, value, &flag));
    CHECK(flag == 0);
    CHECK_RC(MPI_Info_free(&info));
    CHECK_RC(MPI_Comm_set_info(MPI_COMM_WORLD, MPI_INFO_NULL));
    CHECK_RC(MPI_Comm_get_info(MPI_COMM_WORLD, &info));
    CHECK_RC(MPI_Info_get_nkeys(info, &v));
    CHECK(v == 0);
    CHECK_RC(MPI_Info_free(&info));

    /* Group ranges: every second rank from the last down. */
    MPI_Group world, g;
    CHECK_RC(MPI_Comm_group(MPI_COMM_WORLD, &world));
    int r3[1][3] = {{size - 1, 0, -2}};
    CHECK_RC(MPI_Group_range_incl(world, 1, r3, &g));
    CHECK_RC(MPI_Group_size(g, &v));
    CHECK(v == (size + 1) / 2);
    int first = 0, tr;
    CHECK_RC(MPI_Group_translate_ranks(g, 1, &first, world, &tr));
    CHECK(tr == size - 1);
    CHECK_RC(MPI_Group_free(&g));
    CHECK_RC(MPI_Group_range_excl(world, 1, r3, &g));
    CHECK_RC(MPI_Group_size(g, &v));
    CHECK(v == size / 2);
    if (g != MPI_GROUP_EMPTY)
        CHECK_RC(MPI_Group_free(&g));
    CHECK_RC(MPI_Group_free(&world));

    MPI_Datatype mt;
    CHECK_RC(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &mt));
    CHECK(mt == MPI_DOUBLE);
    CHECK_RC(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &mt));
    CHECK_RC(MPI_Type_size(mt, &v));
    CHECK(v == 4);

    CHECK_RC(MPI_Finalize());
    printf("misc ok %d\n", rank);
    return 0;
}
