/* MPI-IO through the C ABI: every data access call with a check of the
 * file's bytes, views, shared and ordered pointers, atomic mode, external32,
 * a user data representation, error classes through the file's error
 * handler, and a file written by every rank and read back by one rank fewer
 * with another view, overlapping memory types and read-only views. Run with 1 to 4 ranks; the directory is argv[1]. */
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static int rank, size;
static char path[4096];

/* raw reads the file's bytes with POSIX calls. */
static void raw(const char *p, void *buf, size_t n, off_t off)
{
    int fd = open(p, O_RDONLY);
    CHECK(fd >= 0);
    CHECK(pread(fd, buf, n, off) == (ssize_t)n);
    close(fd);
}

static int class_of(int rc)
{
    int c;
    MPI_Error_class(rc, &c);
    return c;
}

static void errors(void)
{
    MPI_File fh;
    MPI_Errhandler eh;
    /* Files default to MPI_ERRORS_RETURN. */
    CHECK_RC(MPI_File_get_errhandler(MPI_FILE_NULL, &eh));
    CHECK(eh == MPI_ERRORS_RETURN);
    char p[4200];
    snprintf(p, sizeof p, "%s.none", path);
    CHECK(class_of(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh)) == MPI_ERR_NO_SUCH_FILE);
    CHECK(fh == MPI_FILE_NULL);
    CHECK(class_of(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh)) == MPI_ERR_AMODE);
    CHECK(class_of(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDWR | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh)) == MPI_ERR_AMODE);
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    CHECK_RC(MPI_File_close(&fh));
    CHECK(class_of(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR, MPI_INFO_NULL, &fh)) == MPI_ERR_FILE_EXISTS);
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    int x = 1;
    CHECK(class_of(MPI_File_write_at(fh, 0, &x, 1, MPI_INT, MPI_STATUS_IGNORE)) == MPI_ERR_READ_ONLY);
    /* A filetype whose displacements decrease: MPI_ERR_IO, as ROMIO says. */
    MPI_Datatype bad;
    int bl[2] = {1, 1}, dl[2] = {4, 0};
    CHECK_RC(MPI_Type_indexed(2, bl, dl, MPI_INT, &bad));
    CHECK_RC(MPI_Type_commit(&bad));
    CHECK(class_of(MPI_File_set_view(fh, 0, MPI_INT, bad, "native", MPI_INFO_NULL)) == MPI_ERR_IO);
    CHECK(class_of(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "xdr", MPI_INFO_NULL)) == MPI_ERR_UNSUPPORTED_DATAREP);
    MPI_Type_free(&bad);
    CHECK_RC(MPI_File_close(&fh));
    CHECK(class_of(MPI_File_close(&fh)) == MPI_ERR_FILE);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        CHECK_RC(MPI_File_delete(p, MPI_INFO_NULL));
        CHECK(class_of(MPI_File_delete(p, MPI_INFO_NULL)) == MPI_ERR_NO_SUCH_FILE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* every_access writes rank r's slot [4r, 4r+4) of 16 ints with each kind
 * of call in turn and checks the bytes. */
static void every_access(void)
{
    MPI_File fh;
    MPI_Status st;
    MPI_Request rq;
    int cnt;
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    for (int round = 0; round < 9; round++) {
        int v[4], got[4];
        for (int i = 0; i < 4; i++)
            v[i] = 1000 * round + 10 * rank + i;
        MPI_Offset at = 4 * rank;
        switch (round) {
        case 0: CHECK_RC(MPI_File_write_at(fh, at, v, 4, MPI_INT, &st)); break;
        case 1: CHECK_RC(MPI_File_write_at_all(fh, at, v, 4, MPI_INT, &st)); break;
        case 2:
            CHECK_RC(MPI_File_seek(fh, at, MPI_SEEK_SET));
            CHECK_RC(MPI_File_write(fh, v, 4, MPI_INT, &st));
            break;
        case 3:
            CHECK_RC(MPI_File_seek(fh, at, MPI_SEEK_SET));
            CHECK_RC(MPI_File_write_all(fh, v, 4, MPI_INT, &st));
            break;
        case 4:
            CHECK_RC(MPI_File_iwrite_at(fh, at, v, 4, MPI_INT, &rq));
            CHECK_RC(MPI_Wait(&rq, &st));
            break;
        case 5:
            CHECK_RC(MPI_File_iwrite_at_all(fh, at, v, 4, MPI_INT, &rq));
            CHECK_RC(MPI_Wait(&rq, &st));
            break;
        case 6:
            CHECK_RC(MPI_File_write_at_all_begin(fh, at, v, 4, MPI_INT));
            CHECK_RC(MPI_File_write_at_all_end(fh, v, &st));
            break;
        case 7:
            CHECK_RC(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
            CHECK_RC(MPI_File_write_ordered(fh, v, 4, MPI_INT, &st));
            break;
        case 8:
            CHECK_RC(MPI_File_seek(fh, at, MPI_SEEK_SET));
            CHECK_RC(MPI_File_iwrite(fh, v, 4, MPI_INT, &rq));
            CHECK_RC(MPI_Wait(&rq, &st));
            break;
        }
        CHECK_RC(MPI_Get_count(&st, MPI_INT, &cnt));
        CHECK(cnt == 4);
        CHECK_RC(MPI_File_sync(fh));
        MPI_Barrier(MPI_COMM_WORLD);
        raw(path, got, sizeof got, 16 * rank);
        CHECK(memcmp(got, v, sizeof v) == 0);
        /* And back, with the matching read. */
        memset(got, 0, sizeof got);
        switch (round) {
        case 0: CHECK_RC(MPI_File_read_at(fh, at, got, 4, MPI_INT, &st)); break;
        case 1: CHECK_RC(MPI_File_read_at_all(fh, at, got, 4, MPI_INT, &st)); break;
        case 2:
            CHECK_RC(MPI_File_seek(fh, at, MPI_SEEK_SET));
            CHECK_RC(MPI_File_read(fh, got, 4, MPI_INT, &st));
            break;
        case 3:
            CHECK_RC(MPI_File_seek(fh, at, MPI_SEEK_SET));
            CHECK_RC(MPI_File_read_all(fh, got, 4, MPI_INT, &st));
            break;
        case 4:
            CHECK_RC(MPI_File_iread_at(fh, at, got, 4, MPI_INT, &rq));
            CHECK_RC(MPI_Wait(&rq, &st));
            break;
        case 5:
            CHECK_RC(MPI_File_iread_at_all(fh, at, got, 4, MPI_INT, &rq));
            CHECK_RC(MPI_Wait(&rq, &st));
            break;
        case 6:
            CHECK_RC(MPI_File_read_at_all_begin(fh, at, got, 4, MPI_INT));
            CHECK_RC(MPI_File_read_at_all_end(fh, got, &st));
            break;
        case 7:
            CHECK_RC(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
            CHECK_RC(MPI_File_read_ordered(fh, got, 4, MPI_INT, &st));
            break;
        case 8:
            CHECK_RC(MPI_File_seek(fh, at, MPI_SEEK_SET));
            CHECK_RC(MPI_File_iread(fh, got, 4, MPI_INT, &rq));
            CHECK_RC(MPI_Wait(&rq, &st));
            break;
        }
        CHECK(memcmp(got, v, sizeof v) == 0);
        MPI_Offset pos;
        CHECK_RC(MPI_File_get_position(fh, &pos));
        if (round == 2 || round == 3 || round == 8)
            CHECK(pos == at + 4);
    }
    /* Shared pointer, independently: each rank's one int somewhere in
     * [0, size), each once. */
    CHECK_RC(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    int mine = 77 + rank;
    CHECK_RC(MPI_File_write_shared(fh, &mine, 1, MPI_INT, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Offset sp;
    CHECK_RC(MPI_File_get_position_shared(fh, &sp));
    CHECK(sp == size);
    int seen[4] = {0};
    raw(path, seen, sizeof(int) * size, 0);
    int found = 0;
    for (int i = 0; i < size; i++)
        found += seen[i] == mine;
    CHECK(found == 1);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    int back = -1;
    CHECK_RC(MPI_File_read_shared(fh, &back, 1, MPI_INT, MPI_STATUS_IGNORE));
    CHECK(back >= 77 && back < 77 + size);
    /* Sizes. */
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_File_set_size(fh, 1000));
    MPI_Offset fs;
    CHECK_RC(MPI_File_get_size(fh, &fs));
    CHECK(fs == 1000);
    CHECK_RC(MPI_File_preallocate(fh, 2000));
    CHECK_RC(MPI_File_get_size(fh, &fs));
    CHECK(fs == 2000);
    int amode;
    CHECK_RC(MPI_File_get_amode(fh, &amode));
    CHECK(amode == (MPI_MODE_CREATE | MPI_MODE_RDWR));
    MPI_Group g;
    int gs;
    CHECK_RC(MPI_File_get_group(fh, &g));
    MPI_Group_size(g, &gs);
    CHECK(gs == size);
    MPI_Group_free(&g);
    MPI_Info info;
    char val[MPI_MAX_INFO_VAL];
    int flag;
    CHECK_RC(MPI_File_get_info(fh, &info));
    CHECK_RC(MPI_Info_get_string(info, "cb_buffer_size", &(int){sizeof val}, val, &flag));
    CHECK(flag);
    MPI_Info_free(&info);
    CHECK_RC(MPI_File_close(&fh));
}

/* views writes a 2-D array of size x 8 ints, each rank a column block
 * through a vector filetype, collectively, then reads it back with one
 * rank fewer (at least one) and a row view. */
static void views(void)
{
    enum { COLS = 8, ROWS = 6 };
    MPI_File fh;
    MPI_Datatype col, ftype;
    int w = COLS / size;
    if (COLS % size)
        w = 1;
    CHECK_RC(MPI_Type_vector(ROWS, w, COLS, MPI_INT, &col));
    CHECK_RC(MPI_Type_create_resized(col, 0, (MPI_Aint)(ROWS * COLS * sizeof(int)), &ftype));
    CHECK_RC(MPI_Type_commit(&ftype));
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    CHECK_RC(MPI_File_set_size(fh, 0));
    MPI_Offset disp = (MPI_Offset)(rank * w * sizeof(int));
    if (rank * w >= COLS)
        disp = 0;
    CHECK_RC(MPI_File_set_view(fh, disp, MPI_INT, ftype, "native", MPI_INFO_NULL));
    int data[ROWS * COLS];
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < w; c++)
            data[r * w + c] = r * COLS + rank * w + c;
    int writes = rank * w < COLS;
    CHECK_RC(MPI_File_write_all(fh, data, writes ? ROWS * w : 0, MPI_INT, MPI_STATUS_IGNORE));
    MPI_Offset d;
    MPI_Datatype et, ft;
    char rep[MPI_MAX_DATAREP_STRING];
    CHECK_RC(MPI_File_get_view(fh, &d, &et, &ft, rep));
    CHECK(d == disp && et == MPI_INT && strcmp(rep, "native") == 0);
    MPI_Type_free(&ft);
    MPI_Offset bo;
    CHECK_RC(MPI_File_get_byte_offset(fh, w, &bo));
    CHECK(bo == disp + (MPI_Offset)(COLS * sizeof(int)));
    CHECK_RC(MPI_File_sync(fh));
    /* One rank fewer reads rows, round-robin. */
    MPI_Comm sub;
    int n = size > 1 ? size - 1 : 1;
    MPI_Comm_split(MPI_COMM_WORLD, rank < n ? 0 : MPI_UNDEFINED, rank, &sub);
    if (sub != MPI_COMM_NULL) {
        MPI_File rf;
        MPI_Datatype row, rtype;
        CHECK_RC(MPI_File_open(sub, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &rf));
        CHECK_RC(MPI_Type_contiguous(COLS, MPI_INT, &row));
        CHECK_RC(MPI_Type_create_resized(row, 0, (MPI_Aint)(n * COLS * sizeof(int)), &rtype));
        CHECK_RC(MPI_Type_commit(&rtype));
        CHECK_RC(MPI_File_set_view(rf, (MPI_Offset)(rank * COLS * sizeof(int)), MPI_INT, rtype, "native", MPI_INFO_NULL));
        int rows = (ROWS - rank + n - 1) / n, got[ROWS * COLS];
        MPI_Status st;
        CHECK_RC(MPI_File_read_all(rf, got, rows * COLS, MPI_INT, &st));
        int cnt;
        MPI_Get_count(&st, MPI_INT, &cnt);
        CHECK(cnt == rows * COLS);
        for (int k = 0; k < rows; k++)
            for (int c = 0; c < COLS; c++)
                CHECK(got[k * COLS + c] == (rank + k * n) * COLS + c || (COLS % size && c >= size));
        CHECK_RC(MPI_File_close(&rf));
        MPI_Type_free(&row);
        MPI_Type_free(&rtype);
        MPI_Comm_free(&sub);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_File_close(&fh));
    MPI_Type_free(&col);
    MPI_Type_free(&ftype);
}

/* subarray: a ROWS x COLS array in row blocks written collectively through
 * subarray views, read back whole by every rank with a darray view of the
 * same blocks. */
static void subarray(void)
{
    enum { ROWS = 12, COLS = 10 };
    int gs[2] = {ROWS, COLS}, ls[2] = {ROWS / size, COLS}, st[2] = {rank * (ROWS / size), 0};
    if (ROWS % size)
        return;
    MPI_Datatype sub, dar;
    CHECK_RC(MPI_Type_create_subarray(2, gs, ls, st, MPI_ORDER_C, MPI_DOUBLE, &sub));
    CHECK_RC(MPI_Type_commit(&sub));
    int distribs[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_NONE}, dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, ps[2] = {size, 1};
    CHECK_RC(MPI_Type_create_darray(size, rank, 2, gs, distribs, dargs, ps, MPI_ORDER_C, MPI_DOUBLE, &dar));
    CHECK_RC(MPI_Type_commit(&dar));
    MPI_File fh;
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_DOUBLE, sub, "native", MPI_INFO_NULL));
    double mine[ROWS * COLS], got[ROWS * COLS];
    int n = ls[0] * ls[1];
    for (int i = 0; i < n; i++)
        mine[i] = (st[0] + i / COLS) * 100 + i % COLS;
    CHECK_RC(MPI_File_write_all(fh, mine, n, MPI_DOUBLE, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_File_sync(fh));
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_DOUBLE, dar, "native", MPI_INFO_NULL));
    CHECK_RC(MPI_File_read_all(fh, got, n, MPI_DOUBLE, MPI_STATUS_IGNORE));
    CHECK(memcmp(got, mine, n * sizeof(double)) == 0);
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_DOUBLE, MPI_DOUBLE, "native", MPI_INFO_NULL));
    CHECK_RC(MPI_File_read_at_all(fh, 0, got, ROWS * COLS, MPI_DOUBLE, MPI_STATUS_IGNORE));
    for (int i = 0; i < ROWS * COLS; i++)
        CHECK(got[i] == (i / COLS) * 100 + i % COLS);
    CHECK_RC(MPI_File_close(&fh));
    MPI_Type_free(&sub);
    MPI_Type_free(&dar);
}

