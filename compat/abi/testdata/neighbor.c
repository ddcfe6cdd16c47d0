/* Neighborhood collectives on a periodic ring (Cartesian), a graph
 * (MPI_Graph_create) and distributed graphs (adjacent, and made from
 * edges that rank 0 alone gives): the v and w forms blocking, nonblocking
 * and persistent, and the graph queries. */
#include <string.h>
#include "check.h"

/* graph_tests: a ring as an MPI_Graph_create graph (each node's neighbors
 * are the node below, then the node above). */
static void graph_tests(int rank, int size)
{
    int index[4], edges[8];
    for (int i = 0; i < size; i++) {
        index[i] = 2 * (i + 1);
        edges[2 * i] = (i + size - 1) % size;
        edges[2 * i + 1] = (i + 1) % size;
    }
    MPI_Comm g;
    int newrank = -5;
    CHECK_RC(MPI_Graph_map(MPI_COMM_WORLD, size, index, edges, &newrank));
    CHECK(newrank == rank);
    CHECK_RC(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &g));
    CHECK_RC(MPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN));
    int v, nn, ne, cnt, nb[2], gi[4], ge[8];
    CHECK_RC(MPI_Topo_test(g, &v));
    CHECK(v == MPI_GRAPH);
    CHECK_RC(MPI_Graphdims_get(g, &nn, &ne));
    CHECK(nn == size && ne == 2 * size);
    CHECK_RC(MPI_Graph_get(g, 4, 8, gi, ge));
    CHECK(memcmp(gi, index, size * sizeof(int)) == 0 && memcmp(ge, edges, 2 * size * sizeof(int)) == 0);
    CHECK_RC(MPI_Graph_neighbors_count(g, size - 1, &cnt));
    CHECK(cnt == 2);
    CHECK_RC(MPI_Graph_neighbors(g, rank, 2, nb));
    CHECK(nb[0] == edges[2 * rank] && nb[1] == edges[2 * rank + 1]);
    int ec, in, out, wt;
    CHECK(MPI_Graph_neighbors_count(g, size, &cnt) != MPI_SUCCESS);
    int rc = MPI_Dist_graph_neighbors_count(g, &in, &out, &wt);
    MPI_Error_class(rc, &ec);
    CHECK(ec == MPI_ERR_TOPOLOGY);

    /* alltoallv: every block of rank r has r+1 ints, block j's values
     * r*100 + j*10 + k. With one or two ranks both neighbors are one
     * rank, and block i comes from that rank's block i (messages between
     * a pair match in order); otherwise block 0 (from below) is below's
     * block 1. */
    int sb[8], scounts[2], sdispls[2], rb[16], rcounts[2], rdispls[2];
    for (int j = 0; j < 2; j++) {
        scounts[j] = rank + 1;
        sdispls[j] = 4 * j;
        for (int k = 0; k < rank + 1; k++)
            sb[4 * j + k] = rank * 100 + j * 10 + k;
        rcounts[j] = nb[j] + 1;
        rdispls[j] = 6 * j + 1;
    }
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 16; i++)
            rb[i] = -1;
        MPI_Request rq;
        if (round == 0)
            CHECK_RC(MPI_Neighbor_alltoallv(sb, scounts, sdispls, MPI_INT, rb, rcounts, rdispls, MPI_INT, g));
        else if (round == 1) {
            CHECK_RC(MPI_Ineighbor_alltoallv(sb, scounts, sdispls, MPI_INT, rb, rcounts, rdispls, MPI_INT, g, &rq));
            CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        } else {
            MPI_Count cc[2] = {scounts[0], scounts[1]}, rc2[2] = {rcounts[0], rcounts[1]};
            MPI_Aint sd[2] = {sdispls[0], sdispls[1]}, rd[2] = {rdispls[0], rdispls[1]};
            CHECK_RC(MPI_Neighbor_alltoallv_c(sb, cc, sd, MPI_INT, rb, rc2, rd, MPI_INT, g));
        }
        for (int i = 0; i < 2; i++) {
            int j = size <= 2 ? i : 1 - i;
            for (int k = 0; k < nb[i] + 1; k++)
                CHECK(rb[6 * i + 1 + k] == nb[i] * 100 + j * 10 + k);
            CHECK(rb[6 * i] == -1);
        }
    }
    CHECK_RC(MPI_Comm_free(&g));

    /* A graph smaller than the communicator: the others get MPI_COMM_NULL. */
    int index1[1] = {1}, edges1[1] = {0}; /* a self-loop */
    CHECK_RC(MPI_Graph_create(MPI_COMM_WORLD, 1, index1, edges1, 1, &g));
    CHECK((rank == 0) == (g != MPI_COMM_NULL));
    if (g != MPI_COMM_NULL)
        CHECK_RC(MPI_Comm_free(&g));
    CHECK_RC(MPI_Cart_map(MPI_COMM_WORLD, 1, &size, &rank, &newrank));
    CHECK(newrank == rank);
}

