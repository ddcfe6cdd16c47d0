/* Neighborhood collectives on a periodic ring (Cartesian) and a
 * distributed graph. */
#include "check.h"

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

    CHECK_RC(MPI_Finalize());
    printf("neighbor ok %d\n", rank);
    return 0;
}
