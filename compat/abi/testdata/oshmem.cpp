// shmem.h from C++ (oshc++): the typed calls, a global's put, the
// deprecated names; no C11 generics in C++, as the specification says.
#include <shmem.h>
#include <pshmem.h>
#include <cstdio>

static long ring[4];

int main()
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    long v = me;
    shmem_long_put(&ring[0], &v, 1, (me + 1) % n);
    shmem_barrier_all();
    long got = shmem_long_atomic_fetch(&ring[0], me);
    pshmem_barrier_all();
    if (got != (me + n - 1) % n || _my_pe() != me) {
        std::fprintf(stderr, "PE %d: got %ld\n", me, got);
        shmem_global_exit(1);
    }
    std::printf("oshmem c++ ok %d/%d\n", me, n);
    shmem_finalize();
    return 0;
}
