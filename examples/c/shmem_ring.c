/* shmem_ring.c: a symmetric-heap program in C, written as for NVSHMEM's
 * host API with nvshmem renamed gshmem, built and run on gshmem:
 *
 *   go build -o bin/gshmem ./cmd/gshmem
 *   bin/gshmem abi install --prefix $HOME/gshmem-mpi
 *   $HOME/gshmem-mpi/bin/mpicc -o shmem_ring examples/c/shmem_ring.c
 *   $HOME/gshmem-mpi/bin/mpiexec -n 4 ./shmem_ring
 *
 * Each PE sends a block to its right neighbour with a put-with-signal,
 * waits for its left neighbour's, and the PEs sum what they received. */
#include <stdio.h>
#include <gshmem.h>

enum { N = 1024, ROUNDS = 10 };

int main(void)
{
    gshmem_init();
    int me = gshmem_my_pe(), n = gshmem_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    long *block = gshmem_malloc(N * sizeof(long));
    uint64_t *arrived = gshmem_calloc(1, sizeof(uint64_t));
    long *mine = gshmem_malloc(sizeof(long)), *total = gshmem_malloc(sizeof(long));
    long data[N];

    for (int r = 1; r <= ROUNDS; r++) {
        for (int i = 0; i < N; i++)
            data[i] = (long)me * r;
        /* The block, then the signal: when right sees the signal, the
         * block is there. */
        gshmem_long_put_signal(block, data, N, arrived, 1, GSHMEM_SIGNAL_ADD, right);
        gshmem_signal_wait_until(arrived, GSHMEM_CMP_GE, (uint64_t)r);
        if (block[N - 1] != (long)left * r) {
            fprintf(stderr, "PE %d: round %d: got %ld from PE %d\n", me, r, block[N - 1], left);
            gshmem_global_exit(1);
        }
        gshmem_barrier_all(); /* everyone read its block before the next round's puts */
    }
    *mine = block[0];
    gshmem_long_sum_reduce(GSHMEM_TEAM_WORLD, total, mine, 1);
    if (me == 0)
        printf("%d PEs, %d rounds: sum of the last blocks' first elements %ld (expected %ld)\n", n, ROUNDS,
               *total, (long)ROUNDS * n * (n - 1) / 2);
    gshmem_free(total);
    gshmem_free(mine);
    gshmem_free(arrived);
    gshmem_free(block);
    gshmem_finalize();
    return 0;
}
