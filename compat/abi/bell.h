/* bell.h: waking the sleepers of a heap's doorbell from C, as the Go side
 * does (shmem.Mapped.Doorbell): four uint32 words, a sequence, then the
 * counts of user, runtime and lock waiters. After its writes, ordered
 * before the load of a count by a sequentially consistent atomic or fence,
 * a writer that finds the count it rings not zero adds 1 to the sequence
 * and wakes every futex(2) waiter on it (a shared wake: sleepers may be
 * other processes). */
#ifndef GSHMEM_ABI_BELL_H
#define GSHMEM_ABI_BELL_H

#include <limits.h>
#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { BELL_SEQ = 0, BELL_USER = 1, BELL_CTRL = 2, BELL_LOCK = 3 };

static inline void bell_ring(uint32_t *bell, int count)
{
    if (__atomic_load_n(&bell[count], __ATOMIC_SEQ_CST) != 0) {
        __atomic_add_fetch(&bell[BELL_SEQ], 1, __ATOMIC_SEQ_CST);
        syscall(SYS_futex, &bell[BELL_SEQ], FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
    }
}

#endif
