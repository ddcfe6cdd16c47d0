// gshmem.h from C++: the header's declarations under extern "C", a ring
// of puts and a reduction, on the heap of a job of gshmem alone.
#include <cstdio>
#include <gshmem.h>

int main()
{
    gshmem_init();
    int me = gshmem_my_pe(), n = gshmem_n_pes();
    long *slot = static_cast<long *>(gshmem_calloc(2, sizeof(long)));
    gshmem_long_p(&slot[0], me + 1, (me + 1) % n);
    gshmem_barrier_all();
    bool ok = slot[0] == (me + n - 1) % n + 1;
    ok = ok && gshmem_long_sum_reduce(GSHMEM_TEAM_WORLD, &slot[1], &slot[0], 1) == 0 && slot[1] == n * (n + 1) / 2;
    gshmem_free(slot);
    gshmem_finalize();
    if (!ok) {
        std::fprintf(stderr, "gshmem cxx: wrong result on PE %d\n", me);
        return 3;
    }
    std::printf("gshmem cxx ok\n");
    return 0;
}
