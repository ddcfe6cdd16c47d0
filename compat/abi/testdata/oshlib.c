/* oshlib.c: a shared library with static and global data, which the
 * program oshlibmain.c is linked with: shmem_init makes its .data and .bss
 * symmetric as it does the program's own (TestOpenSHMEMSharedLibData). */
#include <shmem.h>

static long lib_counter;            /* .bss, static */
static int lib_table[1024] = {1};   /* .data, static */
long lib_flag;                      /* .bss, global */
double lib_init[4] = {1, 2, 3, 4};  /* .data, global */

long *lib_counter_addr(void) { return &lib_counter; }
int *lib_table_addr(void) { return lib_table; }

/* lib_add adds one to lib_counter on pe, from inside the library. */
void lib_add(int pe) { shmem_long_atomic_add(&lib_counter, 1, pe); }

/* lib_sum is the sum of lib_table as the library's own code reads it. */
long lib_sum(void)
{
    long s = 0;
    for (int i = 0; i < 1024; i++)
        s += lib_table[i];
    return s;
}
