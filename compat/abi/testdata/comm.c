/* Communicators and groups. */
#include <string.h>
#include "check.h"

int main(int argc, char **argv)
{
    int rank, size, v, r;
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));

    MPI_Comm dup, half, node, none;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_RC(MPI_Comm_compare(MPI_COMM_WORLD, dup, &r));
    CHECK(r == MPI_CONGRUENT);
    CHECK_RC(MPI_Comm_compare(dup, dup, &r));
    CHECK(r == MPI_IDENT);
    CHECK_RC(MPI_Comm_rank(dup, &v));
    CHECK(v == rank);

    /* Split into evens and odds, ordered by descending rank. */
    CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half));
    int hs, hr;
    CHECK_RC(MPI_Comm_size(half, &hs));
    CHECK_RC(MPI_Comm_rank(half, &hr));
    CHECK(hs == (size + 1 - rank % 2) / 2);
    CHECK(hr == (hs - 1) - rank / 2);
    int sum = 0;
    CHECK_RC(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half));
    int want = 0;
    for (int i = rank % 2; i < size; i += 2)
        want += i;
    CHECK(sum == want);
    CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, MPI_UNDEFINED, 0, &none));
    CHECK(none == MPI_COMM_NULL);
    CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
    CHECK_RC(MPI_Comm_size(node, &v));
    CHECK(v == size);

    /* Names. */
    char name[MPI_MAX_OBJECT_NAME];
    CHECK_RC(MPI_Comm_get_name(MPI_COMM_WORLD, name, &v));
    CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && v == 14);
    CHECK_RC(MPI_Comm_set_name(dup, "mine"));
    CHECK_RC(MPI_Comm_get_name(dup, name, &v));
    CHECK(strcmp(name, "mine") == 0);
    CHECK_RC(MPI_Comm_test_inter(dup, &v));
    CHECK(v == 0);

    /* Groups. */
    MPI_Group world, evens, odds, u, x, g2;
    CHECK_RC(MPI_Comm_group(MPI_COMM_WORLD, &world));
    CHECK_RC(MPI_Group_size(world, &v));
    CHECK(v == size);
    CHECK_RC(MPI_Group_rank(world, &v));
    CHECK(v == rank);
    int ev[8], ne = 0;
    for (int i = 0; i < size; i += 2)
        ev[ne++] = i;
    CHECK_RC(MPI_Group_incl(world, ne, ev, &evens));
    CHECK_RC(MPI_Group_excl(world, ne, ev, &odds));
    CHECK_RC(MPI_Group_size(evens, &v));
    CHECK(v == ne);
    CHECK_RC(MPI_Group_rank(evens, &v));
    CHECK(v == (rank % 2 == 0 ? rank / 2 : MPI_UNDEFINED));
    CHECK_RC(MPI_Group_union(evens, odds, &u));
    CHECK_RC(MPI_Group_compare(u, world, &r));
    CHECK(r == (size > 2 ? MPI_SIMILAR : MPI_IDENT));
    CHECK_RC(MPI_Group_intersection(evens, odds, &x));
    CHECK(x == MPI_GROUP_EMPTY);
    CHECK_RC(MPI_Group_difference(world, odds, &g2));
    CHECK_RC(MPI_Group_compare(g2, evens, &r));
    CHECK(r == MPI_IDENT);
    int in[2] = {0, MPI_PROC_NULL}, tr[2];
    if (ne > 1)
        in[0] = 1;
    CHECK_RC(MPI_Group_translate_ranks(evens, 2, in, world, tr));
    CHECK(tr[0] == 2 * in[0] && tr[1] == MPI_PROC_NULL);

    /* Comm_create over the evens; odd ranks get MPI_COMM_NULL. */
    MPI_Comm ce;
    CHECK_RC(MPI_Comm_create(MPI_COMM_WORLD, evens, &ce));
    if (rank % 2 == 0) {
        CHECK_RC(MPI_Comm_size(ce, &v));
        CHECK(v == ne);
        CHECK_RC(MPI_Comm_free(&ce));
    } else {
        CHECK(ce == MPI_COMM_NULL);
    }

    CHECK_RC(MPI_Group_free(&evens));
    CHECK_RC(MPI_Group_free(&odds));
    CHECK_RC(MPI_Group_free(&u));
    CHECK_RC(MPI_Group_free(&x));
    CHECK_RC(MPI_Group_free(&g2));
    CHECK_RC(MPI_Group_free(&world));
    CHECK(world == MPI_GROUP_NULL);
    CHECK_RC(MPI_Comm_free(&node));
    CHECK_RC(MPI_Comm_free(&half));
    CHECK_RC(MPI_Comm_free(&dup));
    CHECK(dup == MPI_COMM_NULL);

    /* Info objects. */
    MPI_Info info, info2;
    char val[64];
    int flag, len = sizeof val;
    CHECK_RC(MPI_Info_create(&info));
    CHECK_RC(MPI_Info_set(info, "k1", "v1"));
    CHECK_RC(MPI_Info_set(info, "k2", "value2"));
    CHECK_RC(MPI_Info_dup(info, &info2));
    CHECK_RC(MPI_Info_delete(info, "k1"));
    CHECK_RC(MPI_Info_get_nkeys(info, &v));
    CHECK(v == 1);
    CHECK_RC(MPI_Info_get_nkeys(info2, &v));
    CHECK(v == 2);
    CHECK_RC(MPI_Info_get_nthkey(info2, 1, val));
    CHECK(strcmp(val, "k2") == 0);
    CHECK_RC(MPI_Info_get_string(info2, "k2", &len, val, &flag));
    CHECK(flag == 1 && strcmp(val, "value2") == 0 && len == 7);
    len = sizeof val;
    CHECK_RC(MPI_Info_get_string(info, "k1", &len, val, &flag));
    CHECK(flag == 0);
    CHECK_RC(MPI_Info_free(&info));
    CHECK_RC(MPI_Info_free(&info2));

    CHECK_RC(MPI_Finalize());
    printf("comm ok %d\n", rank);
    return 0;
}
