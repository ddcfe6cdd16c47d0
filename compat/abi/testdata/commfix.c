/* commfix.c: regression tests of issue 36's wrong behaviours: a receive
 * pending on a freed communicator completes; MPI_Win_free after its
 * communicator was freed; MPI_Win_set_info with MPI_Win_get_info's info;
 * the names of the null handles; MPI_Comm_split_type's guided and
 * unguided kinds; MPI_IN_PLACE in MPI_Alltoallw and MPI_Ialltoall; and,
 * last, MPI_Finalize deleting MPI_COMM_SELF's attributes first, newest
 * first, while MPI still works. Runs on 1 or more processes. */
#include <string.h>
#include "check.h"

static int order[8], norder, windel;

static int winDelete(MPI_Win win, int key, void *val, void *extra)
{
    (void)win; (void)key;
    CHECK(extra == (void *)&windel);
    windel += (int)(size_t)val;
    return MPI_SUCCESS;
}

static int selfDelete(MPI_Comm comm, int key, void *val, void *extra)
{
    (void)key; (void)extra;
    int fin = 1, rank = -1;
    MPI_Finalized(&fin);
    CHECK(!fin && comm == MPI_COMM_SELF);
    /* MPI must still work here: a world barrier. */
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    order[norder++] = (int)(size_t)val;
    if (norder == 3) {
        CHECK(order[0] == 3 && order[1] == 2 && order[2] == 1);
        printf("commfix ok %d\n", rank);
        fflush(stdout);
    }
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* A receive pending on a freed communicator completes when the
     * matching send arrives (and a send pending on it too). */
    MPI_Request r;
    MPI_Status st;
    int got = -1, v = 77;
    MPI_Comm e, e2;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &e));
    CHECK_RC(MPI_Comm_dup(e, &e2));
    CHECK_RC(MPI_Irecv(&got, 1, MPI_INT, (rank + size - 1) % size, 9, e, &r));
    MPI_Request sr;
    CHECK_RC(MPI_Isend(&v, 1, MPI_INT, (rank + 1) % size, 9, e, &sr));
    CHECK_RC(MPI_Comm_free(&e));
    CHECK_RC(MPI_Barrier(e2));
    CHECK_RC(MPI_Wait(&sr, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Wait(&r, &st));
    CHECK(got == 77 && st.MPI_SOURCE == (rank + size - 1) % size);
    MPI_Comm_free(&e2);
    /* The same with a message large enough for the rendezvous: its data
     * moves after both ends freed the communicator. */
    static int big[1 << 18], bigin[1 << 18];
    for (int i = 0; i < 1 << 18; i++) big[i] = rank + i;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &e));
    CHECK_RC(MPI_Irecv(bigin, 1 << 18, MPI_INT, (rank + size - 1) % size, 9, e, &r));
    CHECK_RC(MPI_Isend(big, 1 << 18, MPI_INT, (rank + 1) % size, 9, e, &sr));
    CHECK_RC(MPI_Comm_free(&e));
    CHECK_RC(MPI_Wait(&r, &st));
    CHECK_RC(MPI_Wait(&sr, MPI_STATUS_IGNORE));
    CHECK(bigin[5] == (rank + size - 1) % size + 5);

    /* MPI_Win_free after the window's communicator was freed. */
    MPI_Comm wc;
    MPI_Win win;
    void *base;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &wc));
    CHECK_RC(MPI_Win_allocate(64, 1, MPI_INFO_NULL, wc, &base, &win));
    CHECK_RC(MPI_Comm_free(&wc));
    CHECK_RC(MPI_Win_fence(0, win));
    /* MPI_Win_set_info with what MPI_Win_get_info returned. */
    MPI_Info used;
    CHECK_RC(MPI_Win_get_info(win, &used));
    CHECK_RC(MPI_Win_set_info(win, used));
    MPI_Info_free(&used);
    MPI_Info junk;
    MPI_Info_create(&junk);
    MPI_Info_set(junk, "org.example.unknown_hint", "whatever");
    CHECK_RC(MPI_Win_set_info(win, junk));
    MPI_Info_free(&junk);
    CHECK_RC(MPI_Win_fence(0, win));
    /* Window attributes: user keyvals beside the predefined ones. */
    int wk, wk2, flag = 0;
    void *val = NULL;
    CHECK_RC(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, winDelete, &wk, &windel));
    CHECK_RC(MPI_Win_create_keyval(MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN, &wk2, NULL));
    CHECK_RC(MPI_Win_set_attr(win, wk, (void *)5));
    CHECK_RC(MPI_Win_set_attr(win, wk, (void *)7)); /* replaces: the delete function sees 5 */
    CHECK(windel == 5);
    CHECK_RC(MPI_Win_get_attr(win, wk, &val, &flag));
    CHECK(flag && val == (void *)7);
    CHECK_RC(MPI_Win_get_attr(win, wk2, &val, &flag));
    CHECK(!flag);
    CHECK_RC(MPI_Win_set_attr(win, wk2, (void *)1));
    CHECK_RC(MPI_Win_delete_attr(win, wk2));
    CHECK_RC(MPI_Win_get_attr(win, wk2, &val, &flag));
    CHECK(!flag);
    CHECK_RC(MPI_Win_get_attr(win, MPI_WIN_BASE, &val, &flag));
    CHECK(flag && val == base);
    int *sz = NULL;
    CHECK_RC(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &sz, &flag));
    CHECK(flag && *sz == 1);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int ck;
    CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &ck, NULL));
    CHECK(MPI_Win_set_attr(win, ck, (void *)1) != MPI_SUCCESS); /* a communicator keyval */
    MPI_Comm_free_keyval(&ck);
    CHECK_RC(MPI_Win_free_keyval(&wk));
    CHECK(wk == MPI_KEYVAL_INVALID);
    CHECK_RC(MPI_Win_free(&win));
    CHECK(windel == 12); /* freeing the window deleted 7 */
    MPI_Win_free_keyval(&wk2);

    /* The names of the null handles (MPI-4.1 §7.8, §4.1.11, §12.2.7). */
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    CHECK_RC(MPI_Comm_get_name(MPI_COMM_NULL, name, &len));
    CHECK(strcmp(name, "MPI_COMM_NULL") == 0 && len == 13);
    CHECK_RC(MPI_Win_get_name(MPI_WIN_NULL, name, &len));
    CHECK(strcmp(name, "MPI_WIN_NULL") == 0);
    CHECK_RC(MPI_Type_get_name(MPI_DATATYPE_NULL, name, &len));
    CHECK(strcmp(name, "MPI_DATATYPE_NULL") == 0);

    /* MPI_Comm_split_type: guided kinds without a hint they take give
     * MPI_COMM_NULL; HW_UNGUIDED gives strict subsets naming their kind. */
    MPI_Comm t;
    MPI_Info hi;
    MPI_Info_create(&hi);
    CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, MPI_INFO_NULL, &t));
    CHECK(t == MPI_COMM_NULL);
    MPI_Info_set(hi, "mpi_hw_resource_type", "org.example.no_such_resource");
    CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, hi, &t));
    CHECK(t == MPI_COMM_NULL);
    MPI_Info_set(hi, "mpi_hw_resource_type", "mpi_shared_memory");
    CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, hi, &t));
    CHECK(t != MPI_COMM_NULL);
    MPI_Comm_free(&t);
    CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, 0, MPI_INFO_NULL, &t));
    CHECK(t == MPI_COMM_NULL);
    MPI_Info_free(&hi);
    MPI_Info_create(&hi);
    MPI_Info_set(hi, "mpi_pset_name", "mpi://WORLD");
    CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, 0, hi, &t));
    CHECK(t != MPI_COMM_NULL);
    int ts = -1;
    MPI_Comm_size(t, &ts);
    CHECK(ts == size);
    MPI_Comm_free(&t);
    MPI_Info_free(&hi);
    MPI_Comm cur;
    MPI_Comm_dup(MPI_COMM_WORLD, &cur);
    for (int depth = 0;; depth++) {
        CHECK(depth < 8);
        int cs, ns, flag = 0, vl = 0;
        MPI_Comm_size(cur, &cs);
        MPI_Info in; /* the resource's name comes back in it too */
        MPI_Info_create(&in);
        CHECK_RC(MPI_Comm_split_type(cur, MPI_COMM_TYPE_HW_UNGUIDED, 0, in, &t));
        vl = MPI_MAX_INFO_VAL;
        char inval[MPI_MAX_INFO_VAL];
        CHECK_RC(MPI_Info_get_string(in, "mpi_hw_resource_type", &vl, inval, &flag));
        CHECK((t != MPI_COMM_NULL) == (flag != 0));
        MPI_Info_free(&in);
        if (t == MPI_COMM_NULL)
            break;
        MPI_Comm_size(t, &ns);
        CHECK(ns < cs);
        MPI_Info ti;
        char val[MPI_MAX_INFO_VAL];
        CHECK_RC(MPI_Comm_get_info(t, &ti));
        vl = MPI_MAX_INFO_VAL;
        CHECK_RC(MPI_Info_get_string(ti, "mpi_hw_resource_type", &vl, val, &flag));
        CHECK(flag && vl > 1);
        MPI_Info_free(&ti);
        MPI_Comm_free(&cur);
        cur = t;
    }
    MPI_Comm_free(&cur);

    /* MPI_IN_PLACE in MPI_Alltoallw and MPI_Ialltoall. */
    int buf[64], cnt[64], dis[64];
    MPI_Datatype ty[64];
    for (int i = 0; i < size; i++) { buf[i] = 100 * rank + i; cnt[i] = 1; dis[i] = i * (int)sizeof(int); ty[i] = MPI_INT; }
    CHECK_RC(MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, buf, cnt, dis, ty, MPI_COMM_WORLD));
    for (int i = 0; i < size; i++) CHECK(buf[i] == 100 * i + rank);
    for (int i = 0; i < size; i++) buf[i] = 100 * rank + i;
    CHECK_RC(MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, 1, MPI_INT, MPI_COMM_WORLD, &r));
    CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
    for (int i = 0; i < size; i++) CHECK(buf[i] == 100 * i + rank);

    /* MPI_Finalize deletes MPI_COMM_SELF's attributes first, newest first. */
    int k1, k2;
    CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, selfDelete, &k1, NULL));
    CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, selfDelete, &k2, NULL));
    int k3;
    CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, selfDelete, &k3, NULL));
    CHECK_RC(MPI_Comm_set_attr(MPI_COMM_SELF, k2, (void *)1));
    CHECK_RC(MPI_Comm_set_attr(MPI_COMM_SELF, k1, (void *)2));
    CHECK_RC(MPI_Comm_set_attr(MPI_COMM_SELF, k3, (void *)3));
    CHECK_RC(MPI_Finalize());
    CHECK(norder == 3);
    return 0;
}
