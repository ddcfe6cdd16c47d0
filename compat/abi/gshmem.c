//go:build cgo

/* The untyped calls of gshmem.h, the symmetric heap's C host API, and the
 * cores of shm.h that do not inline: setup and heap management go to Go
 * (gshmem.go); RMA, strided RMA and signals into mapped PEs stay here;
 * locks are Go's. gshmem_sync.c has the waits, ordering, teams and
 * collectives. */

#include <stdarg.h>
#include <stdio.h>
#include "shm.h"

abi_shmem abi_shm;
shm_device shm_dev;

void shm_fatal(const char *call, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    abiint_shmem_fatal((char *)call, msg);
    _exit(1); /* not reached: Go ends the job */
}

void shm_put_go(const char *call, uint64_t obj, uint64_t off, const void *src, size_t n, int pe, int nbi)
{
    abiint_shmem_put((char *)call, obj, off, (uintptr_t)src, n, pe, nbi);
}

void shm_get_go(const char *call, void *dst, uint64_t obj, uint64_t off, size_t n, int pe, int nbi)
{
    abiint_shmem_get((char *)call, (uintptr_t)dst, obj, off, n, pe, nbi);
}

uint64_t shm_amo_go(const char *call, uint64_t obj, uint64_t off, int width, int op, uint64_t v, uint64_t cmp, int pe)
{
    return abiint_shmem_amo((char *)call, obj, off, width, op, v, cmp, pe);
}

/* ------------------------------------------------------------ setup --- */

void gshmem_init(void)
{
    if (abiint_shmem_init(0, 0) != 0)
        _exit(1); /* Go printed why */
}

int gshmem_init_thread(int requested, int *provided)
{
    (void)requested;
    if (provided != NULL)
        *provided = GSHMEM_THREAD_MULTIPLE;
    return abiint_shmem_init(0, 0);
}

void gshmem_query_thread(int *provided)
{
    shm_ready("gshmem_query_thread");
    if (provided != NULL)
        *provided = GSHMEM_THREAD_MULTIPLE;
}

void gshmem_finalize(void)
{
    abiint_shmem_finalize();
}

int gshmem_my_pe(void)
{
    shm_ready("gshmem_my_pe");
    return abi_shm.my_pe;
}

int gshmem_n_pes(void)
{
    shm_ready("gshmem_n_pes");
    return abi_shm.n_pes;
}

void gshmem_global_exit(int status)
{
    abiint_shmem_global_exit(status);
    _exit(status);
}

void gshmem_info_get_version(int *major, int *minor)
{
    if (major != NULL)
        *major = GSHMEM_MAJOR_VERSION;
    if (minor != NULL)
        *minor = GSHMEM_MINOR_VERSION;
}

void gshmem_info_get_name(char *name)
{
    if (name != NULL)
        snprintf(name, GSHMEM_MAX_NAME_LEN, "gshmem (libmpi_abi %s build)", abiint_shmem_cuda_build() ? "CUDA" : "host");
}

int gshmem_pe_accessible(int pe)
{
    shm_ready("gshmem_pe_accessible");
    return (unsigned)pe < (unsigned)abi_shm.n_pes;
}

int gshmem_addr_accessible(const void *addr, int pe)
{
    uint64_t obj, off;
    return gshmem_pe_accessible(pe) && shm_find(addr, 0, &obj, &off);
}

void *gshmem_ptr(const void *dest, int pe)
{
    shm_ready("gshmem_ptr");
    shm_check_pe("gshmem_ptr", pe);
    uint64_t obj, off = shm_locate("gshmem_ptr", "dest", dest, 0, &obj);
    if (shm_dev.on) {
        /* The peer's device memory as mapped here: for kernels and
         * cudaMemcpy, as nvshmem_ptr gives on a GPU heap. */
        uintptr_t b = __atomic_load_n(&shm_dev.peers[pe], __ATOMIC_ACQUIRE);
        return b == 0 ? NULL : (void *)(b + off);
    }
    uint8_t *p = shm_peer(pe);
    return p == NULL ? NULL : p + off;
}

int gshmemx_heap_on_device(void)
{
    shm_ready("gshmemx_heap_on_device");
    return shm_dev.on != 0;
}

/* ------------------------------------------------------------- heap --- */

void *gshmem_malloc(size_t size)
{
    shm_ready("gshmem_malloc");
    return (void *)abiint_shmem_alloc((char *)"gshmem_malloc", size, 0, 0);
}

void *gshmem_calloc(size_t count, size_t size)
{
    shm_ready("gshmem_calloc");
    if (size != 0 && count > SIZE_MAX / size)
        return NULL;
    return (void *)abiint_shmem_alloc((char *)"gshmem_calloc", count * size, 0, 1);
}

void *gshmem_align(size_t alignment, size_t size)
{
    shm_ready("gshmem_align");
    return (void *)abiint_shmem_alloc((char *)"gshmem_align", size, alignment, 0);
}

void *gshmem_realloc(void *ptr, size_t size)
{
    shm_ready("gshmem_realloc");
    if (ptr == NULL)
        return gshmem_malloc(size);
    if (size == 0) {
        gshmem_free(ptr);
        return NULL;
    }
    return (void *)abiint_shmem_realloc((uintptr_t)ptr, size);
}

void gshmem_free(void *ptr)
{
    shm_ready("gshmem_free");
    abiint_shmem_free((uintptr_t)ptr);
}

/* -------------------------------------------------------------- RMA --- */

void gshmem_putmem(void *dest, const void *source, size_t nelems, int pe)
{
    shm_put("gshmem_putmem", dest, source, nelems, 1, pe, 0);
}