/* dist_graph_tests: rank 0 gives every edge r -> r+1 and r -> r+2 (mod
 * size), weighted 1000 r + dest; the others give none. */
static void dist_graph_tests(int rank, int size)
{
    int srcs[4], degs[4], dsts[8], ws[8];
    for (int r = 0; r < size; r++) {
        srcs[r] = r;
        degs[r] = 2;
        for (int k = 0; k < 2; k++) {
            dsts[2 * r + k] = (r + 1 + k) % size;
            ws[2 * r + k] = 1000 * r + dsts[2 * r + k];
        }
    }
    MPI_Comm g;
    if (rank == 0)
        CHECK_RC(MPI_Dist_graph_create(MPI_COMM_WORLD, size, srcs, degs, dsts, ws, MPI_INFO_NULL, 0, &g));
    else
        CHECK_RC(MPI_Dist_graph_create(MPI_COMM_WORLD, 0, srcs, degs, dsts, MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &g));
    int v, in, out, wt, isrc[2], iw[2], odst[2], ow[2];
    CHECK_RC(MPI_Topo_test(g, &v));
    CHECK(v == MPI_DIST_GRAPH);
    CHECK_RC(MPI_Dist_graph_neighbors_count(g, &in, &out, &wt));
    CHECK(in == 2 && out == 2 && wt == 1);
    CHECK_RC(MPI_Dist_graph_neighbors(g, 2, isrc, iw, 2, odst, ow));
    int seen = 0;
    for (int i = 0; i < 2; i++) {
        CHECK(iw[i] == 1000 * isrc[i] + rank && ow[i] == 1000 * rank + odst[i]);
        int d = (rank - isrc[i] + size) % size; /* 1 or 2 ranks below */
        if (size > 2)
            seen |= 1 << d;
    }
    CHECK(size <= 2 || seen == 6);

    /* allgatherv: rank r's block has r+1 copies of r. */
    int mine[4], rb[16];
    for (int k = 0; k < 4; k++)
        mine[k] = rank;
    int rcounts[2] = {isrc[0] + 1, isrc[1] + 1}, rdispls[2] = {1, 8};
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 16; i++)
            rb[i] = -1;
        MPI_Request rq;
        if (round == 0)
            CHECK_RC(MPI_Neighbor_allgatherv(mine, rank + 1, MPI_INT, rb, rcounts, rdispls, MPI_INT, g));
        else if (round == 1) {
            CHECK_RC(MPI_Ineighbor_allgatherv(mine, rank + 1, MPI_INT, rb, rcounts, rdispls, MPI_INT, g, &rq));
            CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        } else {
            CHECK_RC(MPI_Neighbor_allgatherv_init(mine, rank + 1, MPI_INT, rb, rcounts, rdispls, MPI_INT, g, MPI_INFO_NULL, &rq));
            for (int again = 0; again < 2; again++) {
                for (int i = 0; i < 16; i++)
                    rb[i] = -1;
                CHECK_RC(MPI_Start(&rq));
                CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
                CHECK(rb[1] == isrc[0] && rb[8 + isrc[1]] == isrc[1]);
            }
            CHECK_RC(MPI_Request_free(&rq));
        }
        for (int i = 0; i < 2; i++)
            for (int k = 0; k < isrc[i] + 1; k++)
                CHECK(rb[rdispls[i] + k] == isrc[i]);
        CHECK(rb[0] == -1);
    }

    /* alltoallw: to out-neighbor j one int, 100 rank + dest, from a byte
     * displacement; from in-neighbor i into byte displacement 12 i, the
     * first block as MPI_INT, the second as a one-int contiguous type. */
    MPI_Datatype one;
    CHECK_RC(MPI_Type_contiguous(1, MPI_INT, &one));
    CHECK_RC(MPI_Type_commit(&one));
    int sb[2] = {100 * rank + odst[0], 100 * rank + odst[1]}, sc[2] = {1, 1}, rc[2] = {1, 1};
    MPI_Aint sd[2] = {0, sizeof(int)}, rd[2] = {0, 12};
    MPI_Datatype st[2] = {MPI_INT, MPI_INT}, rt[2] = {MPI_INT, one};
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 16; i++)
            rb[i] = -1;
        MPI_Request rq;
        if (round == 0)
            CHECK_RC(MPI_Neighbor_alltoallw(sb, sc, sd, st, rb, rc, rd, rt, g));
        else if (round == 1) {
            CHECK_RC(MPI_Ineighbor_alltoallw(sb, sc, sd, st, rb, rc, rd, rt, g, &rq));
            CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        } else {
            CHECK_RC(MPI_Neighbor_alltoallw_init(sb, sc, sd, st, rb, rc, rd, rt, g, MPI_INFO_NULL, &rq));
            CHECK_RC(MPI_Start(&rq));
            CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
            CHECK_RC(MPI_Request_free(&rq));
        }
        CHECK(rb[0] == 100 * isrc[0] + rank && rb[3] == 100 * isrc[1] + rank && rb[1] == -1);
    }
    CHECK_RC(MPI_Type_free(&one));

    /* alltoallv persistent and in the _c nonblocking form. */
    int ac[2] = {1, 1}, ad[2] = {0, 1}, rdv[2] = {0, 2};
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < 16; i++)
            rb[i] = -1;
        MPI_Request rq;
        if (round == 0) {
            CHECK_RC(MPI_Neighbor_alltoallv_init(sb, ac, ad, MPI_INT, rb, ac, rdv, MPI_INT, g, MPI_INFO_NULL, &rq));
            CHECK_RC(MPI_Start(&rq));
            CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
            CHECK_RC(MPI_Request_free(&rq));
        } else {
            MPI_Count cc[2] = {1, 1};
            MPI_Aint cd[2] = {0, 1}, crd[2] = {0, 2};
            CHECK_RC(MPI_Ineighbor_alltoallv_c(sb, cc, cd, MPI_INT, rb, cc, crd, MPI_INT, g, &rq));
            CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        }
        CHECK(rb[0] == 100 * isrc[0] + rank && rb[2] == 100 * isrc[1] + rank && rb[1] == -1);
    }
    CHECK_RC(MPI_Comm_free(&g));
}

