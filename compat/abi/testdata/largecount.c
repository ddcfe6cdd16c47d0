/* The large-count (_c) forms over the int forms. */
#include <limits.h>
#include "check.h"

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Status st;
    MPI_Count n;
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    double out[4] = {rank, 1, 2, 3}, in[4] = {0};
    MPI_Request rq;
    CHECK_RC(MPI_Irecv_c(in, 4, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &rq));
    CHECK_RC(MPI_Send_c(out, 4, MPI_DOUBLE, right, 1, MPI_COMM_WORLD));
    CHECK_RC(MPI_Wait(&rq, &st));
    CHECK(in[0] == left && in[3] == 3);
    CHECK_RC(MPI_Get_count_c(&st, MPI_DOUBLE, &n));
    CHECK(n == 4);
    CHECK_RC(MPI_Get_count_c(&st, MPI_INT, &n));
    CHECK(n == 8);

    long s = rank, t = 0;
    CHECK_RC(MPI_Allreduce_c(&s, &t, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    CHECK(t == (long)size * (size - 1) / 2);
    MPI_Count lb, ext, sz;
    MPI_Datatype v;
    CHECK_RC(MPI_Type_vector_c(2, 1, 3, MPI_INT, &v));
    CHECK_RC(MPI_Type_commit(&v));
    CHECK_RC(MPI_Type_get_extent_c(v, &lb, &ext));
    CHECK(lb == 0 && ext == 16);
    CHECK_RC(MPI_Type_size_c(v, &sz));
    CHECK(sz == 8);
    CHECK_RC(MPI_Type_free(&v));

    char packed[16];
    MPI_Count pos = 0;
    int x = 7 + rank, y = 0;
    CHECK_RC(MPI_Pack_c(&x, 1, MPI_INT, packed, sizeof packed, &pos, MPI_COMM_WORLD));
    CHECK(pos == 4);
    pos = 0;
    CHECK_RC(MPI_Unpack_c(packed, sizeof packed, &pos, &y, 1, MPI_INT, MPI_COMM_WORLD));
    CHECK(y == 7 + rank && pos == 4);

    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int ec;
    MPI_Error_class(MPI_Send_c(out, -((MPI_Count)1 << 40), MPI_DOUBLE, right, 1, MPI_COMM_WORLD), &ec);
    CHECK(ec == MPI_ERR_COUNT);

    /* A count past INT_MAX: INT_MAX+1 bytes from rank 0 to rank 1
     * (MPI_Send_c/Recv_c), then back by MPI_Bcast_c from rank 1. */
    if (size == 2) {
        MPI_Count big = (MPI_Count)INT_MAX + 1;
        char *b = malloc((size_t)big);
        CHECK(b != NULL);
        if (rank == 0) {
            b[0] = 'x';
            b[big - 1] = 'y';
            CHECK_RC(MPI_Send_c(b, big, MPI_BYTE, 1, 9, MPI_COMM_WORLD));
        } else {
            CHECK_RC(MPI_Recv_c(b, big, MPI_BYTE, 0, 9, MPI_COMM_WORLD, &st));
            CHECK(b[0] == 'x' && b[big - 1] == 'y');
            CHECK_RC(MPI_Get_count_c(&st, MPI_BYTE, &n));
            CHECK(n == big);
            int ni;
            CHECK_RC(MPI_Get_count(&st, MPI_BYTE, &ni));
            CHECK(ni == MPI_UNDEFINED);
            b[big - 1] = 'z';
        }
        CHECK_RC(MPI_Bcast_c(b, big, MPI_BYTE, 1, MPI_COMM_WORLD));
        CHECK(b[0] == 'x' && b[big - 1] == 'z');
        free(b);
    }

    long *base;
    MPI_Win win;
    CHECK_RC(MPI_Win_allocate_c(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    CHECK_RC(MPI_Win_fence(0, win));
    long pv = 40 + rank;
    CHECK_RC(MPI_Put_c(&pv, 1, MPI_LONG, right, 0, 1, MPI_LONG, win));
    CHECK_RC(MPI_Win_fence(0, win));
    CHECK(*base == 40 + left);
    CHECK_RC(MPI_Win_free(&win));

    CHECK_RC(MPI_Finalize());
    printf("largecount ok %d\n", rank);
    return 0;
}
