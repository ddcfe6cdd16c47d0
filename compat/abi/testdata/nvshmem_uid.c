/* nvshmem_uid.c: NVSHMEM's unique-id initialization and buffer
 * registration, built unmodified against nvshmem.h.
 *   nvshmem_uid FILE RANK N   processes no launcher started: rank 0 makes
 *                             the id and writes it to FILE, the others
 *                             read it from there
 *   nvshmem_uid               under gshmem run: MPI_Init, the id made on
 *                             rank 0 and broadcast with MPI_Bcast, as
 *                             NVIDIA's uid-based-init example does
 * Each PE puts its number into the right neighbour and prints "uid ok r/n". */
#include <mpi.h>
#include <nvshmem.h>
#include <nvshmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int fail(const char *what)
{
    fprintf(stderr, "nvshmem_uid: %s\n", what);
    return 1;
}

static int read_id(const char *file, nvshmemx_uniqueid_t *id)
{
    for (int i = 0; i < 3000; i++) { /* 30 s */
        FILE *f = fopen(file, "rb");
        if (f != NULL) {
            size_t n = fread(id, 1, sizeof *id, f);
            fclose(f);
            if (n == sizeof *id)
                return 0;
        }
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    return 1;
}

int main(int argc, char **argv)
{
    nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
    nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
    int rank, n, mpi = argc < 4;
    if (sizeof(nvshmemx_uniqueid_t) != 128 || sizeof(nvshmemx_init_attr_t) != 144)
        return fail("NVSHMEM's struct sizes");
    if (nvshmemx_init_status() != NVSHMEM_STATUS_NOT_INITIALIZED)
        return fail("init status before init");
    if (mpi) {
        MPI_Init(&argc, &argv);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &n);
        if (rank == 0 && nvshmemx_get_uniqueid(&id) != 0)
            return fail("get_uniqueid");
        MPI_Bcast(&id, sizeof id, MPI_UINT8_T, 0, MPI_COMM_WORLD);
    } else {
        rank = atoi(argv[2]);
        n = atoi(argv[3]);
        if (rank == 0) {
            char tmp[4096];
            snprintf(tmp, sizeof tmp, "%s.tmp", argv[1]);
            FILE *f = fopen(tmp, "wb");
            if (nvshmemx_get_uniqueid(&id) != 0 || f == NULL || fwrite(&id, sizeof id, 1, f) != 1 || fclose(f) != 0 ||
                rename(tmp, argv[1]) != 0)
                return fail("making and writing the id");
        } else if (read_id(argv[1], &id) != 0) {
            return fail("no id in the file after 30 s");
        }
    }
    if (nvshmemx_set_attr_uniqueid_args(rank, n, &id, &attr) != 0)
        return fail("set_attr_uniqueid_args");
    if (nvshmemx_set_attr_uniqueid_args(n, n, &id, &attr) == 0)
        return fail("set_attr_uniqueid_args took rank == nranks");
    if (nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr) != 0)
        return fail("init_attr");
    int me = nvshmem_my_pe();
    if (me != rank || nvshmem_n_pes() != n || nvshmemx_init_status() != NVSHMEM_STATUS_IS_INITIALIZED)
        return fail("PE numbering or init status after init");

    /* A registered local buffer as the source of a put. */
    int *x = (int *)nvshmem_malloc(sizeof(int));
    int *src = (int *)malloc(64 * sizeof(int));
    if (x == NULL || src == NULL)
        return fail("allocation");
    if (nvshmemx_buffer_register(src, 64 * sizeof(int)) != 0)
        return fail("buffer_register");
    if (nvshmemx_buffer_register(src + 8, sizeof(int)) == 0)
        return fail("an overlapping registration was taken");
    *x = -1;
    src[0] = me;
    nvshmem_barrier_all();
    nvshmem_putmem(x, src, sizeof(int), (me + 1) % n);
    nvshmem_barrier_all();
    if (*x != (me + n - 1) % n)
        return fail("the put from the registered buffer");
    if (nvshmemx_buffer_unregister(src) != 0 || nvshmemx_buffer_unregister(src) == 0)
        return fail("buffer_unregister");
    if (nvshmemx_buffer_register(src, sizeof(int)) != 0)
        return fail("register after unregister");
    nvshmemx_buffer_unregister_all();
    if (nvshmemx_buffer_unregister(src) == 0)
        return fail("unregister after unregister_all");
    if (nvshmemx_buffer_register_symmetric(src, 64, 0) != NULL)
        return fail("register_symmetric is refused here");
    printf("uid ok %d/%d\n", me, n);
    fflush(stdout);
    nvshmem_free(x);
    free(src);
    nvshmem_finalize();
    if (mpi)
        MPI_Finalize();
    return 0;
}
