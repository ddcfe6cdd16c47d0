/* Cartesian topologies, Dims_create, predefined attributes, Alloc_mem. */
#include <string.h>
#include "check.h"

int main(int argc, char **argv)
{
    int rank, size, v, flag;
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));

    int d2[2] = {0, 0};
    CHECK_RC(MPI_Dims_create(12, 2, d2));
    CHECK(d2[0] == 4 && d2[1] == 3);
    int d3[3] = {0, 2, 0};
    CHECK_RC(MPI_Dims_create(16, 3, d3));
    CHECK(d3[0] == 4 && d3[1] == 2 && d3[2] == 2);
    int bad[2] = {5, 0};
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    CHECK(MPI_Dims_create(12, 2, bad) == MPI_ERR_DIMS);

    int dims[2] = {0, 0}, periods[2] = {1, 0};
    CHECK_RC(MPI_Dims_create(size, 2, dims));
    CHECK(dims[0] * dims[1] == size);
    MPI_Comm cart;
    CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
    CHECK_RC(MPI_Topo_test(cart, &v));
    CHECK(v == MPI_CART);
    CHECK_RC(MPI_Topo_test(MPI_COMM_WORLD, &v));
    CHECK(v == MPI_UNDEFINED);
    CHECK_RC(MPI_Cartdim_get(cart, &v));
    CHECK(v == 2);
    int c[2], gd[2], gp[2], gc[2], r;
    CHECK_RC(MPI_Cart_coords(cart, rank, 2, c));
    CHECK(c[0] == rank / dims[1] && c[1] == rank % dims[1]);
    CHECK_RC(MPI_Cart_rank(cart, c, &r));
    CHECK(r == rank);
    CHECK_RC(MPI_Cart_get(cart, 2, gd, gp, gc));
    CHECK(gd[0] == dims[0] && gp[0] == 1 && gp[1] == 0 && gc[1] == c[1]);
    int src, dst;
    CHECK_RC(MPI_Cart_shift(cart, 0, 1, &src, &dst));
    CHECK(dst == ((c[0] + 1) % dims[0]) * dims[1] + c[1]);
    CHECK(src == ((c[0] + dims[0] - 1) % dims[0]) * dims[1] + c[1]);
    CHECK_RC(MPI_Cart_shift(cart, 1, 1, &src, &dst));
    CHECK(dst == (c[1] + 1 < dims[1] ? rank + 1 : MPI_PROC_NULL));
    CHECK(src == (c[1] > 0 ? rank - 1 : MPI_PROC_NULL));
    int remain[2] = {0, 1};
    MPI_Comm row;
    CHECK_RC(MPI_Cart_sub(cart, remain, &row));
    CHECK_RC(MPI_Comm_size(row, &v));
    CHECK(v == dims[1]);
    CHECK_RC(MPI_Comm_rank(row, &v));
    CHECK(v == c[1]);
    CHECK_RC(MPI_Comm_free(&row));
    CHECK_RC(MPI_Comm_free(&cart));

    int *tag_ub, *wg;
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag));
    CHECK(flag == 1 && *tag_ub >= 32767);
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &wg, &flag));
    CHECK(flag == 1 && *wg == 0);
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &wg, &flag));
    CHECK(flag == 0);

    double *mem;
    CHECK_RC(MPI_Alloc_mem(1024 * sizeof(double), MPI_INFO_NULL, &mem));
    for (int i = 0; i < 1024; i++)
        mem[i] = rank + i;
    double *big;
    CHECK_RC(MPI_Alloc_mem(64 << 20, MPI_INFO_NULL, &big)); /* past the pool: malloc */
    big[(8 << 20) - 1] = 1;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double in[1024];
    CHECK_RC(MPI_Sendrecv(mem, 1024, MPI_DOUBLE, right, 0, in, 1024, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(in[0] == left && in[1023] == left + 1023);
    CHECK_RC(MPI_Free_mem(mem));
    CHECK_RC(MPI_Free_mem(big));

    CHECK_RC(MPI_Finalize());
    printf("topo ok %d\n", rank);
    return 0;
}