int main(int argc, char **argv)
{
    int rank, size, v;
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    int below = (rank + size - 1) % size, above = (rank + 1) % size;

    MPI_Comm ring;
    int dims[1] = {size}, periods[1] = {1};
    CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
    int got[2] = {-1, -1};
    CHECK_RC(MPI_Neighbor_allgather(&rank, 1, MPI_INT, got, 1, MPI_INT, ring));
    CHECK(got[0] == below && got[1] == above);
    int out[2] = {rank * 10, rank * 10 + 1}; /* to below, to above */
    CHECK_RC(MPI_Neighbor_alltoall(out, 1, MPI_INT, got, 1, MPI_INT, ring));
    CHECK(got[0] == below * 10 + 1 && got[1] == above * 10);
    MPI_Request rq;
    got[0] = got[1] = -1;
    CHECK_RC(MPI_Ineighbor_alltoall(out, 1, MPI_INT, got, 1, MPI_INT, ring, &rq));
    CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK(got[0] == below * 10 + 1 && got[1] == above * 10);
    CHECK_RC(MPI_Comm_free(&ring));

    /* A non-periodic line: the ends have MPI_PROC_NULL neighbors whose blocks stay. */
    MPI_Comm line;
    periods[0] = 0;
    CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &line));
    got[0] = got[1] = -7;
    CHECK_RC(MPI_Neighbor_allgather(&rank, 1, MPI_INT, got, 1, MPI_INT, line));
    CHECK(got[0] == (rank > 0 ? rank - 1 : -7) && got[1] == (rank < size - 1 ? rank + 1 : -7));
    CHECK_RC(MPI_Comm_free(&line));

    /* A distributed graph: each rank hears from the rank below, weighted. */
    MPI_Comm g;
    int w = 5;
    CHECK_RC(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &below, &w, 1, &above, &w, MPI_INFO_NULL, 0, &g));
    CHECK_RC(MPI_Topo_test(g, &v));
    CHECK(v == MPI_DIST_GRAPH);
    int indeg, outdeg, weighted, src, sw, dst, dw;
    CHECK_RC(MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &weighted));
    CHECK(indeg == 1 && outdeg == 1 && weighted == 1);
    CHECK_RC(MPI_Dist_graph_neighbors(g, 1, &src, &sw, 1, &dst, &dw));
    CHECK(src == below && dst == above && sw == 5 && dw == 5);
    int one = -1;
    CHECK_RC(MPI_Ineighbor_allgather(&rank, 1, MPI_INT, &one, 1, MPI_INT, g, &rq));
    CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK(one == below);
    CHECK_RC(MPI_Comm_free(&g));
    CHECK_RC(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &below, MPI_UNWEIGHTED, 1, &above, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g));
    CHECK_RC(MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &weighted));
    CHECK(weighted == 0);
    CHECK_RC(MPI_Comm_free(&g));

    graph_tests(rank, size);
    dist_graph_tests(rank, size);

    CHECK_RC(MPI_Finalize());
    printf("neighbor ok %d\n", rank);
    return 0;
}
