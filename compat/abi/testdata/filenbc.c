/* Nonblocking collective MPI-IO (MPI_File_iwrite_all, iread_all,
 * iwrite_at_all, iread_at_all): the start is local (MPI-4.1 section
 * 14.4.5), so rank 0 starts each access and then sends synchronously to
 * rank 1, which receives before it starts its own, and the job may not
 * deadlock. The file is a size x 2 block-distributed 2-D array of ints
 * written through subarray views, twice in flight at once, with small
 * collective buffers over two aggregators and with the defaults; its
 * bytes are checked with POSIX reads, and one rank completes its read by
 * MPI_Test. Run with 2 to 4 ranks; the directory is argv[1]. */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

enum { ROWS = 24, COLS = 16 }; /* per rank block: ROWS/size x COLS/2, whole */

static int rank, size;

/* handshake: rank 0 tells rank 1, who has not started the access yet,
 * that it has; MPI_Ssend completes only once rank 1 receives. */
static void handshake(int before)
{
    int token = 42;
    if (rank == 0 && !before)
        CHECK_RC(MPI_Ssend(&token, 1, MPI_INT, 1, 7, MPI_COMM_WORLD));
    if (rank == 1 && before) {
        CHECK_RC(MPI_Recv(&token, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(token == 42);
    }
}

static void run(const char *path, MPI_Info info)
{
    /* Rows split over size ranks, columns over 2: each rank two blocks
     * (one per column half), the file ROWS x COLS. */
    int gs[2] = {ROWS, COLS}, ls[2] = {ROWS / size, COLS / 2};
    MPI_Datatype sub[2];
    for (int h = 0; h < 2; h++) {
        int st[2] = {rank * ls[0], h * ls[1]};
        CHECK_RC(MPI_Type_create_subarray(2, gs, ls, st, MPI_ORDER_C, MPI_INT, &sub[h]));
        CHECK_RC(MPI_Type_commit(&sub[h]));
    }
    int n = ls[0] * ls[1];
    int *a = malloc(2 * n * sizeof(int)), *b = calloc(2 * n, sizeof(int));
    CHECK(a && b);
    for (int h = 0; h < 2; h++)
        for (int i = 0; i < n; i++) {
            int r = rank * ls[0] + i / ls[1], c = h * ls[1] + i % ls[1];
            a[h * n + i] = r * COLS + c;
        }
    MPI_File fh[2];
    for (int h = 0; h < 2; h++) {
        CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh[h]));
        CHECK_RC(MPI_File_set_view(fh[h], 0, MPI_INT, sub[h], "native", MPI_INFO_NULL));
    }
    /* Two writes in flight, one per handle: iwrite_at_all and
     * iwrite_all. */
    MPI_Request rq[2];
    MPI_Status st[2];
    int cnt;
    handshake(1);
    CHECK_RC(MPI_File_iwrite_at_all(fh[0], 0, a, n, MPI_INT, &rq[0]));
    handshake(0);
    CHECK_RC(MPI_File_iwrite_all(fh[1], a + n, n, MPI_INT, &rq[1]));
    CHECK_RC(MPI_Waitall(2, rq, st));
    for (int h = 0; h < 2; h++) {
        CHECK_RC(MPI_Get_count(&st[h], MPI_INT, &cnt));
        CHECK(cnt == n);
        CHECK_RC(MPI_File_sync(fh[h]));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int *whole = malloc(ROWS * COLS * sizeof(int));
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0 && whole);
    CHECK(pread(fd, whole, ROWS * COLS * sizeof(int), 0) == (ssize_t)(ROWS * COLS * sizeof(int)));
    close(fd);
    for (int i = 0; i < ROWS * COLS; i++)
        CHECK(whole[i] == i);
    free(whole);
    /* Back: iread_all on one handle, iread_at_all on the other. */
    handshake(1);
    CHECK_RC(MPI_File_seek(fh[0], 0, MPI_SEEK_SET));
    CHECK_RC(MPI_File_iread_all(fh[0], b, n, MPI_INT, &rq[0]));
    handshake(0);
    CHECK_RC(MPI_File_iread_at_all(fh[1], 0, b + n, n, MPI_INT, &rq[1]));
    if (rank == size - 1) {
        for (int done = 0; !done;)
            CHECK_RC(MPI_Testall(2, rq, &done, st));
    } else {
        CHECK_RC(MPI_Waitall(2, rq, st));
    }
    CHECK(memcmp(a, b, 2 * n * sizeof(int)) == 0);
    MPI_Offset pos;
    CHECK_RC(MPI_File_get_position(fh[0], &pos));
    CHECK(pos == n);
    /* A read past the end reports what the file held. */
    MPI_File_set_view(fh[0], 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    int *all = malloc((ROWS * COLS + 5) * sizeof(int));
    CHECK(all);
    CHECK_RC(MPI_File_iread_at_all(fh[0], 0, all, ROWS * COLS + 5, MPI_INT, &rq[0]));
    CHECK_RC(MPI_Wait(&rq[0], &st[0]));
    CHECK_RC(MPI_Get_count(&st[0], MPI_INT, &cnt));
    CHECK(cnt == ROWS * COLS);
    for (int i = 0; i < ROWS * COLS; i++)
        CHECK(all[i] == i);
    free(all);
    for (int h = 0; h < 2; h++) {
        CHECK_RC(MPI_File_close(&fh[h]));
        MPI_Type_free(&sub[h]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        CHECK_RC(MPI_File_delete(path, MPI_INFO_NULL));
    free(a);
    free(b);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(argc > 1 && size >= 2 && ROWS % size == 0);
    char path[4096];
    snprintf(path, sizeof path, "%s/filenbc-%d", argv[1], size);
    MPI_Info small;
    MPI_Info_create(&small);
    MPI_Info_set(small, "cb_buffer_size", "100");
    MPI_Info_set(small, "cb_nodes", "2");
    MPI_Info_set(small, "romio_cb_write", "enable");
    MPI_Info_set(small, "romio_cb_read", "enable");
    run(path, small);
    MPI_Info_free(&small);
    run(path, MPI_INFO_NULL);
    printf("filenbc ok %d/%d\n", rank, size);
    MPI_Finalize();
    return 0;
}