void gshmem_getmem(void *dest, const void *source, size_t nelems, int pe)
{
    shm_get("gshmem_getmem", dest, source, nelems, 1, pe, 0);
}

void gshmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe)
{
    shm_put("gshmem_putmem_nbi", dest, source, nelems, 1, pe, 1);
}

void gshmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe)
{
    shm_get("gshmem_getmem_nbi", dest, source, nelems, 1, pe, 1);
}

/* shm_istride is iput (put 1) and iget: nelems elements of size bytes,
 * dst and sst elements apart in dest and source. The symmetric side's
 * whole extent is checked first; a mapped PE gets a copy per element. */
void shm_istride(const char *call, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                 size_t size, int pe, int put)
{
    shm_ready(call);
    shm_check_pe(call, pe);
    if (nelems == 0)
        return;
    if (dst < 1 || sst < 1)
        shm_fatal(call, "strides %td and %td: both must be at least 1", dst, sst);
    ptrdiff_t sym = put ? dst : sst;
    size_t span = shm_bytes(call, shm_bytes(call, nelems - 1, (size_t)sym) + 1, size);
    uint64_t obj, off = shm_locate(call, put ? "dest" : "source", put ? dest : src, span, &obj);
    uint8_t *p = shm_peer(pe);
    if (p == NULL) {
        abiint_shmem_istride((char *)call, obj, off, (uintptr_t)(put ? src : dest), dst, sst, nelems, size, pe, put);
        return;
    }
    uint8_t *d = put ? p + off : dest;
    const uint8_t *s = put ? (const uint8_t *)src : p + off;
    for (size_t i = 0; i < nelems; i++)
        memcpy(d + i * (size_t)dst * size, s + i * (size_t)sst * size, size);
    if (put) {
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        shm_ring(abi_shm.bells[pe]);
    }
}

/* ------------------------------------------------------------ locks --- */

static uint64_t locate_lock(const char *call, const long *lock, uint64_t *obj)
{
    shm_ready(call);
    uint64_t off = shm_locate(call, "lock", lock, sizeof *lock, obj);
    if (off % sizeof *lock != 0)
        shm_fatal(call, "lock %p is not aligned to its %zu bytes", (const void *)lock, sizeof *lock);
    return off;
}

void gshmem_set_lock(long *lock)
{
    uint64_t obj, off = locate_lock("gshmem_set_lock", lock, &obj);
    abiint_shmem_lock((char *)"gshmem_set_lock", obj, off, 0);
}

int gshmem_test_lock(long *lock)
{
    uint64_t obj, off = locate_lock("gshmem_test_lock", lock, &obj);
    return abiint_shmem_lock((char *)"gshmem_test_lock", obj, off, 1);
}

void gshmem_clear_lock(long *lock)
{
    uint64_t obj, off = locate_lock("gshmem_clear_lock", lock, &obj);
    abiint_shmem_lock((char *)"gshmem_clear_lock", obj, off, 2);
}

/* ---------------------------------------------------------- signals --- */

/* signal updates the signal word at off on the mapped heap p, after the
 * data (the atomic is sequentially consistent: a peer that sees the
 * signal sees the data), and rings its doorbell. */
static void signal_at(uint8_t *p, uint64_t off, uint64_t value, int op, int pe)
{
    uint64_t *w = (uint64_t *)(p + off);
    if (op == GSHMEM_SIGNAL_ADD)
        __atomic_fetch_add(w, value, __ATOMIC_SEQ_CST);
    else
        __atomic_store_n(w, value, __ATOMIC_SEQ_CST);
    shm_ring(abi_shm.bells[pe]);
}

void shm_put_signal(const char *call, void *dest, const void *src, size_t nelems, size_t size, uint64_t *sig,
                    uint64_t value, int op, int pe, int nbi)
{
    uint64_t obj, off, sobj, soff;
    size_t n = shm_signal_args(call, dest, nelems, size, sig, op, pe, &obj, &off, &sobj, &soff);
    uint8_t *p = shm_peer(pe);
    if (p == NULL) {
        abiint_shmem_put_signal((char *)call, obj, off, (uintptr_t)src, n, sobj, soff, value, op, pe, nbi);
        return;
    }
    if (n != 0)
        abi_copy(p + off, src, n);
    signal_at(p, soff, value, op, pe);
}

void gshmem_putmem_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,
                          int sig_op, int pe)
{
    shm_put_signal("gshmem_putmem_signal", dest, source, nelems, 1, sig_addr, signal, sig_op, pe, 0);
}

void gshmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,
                              int sig_op, int pe)
{
    shm_put_signal("gshmem_putmem_signal_nbi", dest, source, nelems, 1, sig_addr, signal, sig_op, pe, 1);
}

void gshmemx_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
    const char *call = "gshmemx_signal_op";
    shm_ready(call);
    shm_check_pe(call, pe);
    shm_check_sig_op(call, sig_op);
    uint64_t sobj, soff = shm_locate_sig(call, sig_addr, &sobj);
    uint8_t *p = shm_peer(pe);
    if (p == NULL) {
        abiint_shmem_put_signal((char *)call, 0, 0, 0, 0, sobj, soff, signal, sig_op, pe, 0);
        return;
    }
    signal_at(p, soff, signal, sig_op, pe);
}

uint64_t gshmem_signal_fetch(const uint64_t *sig_addr)
{
    const char *call = "gshmem_signal_fetch";
    shm_ready(call);
    uint64_t sobj, soff = shm_locate_sig(call, sig_addr, &sobj);
    if (shm_dev.on)
        return shm_read_word(call, sobj, soff, 8);
    return __atomic_load_n((uint64_t *)(abi_shm.base + soff), __ATOMIC_SEQ_CST);
}
