/* copy.h: abi_copy, the memcpy of the hot paths' payloads (rma.c's puts
 * and gets, shm.h's and gshmem.c's puts and gets into mapped peers).
 *
 * glibc's memcpy takes rep movsb from about 2 KiB up to
 * rep_movsb_stop_threshold, which on AMD CPUs is the L2 size (1 MiB on
 * this class of EPYC), and a vector loop above it. Here the vector loop is
 * the slower: 64 copies of 1 MiB to distinct places (osu_put_bw's shape)
 * run at 15.6 GB/s whole and 18-19.6 GB/s in 256 KiB pieces. So larger
 * copies go in pieces below any L2 this library meets, as the Go side's
 * internal/memcopy cuts its copies below Go's own switch to non-temporal
 * stores. Overlap is memcpy's: none. */
#ifndef GSHMEM_ABI_COPY_H
#define GSHMEM_ABI_COPY_H

#include <stddef.h>
#include <string.h>

#define ABI_COPY_PIECE ((size_t)256 << 10)

static inline void abi_copy(void *dst, const void *src, size_t n)
{
    if (n <= ABI_COPY_PIECE) {
        memcpy(dst, src, n);
        return;
    }
    char *d = (char *)dst;
    const char *s = (const char *)src;
    for (size_t at = 0; at < n; at += ABI_COPY_PIECE) {
        size_t k = n - at < ABI_COPY_PIECE ? n - at : ABI_COPY_PIECE;
        memcpy(d + at, s + at, k);
    }
}

#endif
