/* nvshmem_host.c: an NVSHMEM host program built unmodified against
 * nvshmem.h, and the library's exported nvshmem_ symbols called as a
 * program compiled against NVSHMEM's own headers calls them (the macros
 * undefined, the prototypes declared by hand). Prints "nvshmem ok" per PE. */
#include <nvshmem.h>
#include <nvshmemx.h>
#include <non_abi/nvshmemx_error.h>

#undef nvshmem_my_pe
#undef nvshmem_long_atomic_fetch_add
#undef nvshmem_barrier_all
#undef nvshmem_team_n_pes
int nvshmem_my_pe(void);
long nvshmem_long_atomic_fetch_add(long *dest, long value, int pe);
void nvshmem_barrier_all(void);
int nvshmem_team_n_pes(nvshmem_team_t team);

int main(void)
{
    int status = NVSHMEMX_SUCCESS;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    int *x = (int *)nvshmem_malloc(sizeof(int));
    long *ctr = (long *)nvshmem_calloc(1, sizeof(long));
    NVSHMEMI_NULL_ERROR_JMP(x, status, NVSHMEMX_ERROR_OUT_OF_MEMORY, out, "nvshmem_malloc failed\n");
    NVSHMEMI_NULL_ERROR_JMP(ctr, status, NVSHMEMX_ERROR_OUT_OF_MEMORY, out, "nvshmem_calloc failed\n");
    nvshmem_int_p(x, me, (me + 1) % n);
    nvshmem_barrier_all();
    NVSHMEMI_NE_ERROR_JMP(*x, (me + n - 1) % n, NVSHMEMX_ERROR_INTERNAL, out, "got %d from the left\n", *x);
    nvshmem_long_atomic_fetch_add(ctr, me + 1, 0);
    nvshmem_barrier_all();
    if (me == 0 && *ctr != (long)n * (n + 1) / 2)
        NVSHMEMI_ERROR_JMP(status, NVSHMEMX_ERROR_INTERNAL, out, "counter %ld\n", *ctr);
    if (nvshmem_team_n_pes(NVSHMEM_TEAM_WORLD) != n || NVSHMEM_VENDOR_MAJOR_VERSION != 3)
        NVSHMEMI_ERROR_JMP(status, NVSHMEMX_ERROR_INTERNAL, out, "team or version\n");
    nvshmem_free(ctr);
    nvshmem_free(x);
    printf("nvshmem ok %d/%d\n", me, n);
out:
    nvshmem_finalize();
    return status;
}
