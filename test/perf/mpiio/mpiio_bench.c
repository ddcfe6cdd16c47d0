/* mpiio_bench: MPI-IO bandwidth of a 2-D float array of N x N distributed
 * in blocks over a px x py grid of ranks, through a subarray view.
 *
 *   mpiio_bench FILE N coll|indep    write then read back (checked)
 *   mpiio_bench FILE N pwrite        one process, pwrite in 16 MiB pieces
 *   a fifth argument KEY=VALUE sets one info hint on the file
 *
 * Prints one line per phase: "<mode> write|read <MiB/s> <seconds>". Times
 * run from a barrier before the call to a barrier after it: the data is in
 * the page cache when the call returns (no MPI_File_sync is timed, on any
 * MPI); the script drops the cache between runs. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <time.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s FILE N coll|indep|pwrite\n", argv[0]);
        return 2;
    }
    const char *path = argv[1], *mode = argv[3];
    long n = atol(argv[2]);
    double bytes = (double)n * n * sizeof(float);
    if (strcmp(mode, "pwrite") == 0) {
        size_t piece = 16 << 20, total = (size_t)n * n * sizeof(float);
        char *buf = malloc(piece);
        memset(buf, 7, piece);
        int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
        if (fd < 0 || !buf)
            return 1;
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        for (size_t off = 0; off < total; off += piece)
            if (pwrite(fd, buf, piece < total - off ? piece : total - off, off) < 0)
                return 1;
        clock_gettime(CLOCK_MONOTONIC, &b);
        double s = (b.tv_sec - a.tv_sec) + 1e-9 * (b.tv_nsec - a.tv_nsec);
        printf("pwrite write %.1f %.4f\n", bytes / s / (1 << 20), s);
        close(fd);
        return 0;
    }
    MPI_Init(&argc, &argv);
    int rank, size, dims[2] = {0, 0};
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 2, dims);
    int gs[2] = {(int)n, (int)n}, ls[2] = {(int)(n / dims[0]), (int)(n / dims[1])};
    int st[2] = {(rank / dims[1]) * ls[0], (rank % dims[1]) * ls[1]};
    MPI_Datatype sub;
    MPI_Type_create_subarray(2, gs, ls, st, MPI_ORDER_C, MPI_FLOAT, &sub);
    MPI_Type_commit(&sub);
    size_t local = (size_t)ls[0] * ls[1];
    float *a = malloc(local * sizeof(float)), *b = malloc(local * sizeof(float));
    for (size_t i = 0; i < local; i++)
        a[i] = (float)(rank * 1000003 + i % 1000);
    int coll = strcmp(mode, "coll") == 0;
    MPI_File fh;
    MPI_Info info = MPI_INFO_NULL;
    if (argc > 4 && strchr(argv[4], '=')) {
        char *kv = strdup(argv[4]), *eq = strchr(kv, '=');
        *eq = 0;
        MPI_Info_create(&info);
        MPI_Info_set(info, kv, eq + 1);
    }
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
    MPI_File_set_view(fh, 0, MPI_FLOAT, sub, "native", MPI_INFO_NULL);
    for (int phase = 0; phase < 2; phase++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t = MPI_Wtime();
        int rc;
        if (phase == 0)
            rc = coll ? MPI_File_write_at_all(fh, 0, a, (int)local, MPI_FLOAT, MPI_STATUS_IGNORE)
                      : MPI_File_write_at(fh, 0, a, (int)local, MPI_FLOAT, MPI_STATUS_IGNORE);
        else
            rc = coll ? MPI_File_read_at_all(fh, 0, b, (int)local, MPI_FLOAT, MPI_STATUS_IGNORE)
                      : MPI_File_read_at(fh, 0, b, (int)local, MPI_FLOAT, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
        t = MPI_Wtime() - t;
        if (rc != MPI_SUCCESS) {
            fprintf(stderr, "rank %d: error %d\n", rank, rc);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (rank == 0)
            printf("%s %s %.1f %.4f\n", mode, phase ? "read" : "write", bytes / t / (1 << 20), t);
    }
    if (memcmp(a, b, local * sizeof(float)) != 0) {
        fprintf(stderr, "rank %d: read back differs\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_File_close(&fh);
    MPI_Type_free(&sub);
    MPI_Finalize();
    return 0;
}
