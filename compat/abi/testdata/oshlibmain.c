/* oshlibmain.c: RMA, atomics, wait_until and a collective on the static
 * and global data of a shared library the program is linked with
 * (oshlib.c); "shm" as argument: the PEs share a node (shmem_ptr). Prints
 * "oshlib ok" on every PE. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long *lib_counter_addr(void);
int *lib_table_addr(void);
void lib_add(int pe);
long lib_sum(void);
extern long lib_flag;
extern double lib_init[4];

static int failed;
#define CHECK(c, ...)                                              \
    do {                                                           \
        if (!(c)) {                                                \
            printf("PE %d: FAILED %s: ", shmem_my_pe(), #c);       \
            printf(__VA_ARGS__);                                   \
            printf("\n");                                          \
            failed = 1;                                            \
        }                                                          \
    } while (0)

int main(int argc, char **argv)
{
    int node_local = argc > 1 && strcmp(argv[1], "shm") == 0;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n;
    long *counter = lib_counter_addr();
    int *table = lib_table_addr();

    CHECK(lib_init[3] == 4.0, "the library's .data moved with its values (%g)", lib_init[3]);
    CHECK(table[0] == 1 && lib_sum() == 1, "lib_table starts as {1}");
    CHECK(shmem_addr_accessible(counter, right) && shmem_addr_accessible(&lib_flag, right) &&
              shmem_addr_accessible(table, right),
          "the library's statics and globals are symmetric");

    /* Every PE adds one to every PE's static counter, some from inside the
     * library, some from here. */
    for (int pe = 0; pe < n; pe++) {
        if (pe % 2)
            lib_add(pe);
        else
            shmem_long_atomic_inc(counter, pe);
    }
    shmem_barrier_all();
    CHECK(*counter == n, "lib_counter %ld, want %d", *counter, n);

    /* A put of the whole static table into the right neighbour; the
     * library's own code reads what arrived. */
    int src[1024];
    for (int i = 0; i < 1024; i++)
        src[i] = me + 1;
    shmem_barrier_all();
    shmem_int_put(table, src, 1024, right);
    shmem_barrier_all();
    int left = (me + n - 1) % n;
    CHECK(lib_sum() == 1024L * (left + 1), "lib_sum %ld, want %ld", lib_sum(), 1024L * (left + 1));

    /* A get from the library's global .data, and a wait on its global flag. */
    double d[4];
    lib_init[0] = 10 * me;
    shmem_barrier_all();
    shmem_double_get(d, lib_init, 4, right);
    CHECK(d[0] == 10 * right && d[3] == 4.0, "get of lib_init: %g %g", d[0], d[3]);
    shmem_barrier_all();
    shmem_long_atomic_set(&lib_flag, me + 1, right);
    shmem_long_wait_until(&lib_flag, SHMEM_CMP_EQ, left + 1);

    /* A reduction whose dest is the library's static. */
    shmem_barrier_all();
    static long one = 1;
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, counter, &one, 1);
    CHECK(*counter == n, "sum_reduce into lib_counter: %ld", *counter);

    if (n > 1 && node_local) {
        long *p = shmem_ptr(counter, right);
        CHECK(p != NULL && *p == n, "shmem_ptr to the library's static on a node-local PE");
    }
    shmem_barrier_all();
    if (!failed)
        printf("oshlib ok\n");
    shmem_finalize();
    return failed;
}
