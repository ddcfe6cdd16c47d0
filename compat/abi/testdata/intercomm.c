/* intercomm.c: intercommunicators from split halves of MPI_COMM_WORLD
 * (the left half is ranks 0..n/2-1), point-to-point between the groups,
 * every collective on them with MPI_ROOT and MPI_PROC_NULL roots in its
 * blocking, nonblocking and persistent forms, dup/split/create/compare,
 * merge, and the communicators made over a group's members only
 * (MPI_Comm_create_group on a subset while the others talk,
 * MPI_Comm_create_from_group, MPI_Intercomm_create_from_groups,
 * MPI_Comm_split_type over an intercommunicator,
 * MPI_Comm_idup). Runs on 2 or more processes. */
#include <string.h>
#include "check.h"

static int wrank, wsize, left, lsize, rsize, lrank;

/* rootOf is the root argument of a rooted collective whose root is rank
 * 'r' of the left group. */
static int rootOf(int r) { return left ? (lrank == r ? MPI_ROOT : MPI_PROC_NULL) : r; }

/* The world rank of rank i of the remote group. */
static int remoteWorld(int i) { return left ? wsize / 2 + i : i; }

static void wait1(MPI_Request *r, int mode)
{
    if (mode == 1)
        CHECK_RC(MPI_Wait(r, MPI_STATUS_IGNORE));
    if (mode == 2) {
        CHECK_RC(MPI_Start(r));
        CHECK_RC(MPI_Wait(r, MPI_STATUS_IGNORE));
        CHECK_RC(MPI_Request_free(r));
    }
}

/* collectives runs each collective on ic in form mode: 0 blocking,
 * 1 nonblocking, 2 persistent. */
