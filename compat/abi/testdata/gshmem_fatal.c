/* gshmem.h's bad arguments end the job with a message, as NVSHMEM's do:
 * the first argument picks the mistake, made on PE 1 only (the others
 * wait in a barrier that never completes, until the job ends). */
#include <stdint.h>
#include <string.h>
#include "shmcheck.h"

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    int provided = -1;
    SCHECK(gshmem_init_thread(GSHMEM_THREAD_MULTIPLE, &provided) == 0 && provided == GSHMEM_THREAD_MULTIPLE);
    gshmem_query_thread(&provided);
    SCHECK(provided == GSHMEM_THREAD_MULTIPLE);
    int me = gshmem_my_pe(), n = gshmem_n_pes();
    long *buf = gshmem_malloc(4 * sizeof(long));
    SCHECK(buf != NULL);
    if (me == 1) {
        long local[8] = {0};
        if (strcmp(what, "pe") == 0)
            gshmem_long_put(buf, local, 1, n); /* no PE n */
        else if (strcmp(what, "addr") == 0)
            gshmem_long_put(local, local, 1, 0); /* dest is not symmetric */
        else if (strcmp(what, "range") == 0)
            gshmem_long_get(local, buf, 8, 0); /* past the object's 4 */
        else if (strcmp(what, "align") == 0)
            gshmem_int_atomic_add((int *)((char *)buf + 2), 1, 0);
        else if (strcmp(what, "free") == 0)
            gshmem_free(buf + 1);
        else if (strcmp(what, "team") == 0)
            (void)gshmem_team_n_pes((gshmem_team_t)77);
        else if (strcmp(what, "stream") == 0) /* on a host heap */
            gshmemx_putmem_on_stream(buf, buf + 1, sizeof(long), 0, NULL);
        else if (strcmp(what, "stream-pe") == 0) /* the PE before the heap */
            gshmemx_long_put_on_stream(buf, buf + 1, 1, -1, NULL);
        else if (strcmp(what, "stream-coll") == 0)
            (void)gshmemx_float_sum_reduce_on_stream(GSHMEM_TEAM_WORLD, (float *)buf, (float *)buf + 1, 1, NULL);
        printf("not fatal\n");
    }
    gshmem_barrier_all();
    gshmem_finalize();
    return 0;
}