/* atomic: overlapping writes of one range by every rank, in atomic mode:
 * the range holds one rank's values throughout. */
static void atomic(void)
{
    enum { N = 2048 };
    static int v[N], got[N];
    MPI_File fh;
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    CHECK_RC(MPI_File_set_atomicity(fh, 1));
    int flag;
    CHECK_RC(MPI_File_get_atomicity(fh, &flag));
    CHECK(flag);
    for (int i = 0; i < N; i++)
        v[i] = rank + 1;
    for (int k = 0; k < 10; k++) {
        CHECK_RC(MPI_File_write_at(fh, 0, v, N, MPI_INT, MPI_STATUS_IGNORE));
        CHECK_RC(MPI_File_read_at(fh, 0, got, N, MPI_INT, MPI_STATUS_IGNORE));
        for (int i = 0; i < N; i++)
            CHECK(got[i] == got[0]);
    }
    CHECK_RC(MPI_File_close(&fh));
}

/* external32: big-endian in the file, and back. */
static void external32(void)
{
    MPI_File fh;
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "external32", MPI_INFO_NULL));
    int v[2] = {0x01020304, -2}, got[2];
    if (rank == 0)
        CHECK_RC(MPI_File_write_at(fh, 0, v, 2, MPI_INT, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    unsigned char b[4];
    raw(path, b, 4, 0);
    CHECK(b[0] == 1 && b[1] == 2 && b[2] == 3 && b[3] == 4);
    CHECK_RC(MPI_File_read_at(fh, 0, got, 2, MPI_INT, MPI_STATUS_IGNORE));
    CHECK(got[0] == v[0] && got[1] == v[1]);
    MPI_Aint ext;
    CHECK_RC(MPI_File_get_type_extent(fh, MPI_INT, &ext));
    CHECK(ext == 4);
    CHECK_RC(MPI_File_close(&fh));
}

/* external32_sizes: views of types whose external32 sizes are not their
 * sizes in memory (a long: 4 bytes; MPI_DOUBLE_INT: 12, no padding). A
 * vector of longs is portable, so its stride scales to the file's sizes;
 * an hvector's byte stride is kept. */
static void external32_sizes(void)
{
    MPI_File fh;
    MPI_Datatype vec, hvec;
    CHECK_RC(MPI_Type_vector(2, 1, 2, MPI_LONG, &vec));
    CHECK_RC(MPI_Type_commit(&vec));
    CHECK_RC(MPI_Type_create_hvector(2, 1, 16, MPI_LONG, &hvec));
    CHECK_RC(MPI_Type_commit(&hvec));
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    CHECK_RC(MPI_File_set_size(fh, 0));
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_LONG, vec, "external32", MPI_INFO_NULL));
    MPI_Aint ext;
    CHECK_RC(MPI_File_get_type_extent(fh, MPI_LONG, &ext));
    CHECK(ext == 4);
    CHECK_RC(MPI_File_get_type_extent(fh, vec, &ext));
    CHECK(ext == 12);
    CHECK_RC(MPI_File_get_type_extent(fh, hvec, &ext));
    CHECK(ext == 20);
    CHECK_RC(MPI_File_get_type_extent(fh, MPI_DOUBLE_INT, &ext));
    CHECK(ext == 12);
    long v[4] = {1, -2, 0x01020304, 7}, got[4] = {0};
    if (rank == 0)
        CHECK_RC(MPI_File_write_at(fh, 0, v, 4, MPI_LONG, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    unsigned char b[24];
    raw(path, b, sizeof b, 0);
    CHECK(b[3] == 1 && b[8] == 0xff && b[11] == 0xfe && b[12] == 1 && b[15] == 4 && b[23] == 7);
    MPI_Status st;
    int n;
    CHECK_RC(MPI_File_read_at_all(fh, 0, got, 4, MPI_LONG, &st));
    CHECK_RC(MPI_Get_count(&st, MPI_LONG, &n));
    CHECK(n == 4 && memcmp(got, v, sizeof v) == 0);
    /* Pairs: 12 bytes each in the file. */
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_DOUBLE_INT, MPI_DOUBLE_INT, "external32", MPI_INFO_NULL));
    struct { double d; int i; } p[2] = {{1.5, 3}, {-2.0, 4}}, q[2];
    if (rank == 0)
        CHECK_RC(MPI_File_write_at(fh, 0, p, 2, MPI_DOUBLE_INT, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    raw(path, b, 24, 0);
    CHECK(b[0] == 0x3f && b[1] == 0xf8 && b[11] == 3 && b[12] == 0xc0 && b[23] == 4);
    CHECK_RC(MPI_File_read_at(fh, 0, q, 2, MPI_DOUBLE_INT, &st));
    CHECK_RC(MPI_Get_count(&st, MPI_DOUBLE_INT, &n));
    CHECK(n == 2 && q[0].d == 1.5 && q[0].i == 3 && q[1].d == -2.0 && q[1].i == 4);
    CHECK_RC(MPI_File_close(&fh));
    MPI_Type_free(&vec);
    MPI_Type_free(&hvec);
}

/* A user representation that stores each int plus 1. */
static int rep_write(void *user, MPI_Datatype dt, int count, void *file, MPI_Offset pos, void *extra)
{
    (void)pos, (void)extra;
    CHECK(dt == MPI_INT);
    for (int i = 0; i < count; i++)
        ((int *)file)[i] = ((int *)user)[i] + 1;
    return MPI_SUCCESS;
}

static int rep_read(void *user, MPI_Datatype dt, int count, void *file, MPI_Offset pos, void *extra)
{
    (void)pos, (void)extra, (void)dt;
    for (int i = 0; i < count; i++)
        ((int *)user)[i] = ((int *)file)[i] - 1;
    return MPI_SUCCESS;
}

static int rep_extent(MPI_Datatype dt, MPI_Aint *extent, void *extra)
{
    (void)extra;
    MPI_Aint lb;
    return MPI_Type_get_extent(dt, &lb, extent);
}

static void datarep(void)
{
    CHECK_RC(MPI_Register_datarep("plus1", rep_read, rep_write, rep_extent, NULL));
    CHECK(class_of(MPI_Register_datarep("plus1", rep_read, rep_write, rep_extent, NULL)) == MPI_ERR_DUP_DATAREP);
    MPI_File fh;
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "plus1", MPI_INFO_NULL));
    int v[3] = {rank, 10, 20}, got[3];
    CHECK_RC(MPI_File_write_at(fh, 3 * rank, v, 3, MPI_INT, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    int r[3];
    raw(path, r, sizeof r, 12 * rank);
    CHECK(r[0] == rank + 1 && r[1] == 11 && r[2] == 21);
    CHECK_RC(MPI_File_read_at(fh, 3 * rank, got, 3, MPI_INT, MPI_STATUS_IGNORE));
    CHECK(memcmp(got, v, sizeof v) == 0);
    CHECK_RC(MPI_File_close(&fh));
}

/* overlaps: a memory type that names bytes twice may be written from; a
 * filetype with overlapping entries is refused on a writable file and read
 * through on a read-only one, independently and collectively. */
static void overlaps(void)
{
    MPI_File fh;
    MPI_Datatype twice, ftype;
    /* Memory: one int written three times (an hvector of stride 0). */
    CHECK_RC(MPI_Type_create_hvector(3, 1, 0, MPI_INT, &twice));
    CHECK_RC(MPI_Type_commit(&twice));
    int bl[2] = {3, 1}, dl[2] = {0, 1};
    CHECK_RC(MPI_Type_indexed(2, bl, dl, MPI_INT, &ftype));
    CHECK_RC(MPI_Type_commit(&ftype));
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    CHECK_RC(MPI_File_set_size(fh, 0));
    CHECK(class_of(MPI_File_set_view(fh, 0, MPI_INT, ftype, "native", MPI_INFO_NULL)) == MPI_ERR_IO);
    if (rank == 0) {
        int v[8] = {10, 11, 12, 13, 14, 15, 16, 17}, seven = 7;
        CHECK_RC(MPI_File_write_at(fh, 0, v, 8, MPI_INT, MPI_STATUS_IGNORE));
        CHECK_RC(MPI_File_write_at(fh, 32, &seven, 1, twice, MPI_STATUS_IGNORE));
    }
    CHECK_RC(MPI_File_close(&fh));
    int got[3];
    raw(path, got, sizeof got, 32);
    CHECK(got[0] == 7 && got[1] == 7 && got[2] == 7);
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_INT, ftype, "native", MPI_INFO_NULL));
    /* Tiles of 12 bytes: 10 11 12 11 | 13 14 15 14. */
    int want[8] = {10, 11, 12, 11, 13, 14, 15, 14}, r[8], c[8];
    MPI_Status st;
    int n;
    CHECK_RC(MPI_File_read_at(fh, 0, r, 8, MPI_INT, &st));
    CHECK_RC(MPI_Get_count(&st, MPI_INT, &n));
    CHECK(n == 8 && memcmp(r, want, sizeof want) == 0);
    CHECK_RC(MPI_File_read_at_all(fh, 0, c, 8, MPI_INT, MPI_STATUS_IGNORE));
    CHECK(memcmp(c, want, sizeof want) == 0);
    CHECK_RC(MPI_File_close(&fh));
    MPI_Type_free(&twice);
    MPI_Type_free(&ftype);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(argc > 1);
    snprintf(path, sizeof path, "%s/file-%d", argv[1], size);
    errors();
    every_access();
    views();
    subarray();
    atomic();
    external32();
    external32_sizes();
    datarep();
    overlaps();
    printf("file ok %d/%d\n", rank, size);
    MPI_Finalize();
    return 0;
}