static void collectives(MPI_Comm ic, int mode)
{
    MPI_Request r = MPI_REQUEST_NULL;
    int root = rootOf(wsize / 2 - 1), rootIs = left && lrank == wsize / 2 - 1;
    int b[2] = {0, 0};
    if (rootIs) { b[0] = 11; b[1] = 12; }
    if (mode == 0) CHECK_RC(MPI_Bcast(b, 2, MPI_INT, root, ic));
    if (mode == 1) CHECK_RC(MPI_Ibcast(b, 2, MPI_INT, root, ic, &r));
    if (mode == 2) CHECK_RC(MPI_Bcast_init(b, 2, MPI_INT, root, ic, MPI_INFO_NULL, &r));
    wait1(&r, mode);
    if (left && !rootIs) CHECK(b[0] == 0 && b[1] == 0);
    else CHECK(b[0] == 11 && b[1] == 12);

    /* Reduce: the root gets the sum of the right group's world ranks. */
    int mine = wrank, red = -1, want = 0;
    for (int i = wsize / 2; i < wsize; i++) want += i;
    if (mode == 0) CHECK_RC(MPI_Reduce(&mine, &red, 1, MPI_INT, MPI_SUM, root, ic));
    if (mode == 1) CHECK_RC(MPI_Ireduce(&mine, &red, 1, MPI_INT, MPI_SUM, root, ic, &r));
    if (mode == 2) CHECK_RC(MPI_Reduce_init(&mine, &red, 1, MPI_INT, MPI_SUM, root, ic, MPI_INFO_NULL, &r));
    wait1(&r, mode);
    CHECK(rootIs ? red == want : red == -1);

    /* Gather and Scatter, uniform and v. */
    int g[64], s[64], one = -1, cnt[64], dis[64];
    for (int i = 0; i < 64; i++) { g[i] = -1; s[i] = 100 + i; cnt[i] = 1; dis[i] = 2 * i; }
    if (mode == 0) CHECK_RC(MPI_Gather(&mine, 1, MPI_INT, g, 1, MPI_INT, root, ic));
    if (mode == 1) CHECK_RC(MPI_Igather(&mine, 1, MPI_INT, g, 1, MPI_INT, root, ic, &r));
    if (mode == 2) CHECK_RC(MPI_Gather_init(&mine, 1, MPI_INT, g, 1, MPI_INT, root, ic, MPI_INFO_NULL, &r));
    wait1(&r, mode);
    if (rootIs) for (int i = 0; i < rsize; i++) CHECK(g[i] == remoteWorld(i));
    for (int i = 0; i < 64; i++) g[i] = -1;
    if (mode == 0) CHECK_RC(MPI_Gatherv(&mine, 1, MPI_INT, g, cnt, dis, MPI_INT, root, ic));
    if (mode == 1) CHECK_RC(MPI_Igatherv(&mine, 1, MPI_INT, g, cnt, dis, MPI_INT, root, ic, &r));
    if (mode == 2) CHECK_RC(MPI_Gatherv_init(&mine, 1, MPI_INT, g, cnt, dis, MPI_INT, root, ic, MPI_INFO_NULL, &r));
    wait1(&r, mode);
    if (rootIs) for (int i = 0; i < rsize; i++) CHECK(g[2 * i] == remoteWorld(i) && g[2 * i + 1] == -1);
    if (mode == 0) CHECK_RC(MPI_Scatter(s, 1, MPI_INT, &one, 1, MPI_INT, root, ic));
    if (mode == 1) CHECK_RC(MPI_Iscatter(s, 1, MPI_INT, &one, 1, MPI_INT, root, ic, &r));
    if (mode == 2) CHECK_RC(MPI_Scatter_init(s, 1, MPI_INT, &one, 1, MPI_INT, root, ic, MPI_INFO_NULL, &r));
    wait1(&r, mode);
    CHECK(left ? one == -1 : one == 100 + lrank);
    one = -1;
    if (mode == 0) CHECK_RC(MPI_Scatterv(s, cnt, dis, MPI_INT, &one, 1, MPI_INT, root, ic));
    if (mode == 1) CHECK_RC(MPI_Iscatterv(s, cnt, dis, MPI_INT, &one, 1, MPI_INT, root, ic, &r));
    if (mode == 2) CHECK_RC(MPI_Scatterv_init(s, cnt, dis, MPI_INT, &one, 1, MPI_INT, root, ic, MPI_INFO_NULL, &r));
    wait1(&r, mode);
    CHECK(left ? one == -1 : one == 100 + 2 * lrank);

    /* Allreduce: each group gets the other's sum. */
    int lsum = 0, rsum = 0, ar = -1;
    for (int i = 0; i < wsize; i++) { if ((i < wsize / 2) == left) lsum += i; else rsum += i; }
    (void)lsum;
    if (mode == 0) CHECK_RC(MPI_Allreduce(&mine, &ar, 1, MPI_INT, MPI_SUM, ic));
    if (mode == 1) CHECK_RC(MPI_Iallreduce(&mine, &ar, 1, MPI_INT, MPI_SUM, ic, &r));
    if (mode == 2) CHECK_RC(MPI_Allreduce_init(&mine, &ar, 1, MPI_INT, MPI_SUM, ic, MPI_INFO_NULL, &r));
    wait1(&r, mode);
    CHECK(ar == rsum);

    /* Allgather(v): the other group's world ranks. */
    for (int i = 0; i < 64; i++) g[i] = -1;
    if (mode == 0) CHECK_RC(MPI_Allgather(&mine, 1, MPI_INT, g, 1, MPI_INT, ic));
    if (mode == 1) CHECK_RC(MPI_Iallgather(&mine, 1, MPI_INT, g, 1, MPI_INT, ic, &r));
    if (mode == 2) CHECK_RC(MPI_Allgather_init(&mine, 1, MPI_INT, g, 1, MPI_INT, ic, MPI_INFO_NULL, &r));
    wait1(&r, mode);
    for (int i = 0; i < rsize; i++) CHECK(g[i] == remoteWorld(i));
    for (int i = 0; i < 64; i++) g[i] = -1;
    if (mode == 0) CHECK_RC(MPI_Allgatherv(&mine, 1, MPI_INT, g, cnt, dis, MPI_INT, ic));
    if (mode == 1) CHECK_RC(MPI_Iallgatherv(&mine, 1, MPI_INT, g, cnt, dis, MPI_INT, ic, &r));
    if (mode == 2) CHECK_RC(MPI_Allgatherv_init(&mine, 1, MPI_INT, g, cnt, dis, MPI_INT, ic, MPI_INFO_NULL, &r));
    wait1(&r, mode);
    for (int i = 0; i < rsize; i++) CHECK(g[2 * i] == remoteWorld(i));

    /* Alltoall(v,w): block j goes to remote rank j. */
    int out[64], in[64], sc[64], sd[64], bd[64];
    MPI_Datatype ty[64];
    for (int j = 0; j < 64; j++) { out[j] = 1000 * wrank + j; in[j] = -1; sc[j] = 1; sd[j] = j; bd[j] = j * (int)sizeof(int); ty[j] = MPI_INT; }
    if (mode == 0) CHECK_RC(MPI_Alltoall(out, 1, MPI_INT, in, 1, MPI_INT, ic));
    if (mode == 1) CHECK_RC(MPI_Ialltoall(out, 1, MPI_INT, in, 1, MPI_INT, ic, &r));
    if (mode == 2) CHECK_RC(MPI_Alltoall_init(out, 1, MPI_INT, in, 1, MPI_INT, ic, MPI_INFO_NULL, &r));
    wait1(&r, mode);
    for (int j = 0; j < rsize; j++) CHECK(in[j] == 1000 * remoteWorld(j) + lrank);
    for (int j = 0; j < 64; j++) in[j] = -1;
    if (mode == 0) CHECK_RC(MPI_Alltoallv(out, sc, sd, MPI_INT, in, sc, sd, MPI_INT, ic));
    if (mode == 1) CHECK_RC(MPI_Ialltoallv(out, sc, sd, MPI_INT, in, sc, sd, MPI_INT, ic, &r));
    if (mode == 2) CHECK_RC(MPI_Alltoallv_init(out, sc, sd, MPI_INT, in, sc, sd, MPI_INT, ic, MPI_INFO_NULL, &r));
    wait1(&r, mode);
    for (int j = 0; j < rsize; j++) CHECK(in[j] == 1000 * remoteWorld(j) + lrank);
    for (int j = 0; j < 64; j++) in[j] = -1;
    if (mode == 0) CHECK_RC(MPI_Alltoallw(out, sc, bd, ty, in, sc, bd, ty, ic));
    if (mode == 1) CHECK_RC(MPI_Ialltoallw(out, sc, bd, ty, in, sc, bd, ty, ic, &r));
    if (mode == 2) CHECK_RC(MPI_Alltoallw_init(out, sc, bd, ty, in, sc, bd, ty, ic, MPI_INFO_NULL, &r));
    wait1(&r, mode);
    for (int j = 0; j < rsize; j++) CHECK(in[j] == 1000 * remoteWorld(j) + lrank);

    /* Reduce_scatter(_block): vectors of lsize*rsize elements, the other
     * group's summed and scattered here, rsize each. */
    int vec[64], rs[64], rc[64];
    for (int i = 0; i < 64; i++) { vec[i] = i + 1; rs[i] = -1; rc[i] = rsize; }
    if (mode == 0) CHECK_RC(MPI_Reduce_scatter_block(vec, rs, rsize, MPI_INT, MPI_SUM, ic));
    if (mode == 1) CHECK_RC(MPI_Ireduce_scatter_block(vec, rs, rsize, MPI_INT, MPI_SUM, ic, &r));
    if (mode == 2) CHECK_RC(MPI_Reduce_scatter_block_init(vec, rs, rsize, MPI_INT, MPI_SUM, ic, MPI_INFO_NULL, &r));
    wait1(&r, mode);
    for (int i = 0; i < rsize; i++) CHECK(rs[i] == rsize * (lrank * rsize + i + 1));
    for (int i = 0; i < 64; i++) rs[i] = -1;
    if (mode == 0) CHECK_RC(MPI_Reduce_scatter(vec, rs, rc, MPI_INT, MPI_SUM, ic));
    if (mode == 1) CHECK_RC(MPI_Ireduce_scatter(vec, rs, rc, MPI_INT, MPI_SUM, ic, &r));
    if (mode == 2) CHECK_RC(MPI_Reduce_scatter_init(vec, rs, rc, MPI_INT, MPI_SUM, ic, MPI_INFO_NULL, &r));
    wait1(&r, mode);
    for (int i = 0; i < rsize; i++) CHECK(rs[i] == rsize * (lrank * rsize + i + 1));

    if (mode == 0) CHECK_RC(MPI_Barrier(ic));
    if (mode == 1) CHECK_RC(MPI_Ibarrier(ic, &r));
    if (mode == 2) CHECK_RC(MPI_Barrier_init(ic, MPI_INFO_NULL, &r));
    wait1(&r, mode);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    CHECK(wsize >= 2);
    left = wrank < wsize / 2;
    MPI_Comm half, ic;
    CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, left, wrank, &half));
    CHECK_RC(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, left ? wsize / 2 : 0, 42, &ic));
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
    int flag = 0;
    CHECK_RC(MPI_Comm_test_inter(ic, &flag));
    CHECK(flag == 1);
    CHECK_RC(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
    CHECK(flag == 0);
    MPI_Comm_size(ic, &lsize);
    MPI_Comm_rank(ic, &lrank);
    CHECK_RC(MPI_Comm_remote_size(ic, &rsize));
    CHECK(lsize + rsize == wsize && lsize == (left ? wsize / 2 : wsize - wsize / 2));
    MPI_Group rg, wg;
    CHECK_RC(MPI_Comm_remote_group(ic, &rg));
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int zero = 0, tr = -1;
    CHECK_RC(MPI_Group_translate_ranks(rg, 1, &zero, wg, &tr));
    CHECK(tr == remoteWorld(0));
    MPI_Group_free(&rg);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(MPI_Comm_remote_size(MPI_COMM_WORLD, &flag) != MPI_SUCCESS);

    /* Point-to-point names the remote group; MPI_ANY_SOURCE gives a remote rank. */
    if (lrank == 0) {
        int v = wrank;
        CHECK_RC(MPI_Send(&v, 1, MPI_INT, rsize - 1, 5, ic));
    }
    if (lrank == lsize - 1) {
        int v = -1;
        MPI_Status st;
        CHECK_RC(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 5, ic, &st));
        CHECK(st.MPI_SOURCE == 0 && v == remoteWorld(0));
    }

    for (int mode = 0; mode < 3; mode++)
        collectives(ic, mode);
    /* Two nonblocking collectives in flight at once complete in order. */
    MPI_Request two[2];
    int x = wrank, y = -1, bz = left ? 0 : -7;
    CHECK_RC(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_MAX, ic, &two[0]));
    CHECK_RC(MPI_Ibcast(&bz, 1, MPI_INT, left ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, ic, &two[1]));
    CHECK_RC(MPI_Waitall(2, two, MPI_STATUSES_IGNORE));
    CHECK(y == (left ? wsize - 1 : wsize / 2 - 1) && bz == 0);

    /* Scan, Exscan and MPI_IN_PLACE are errors on an intercommunicator. */
    int cls;
    CHECK(MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, ic) != MPI_SUCCESS);
    MPI_Error_class(MPI_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, ic), &cls);
    CHECK(cls == MPI_ERR_COMM);
    MPI_Request rq;
    CHECK(MPI_Iscan(&x, &y, 1, MPI_INT, MPI_SUM, ic, &rq) != MPI_SUCCESS);
    CHECK(MPI_Allreduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM, ic) != MPI_SUCCESS);
    CHECK(MPI_Bcast(&x, 1, MPI_INT, rsize + 3, ic) != MPI_SUCCESS);

    /* Dup, compare, split, create. */
    MPI_Comm d, sp, cr;
    CHECK_RC(MPI_Comm_dup(ic, &d));
    CHECK_RC(MPI_Comm_test_inter(d, &flag));
    CHECK(flag == 1);
    CHECK_RC(MPI_Comm_compare(ic, d, &flag));
    CHECK(flag == MPI_CONGRUENT);
    CHECK_RC(MPI_Comm_compare(ic, MPI_COMM_WORLD, &flag));
    CHECK(flag == MPI_UNEQUAL);
    collectives(d, 1);
    CHECK_RC(MPI_Comm_split(d, lrank == 0 ? 0 : MPI_UNDEFINED, 0, &sp));
    if (lrank == 0) {
        int n = -1;
        CHECK(sp != MPI_COMM_NULL);
        MPI_Comm_remote_size(sp, &n);
        CHECK(n == 1);
        int v = wrank, got = -1;
        CHECK_RC(MPI_Sendrecv(&v, 1, MPI_INT, 0, 1, &got, 1, MPI_INT, 0, 1, sp, MPI_STATUS_IGNORE));
        CHECK(got == remoteWorld(0));
        CHECK_RC(MPI_Comm_free(&sp));
    } else
        CHECK(sp == MPI_COMM_NULL);
    MPI_Group lg, first;
    MPI_Comm_group(ic, &lg);
    int r0 = 0;
    MPI_Group_incl(lg, 1, &r0, &first);
    CHECK_RC(MPI_Comm_create(ic, first, &cr));
    if (lrank == 0) {
        int n = -1;
        MPI_Comm_remote_size(cr, &n);
        CHECK(n == 1);
        CHECK_RC(MPI_Barrier(cr));
        CHECK_RC(MPI_Comm_free(&cr));
    } else
        CHECK(cr == MPI_COMM_NULL);
    MPI_Group_free(&first);
    MPI_Group_free(&lg);

    /* Merge: the right half first when it passes high=0 and the left 1. */
    MPI_Comm m;
    CHECK_RC(MPI_Intercomm_merge(d, left, &m));
    int mr, ms;
    MPI_Comm_rank(m, &mr);
    MPI_Comm_size(m, &ms);
    CHECK(ms == wsize && mr == (left ? wrank + (wsize - wsize / 2) : wrank - wsize / 2));
    int sum = 0;
    CHECK_RC(MPI_Allreduce(&wrank, &sum, 1, MPI_INT, MPI_SUM, m));
    CHECK(sum == wsize * (wsize - 1) / 2);
    CHECK_RC(MPI_Comm_test_inter(m, &flag));
    CHECK(flag == 0);
    /* The dup of world through a merge (high flag 0 on the left). */
    MPI_Comm w2;
    CHECK_RC(MPI_Intercomm_merge(ic, !left, &w2));
    MPI_Comm_rank(w2, &mr);
    CHECK(mr == wrank);
    CHECK_RC(MPI_Comm_compare(w2, MPI_COMM_WORLD, &flag));
    CHECK(flag == MPI_CONGRUENT);
    CHECK_RC(MPI_Barrier(w2));
    int bc = wrank == 1 % wsize ? 99 : 0;
    CHECK_RC(MPI_Bcast(&bc, 1, MPI_INT, 1 % wsize, w2));
    CHECK(bc == 99);
    MPI_Comm_free(&w2);
    MPI_Comm_free(&m);
    MPI_Comm_free(&d);

    /* MPI_Comm_create_group over the odd ranks while the evens talk. */
    MPI_Group odd;
    int ranks[64], nodd = 0;
    for (int i = 1; i < wsize; i += 2) ranks[nodd++] = i;
    MPI_Group_incl(wg, nodd, ranks, &odd);
    if (wrank % 2 == 1) {
        MPI_Comm oc;
        CHECK_RC(MPI_Comm_create_group(MPI_COMM_WORLD, odd, 7, &oc));
        int n = -1, t = 0;
        MPI_Comm_size(oc, &n);
        CHECK(n == nodd);
        CHECK_RC(MPI_Allreduce(&wrank, &t, 1, MPI_INT, MPI_SUM, oc));
        CHECK(t == nodd * nodd);
        MPI_Comm_free(&oc);
    } else {
        int peer = (wrank ^ 2) < wsize ? wrank ^ 2 : wrank, got = -1;
        CHECK_RC(MPI_Sendrecv(&wrank, 1, MPI_INT, peer, 3, &got, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(got == peer);
    }
    MPI_Comm fg;
    CHECK_RC(MPI_Comm_create_from_group(wg, "org.gshmem.test.all", MPI_INFO_NULL, MPI_ERRORS_RETURN, &fg));
    CHECK_RC(MPI_Comm_compare(fg, MPI_COMM_WORLD, &flag));
    CHECK(flag == MPI_CONGRUENT);
    MPI_Comm_free(&fg);
    MPI_Group lgrp, rgrp;
    int lo[64], hi[64], nlo = 0, nhi = 0;
    for (int i = 0; i < wsize; i++) { if (i < wsize / 2) lo[nlo++] = i; else hi[nhi++] = i; }
    MPI_Group_incl(wg, nlo, lo, left ? &lgrp : &rgrp);
    MPI_Group_incl(wg, nhi, hi, left ? &rgrp : &lgrp);
    MPI_Comm fic;
    CHECK_RC(MPI_Intercomm_create_from_groups(lgrp, 0, rgrp, 0, "org.gshmem.test.halves", MPI_INFO_NULL, MPI_ERRORS_RETURN, &fic));
    CHECK_RC(MPI_Comm_remote_size(fic, &flag));
    CHECK(flag == rsize);
    collectives(fic, 0);
    MPI_Comm_free(&fic);
    MPI_Group_free(&lgrp);
    MPI_Group_free(&rgrp);
    MPI_Group_free(&odd);

    /* MPI_Comm_idup of two communicators, started in different orders. */
    MPI_Comm a, b, da, db;
    MPI_Request rr[2];
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &b));
    if (wrank % 2) {
        CHECK_RC(MPI_Comm_idup(a, &da, &rr[0]));
        CHECK_RC(MPI_Comm_idup_with_info(b, MPI_INFO_NULL, &db, &rr[1]));
    } else {
        CHECK_RC(MPI_Comm_idup_with_info(b, MPI_INFO_NULL, &db, &rr[1]));
        CHECK_RC(MPI_Comm_idup(a, &da, &rr[0]));
    }
    CHECK_RC(MPI_Waitall(2, rr, MPI_STATUSES_IGNORE));
    CHECK_RC(MPI_Comm_compare(da, MPI_COMM_WORLD, &flag));
    CHECK(flag == MPI_CONGRUENT);
    CHECK_RC(MPI_Allreduce(&wrank, &sum, 1, MPI_INT, MPI_SUM, db));
    CHECK(sum == wsize * (wsize - 1) / 2);
    MPI_Comm_free(&da);
    MPI_Comm_free(&db);
    MPI_Comm_free(&a);
    MPI_Comm_free(&b);

    /* MPI_Comm_split_type over an intercommunicator: shared memory
     * keeps both groups whole; MPI_UNDEFINED gives MPI_COMM_NULL. */
    MPI_Comm st;
    int ls, rs, ils, irs;
    CHECK_RC(MPI_Comm_split_type(ic, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &st));
    CHECK(st != MPI_COMM_NULL);
    MPI_Comm_size(ic, &ils);
    MPI_Comm_remote_size(ic, &irs);
    MPI_Comm_size(st, &ls);
    MPI_Comm_remote_size(st, &rs);
    CHECK(ls == ils && rs == irs);
    MPI_Comm_free(&st);
    CHECK_RC(MPI_Comm_split_type(ic, MPI_UNDEFINED, 0, MPI_INFO_NULL, &st));
    CHECK(st == MPI_COMM_NULL);

    MPI_Group_free(&wg);
    CHECK_RC(MPI_Comm_free(&ic));
    MPI_Comm_free(&half);
    printf("intercomm ok %d\n", wrank);
    MPI_Finalize();
    return 0;
}
