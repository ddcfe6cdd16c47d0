//go:build cgo

/* The untyped calls of gshmem.h, the symmetric heap's C host API, and the
 * cores of shm.h that do not inline: setup and heap management go to Go
 * (gshmem.go), RMA, atomics and signals into mapped PEs stay here, waits
 * look once and then sleep in Go, collectives and teams are Go's. */

#include <stdarg.h>
#include <stdio.h>
#include "shm.h"

abi_shmem abi_shm;

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
    if (abiint_shmem_init(0, 0, 0) != 0)
        _exit(1); /* Go printed why */
}

int gshmemx_init_attr(unsigned int flags, gshmemx_init_attr_t *attr)
{
    if (flags & ~GSHMEMX_INIT_WITH_MPI_COMM) {
        fprintf(stderr, "gshmem: gshmemx_init_attr: unknown flags 0x%x\n", flags);
        return 1;
    }
    if (!(flags & GSHMEMX_INIT_WITH_MPI_COMM))
        return abiint_shmem_init(0, 0, 0);
    if (attr == NULL || attr->mpi_comm == NULL) {
        fprintf(stderr, "gshmem: gshmemx_init_attr: GSHMEMX_INIT_WITH_MPI_COMM needs attr->mpi_comm (an MPI_Comm *)\n");
        return 1;
    }
    return abiint_shmem_init(1, (uintptr_t) * (MPI_Comm *)attr->mpi_comm, 0);
}

int gshmem_init_thread(int requested, int *provided)
{
    (void)requested;
    if (provided != NULL)
        *provided = GSHMEM_THREAD_MULTIPLE;
    return abiint_shmem_init(0, 0, 0);
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
        snprintf(name, GSHMEM_MAX_NAME_LEN, "gshmem (libmpi_abi host build)");
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
    uint8_t *p = shm_peer(pe);
    return p == NULL ? NULL : p + off;
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

void *gshmem_team_ptr(gshmem_team_t team, const void *dest, int pe)
{
    shm_ready("gshmem_team_ptr");
    int wpe = gshmem_team_translate_pe(team, pe, GSHMEM_TEAM_WORLD);
    if (wpe < 0)
        shm_fatal("gshmem_team_ptr", "PE %d is not a member of team %llu", pe, (unsigned long long)team);
    return gshmem_ptr(dest, wpe);
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

static void check_sig_op(const char *call, int op)
{
    if (op != GSHMEM_SIGNAL_SET && op != GSHMEM_SIGNAL_ADD)
        shm_fatal(call, "sig_op %d is neither GSHMEM_SIGNAL_SET nor GSHMEM_SIGNAL_ADD", op);
}

static uint64_t locate_sig(const char *call, const void *sig, uint64_t *obj)
{
    uint64_t off = shm_locate(call, "sig_addr", sig, 8, obj);
    if (off % 8 != 0)
        shm_fatal(call, "sig_addr %p is not aligned to 8 bytes", sig);
    return off;
}

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
    shm_ready(call);
    shm_check_pe(call, pe);
    check_sig_op(call, op);
    size_t n = shm_bytes(call, nelems, size);
    uint64_t obj = 0, off = 0, sobj, soff = locate_sig(call, sig, &sobj);
    if (n != 0)
        off = shm_locate(call, "dest", dest, n, &obj);
    uint8_t *p = shm_peer(pe);
    if (p == NULL) {
        abiint_shmem_put_signal((char *)call, obj, off, (uintptr_t)src, n, sobj, soff, value, op, pe, nbi);
        return;
    }
    if (n != 0)
        memcpy(p + off, src, n);
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
    check_sig_op(call, sig_op);
    uint64_t sobj, soff = locate_sig(call, sig_addr, &sobj);
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
    uint64_t sobj, soff = locate_sig(call, sig_addr, &sobj);
    return __atomic_load_n((uint64_t *)(abi_shm.base + soff), __ATOMIC_SEQ_CST);
}

/* ------------------------------------------------------------ waits --- */

/* holds compares the width-byte word at p with value as kind says. */
static int holds(const void *p, int width, int kind, int cmp, uint64_t value)
{
    int64_t a, b;
    uint64_t ua, ub;
    switch (width) {
    case 2: {
        uint16_t x = __atomic_load_n((const uint16_t *)p, __ATOMIC_SEQ_CST);
        a = (int16_t)x, b = (int16_t)(uint16_t)value, ua = x, ub = (uint16_t)value;
        break;
    }
    case 4: {
        uint32_t x = __atomic_load_n((const uint32_t *)p, __ATOMIC_SEQ_CST);
        a = (int32_t)x, b = (int32_t)(uint32_t)value, ua = x, ub = (uint32_t)value;
        break;
    }
    default: {
        uint64_t x = __atomic_load_n((const uint64_t *)p, __ATOMIC_SEQ_CST);
        a = (int64_t)x, b = (int64_t)value, ua = x, ub = value;
    }
    }
    int s = kind == ABI_SHM_SINT;
    switch (cmp) {
    case GSHMEM_CMP_EQ: return ua == ub;
    case GSHMEM_CMP_NE: return ua != ub;
    case GSHMEM_CMP_GT: return s ? a > b : ua > ub;
    case GSHMEM_CMP_GE: return s ? a >= b : ua >= ub;
    case GSHMEM_CMP_LT: return s ? a < b : ua < ub;
    default: return s ? a <= b : ua <= ub;
    }
}

static const uint8_t *locate_ivar(const char *call, const void *ivar, int width, int cmp, uint64_t *obj, uint64_t *off)
{
    shm_ready(call);
    if (cmp < GSHMEM_CMP_EQ || cmp > GSHMEM_CMP_LE)
        shm_fatal(call, "cmp %d is not a GSHMEM_CMP_* comparison", cmp);
    *off = shm_locate(call, "ivar", ivar, (size_t)width, obj);
    if (*off % (uint64_t)width != 0)
        shm_fatal(call, "ivar %p is not aligned to its %d bytes", ivar, width);
    return abi_shm.base + *off;
}

void shm_wait(const char *call, void *ivar, int width, int kind, int cmp, uint64_t value)
{
    uint64_t obj, off;
    const uint8_t *p = locate_ivar(call, ivar, width, cmp, &obj, &off);
    if (holds(p, width, kind, cmp, value))
        return;
    abiint_shmem_wait((char *)call, obj, off, width, kind, cmp, value);
}

int shm_test(const char *call, void *ivar, int width, int kind, int cmp, uint64_t value)
{
    uint64_t obj, off;
    return holds(locate_ivar(call, ivar, width, cmp, &obj, &off), width, kind, cmp, value);
}

/* shm_scan is one wait or test over an array of words: what
 * shm_scan_done reads each time Go's Await polls it. */
typedef struct shm_scan {
    const uint8_t *p;       /* the first element, in this PE's heap */
    size_t n;
    const int *status;      /* nonzero: the element is left out (may be NULL) */
    int width, kind, cmp, mode;
    uint64_t value;
    const uint8_t *values;  /* the _vector forms: one value per element, else NULL */
    size_t *indices;        /* SOME: where the indices go */
    size_t result;          /* ANY: the index (SIZE_MAX for none); SOME: the count; ALL: 1 when all hold */
} shm_scan;

int shm_scan_done(uintptr_t scan)
{
    shm_scan *s = (shm_scan *)scan;
    size_t active = 0, count = 0;
    int all = 1;
    for (size_t i = 0; i < s->n; i++) {
        if (s->status != NULL && s->status[i] != 0)
            continue;
        active++;
        uint64_t v = s->value;
        if (s->values != NULL)
            v = shm_bits(s->values + i * (size_t)s->width, (size_t)s->width);
        if (!holds(s->p + i * (size_t)s->width, s->width, s->kind, s->cmp, v)) {
            all = 0;
            continue;
        }
        if (s->mode == ABI_SET_ANY) {
            s->result = i;
            return 1;
        }
        if (s->mode == ABI_SET_SOME && s->indices != NULL)
            s->indices[count] = i;
        count++;
    }
    switch (s->mode) {
    case ABI_SET_ALL:
        s->result = all;
        return all;
    case ABI_SET_ANY:
        s->result = SIZE_MAX;
        return active == 0; /* every element left out: nothing to wait for */
    default:
        s->result = count;
        return count > 0 || active == 0;
    }
}

size_t shm_wait_set(const char *call, void *ivars, size_t nelems, size_t *indices, const int *status, int width,
                    int kind, int cmp, uint64_t value, const void *values, int mode, int wait)
{
    shm_scan s = {.n = nelems, .status = status, .width = width, .kind = kind, .cmp = cmp, .mode = mode,
                  .value = value, .values = values, .indices = indices};
    if (nelems == 0) {
        shm_ready(call);
        return mode == ABI_SET_ANY ? SIZE_MAX : mode == ABI_SET_ALL;
    }
    uint64_t obj, off;
    size_t n = shm_bytes(call, nelems, (size_t)width);
    s.p = locate_ivar(call, ivars, width, cmp, &obj, &off);
    if (n > (size_t)width)
        shm_locate(call, "ivars", ivars, n, &obj);
    if (mode == ABI_SET_SOME && indices == NULL)
        shm_fatal(call, "indices is NULL");
    if (!shm_scan_done((uintptr_t)&s) && wait)
        abiint_shmem_await((char *)call, (uintptr_t)&s);
    return s.result;
}

uint64_t gshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    const char *call = "gshmem_signal_wait_until";
    uint64_t obj, off;
    const uint8_t *p = locate_ivar(call, sig_addr, 8, cmp, &obj, &off);
    if (holds(p, 8, ABI_SHM_UINT, cmp, cmp_value))
        return __atomic_load_n((const uint64_t *)p, __ATOMIC_SEQ_CST);
    return abiint_shmem_signal_wait((char *)call, obj, off, cmp, cmp_value);
}

/* ---------------------------------------------- ordering and syncs --- */

/* Operations into mapped PEs are complete when they return (stores and
 * atomics of this process); a fence orders them. Operations Go carried
 * (pending) need its quiet or fence. */
enum { SYNC_QUIET = 0, SYNC_FENCE, SYNC_BARRIER_ALL, SYNC_SYNC_ALL, SYNC_BARRIER, SYNC_TEAM };

void gshmem_quiet(void)
{
    shm_ready("gshmem_quiet");
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (__atomic_exchange_n(&abi_shm.pending, 0, __ATOMIC_SEQ_CST) != 0)
        abiint_shmem_sync((char *)"gshmem_quiet", SYNC_QUIET, 0);
}

void gshmem_fence(void)
{
    shm_ready("gshmem_fence");
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (__atomic_load_n(&abi_shm.pending, __ATOMIC_SEQ_CST) != 0)
        abiint_shmem_sync((char *)"gshmem_fence", SYNC_FENCE, 0);
}

void gshmem_barrier_all(void)
{
    shm_ready("gshmem_barrier_all");
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    __atomic_store_n(&abi_shm.pending, 0, __ATOMIC_SEQ_CST);
    abiint_shmem_sync((char *)"gshmem_barrier_all", SYNC_BARRIER_ALL, 0);
}

void gshmem_sync_all(void)
{
    shm_ready("gshmem_sync_all");
    abiint_shmem_sync((char *)"gshmem_sync_all", SYNC_SYNC_ALL, 0);
}

void gshmem_barrier(gshmem_team_t team)
{
    shm_ready("gshmem_barrier");
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    __atomic_store_n(&abi_shm.pending, 0, __ATOMIC_SEQ_CST);
    abiint_shmem_sync((char *)"gshmem_barrier", SYNC_BARRIER, team);
}

int gshmem_team_sync(gshmem_team_t team)
{
    shm_ready("gshmem_team_sync");
    return abiint_shmem_sync((char *)"gshmem_team_sync", SYNC_TEAM, team);
}

/* ------------------------------------------------------------ teams --- */

int gshmem_team_my_pe(gshmem_team_t team)
{
    shm_ready("gshmem_team_my_pe");
    return abiint_shmem_team_pe((char *)"gshmem_team_my_pe", team, 0);
}

int gshmem_team_n_pes(gshmem_team_t team)
{
    shm_ready("gshmem_team_n_pes");
    return abiint_shmem_team_pe((char *)"gshmem_team_n_pes", team, 1);
}

int gshmem_team_translate_pe(gshmem_team_t src_team, int src_pe, gshmem_team_t dest_team)
{
    shm_ready("gshmem_team_translate_pe");
    return abiint_shmem_team_translate(src_team, src_pe, dest_team);
}

int gshmem_team_split_strided(gshmem_team_t parent_team, int start, int stride, int size,
                              const gshmem_team_config_t *config, long config_mask, gshmem_team_t *new_team)
{
    shm_ready("gshmem_team_split_strided");
    int contexts = (config != NULL && (config_mask & GSHMEM_TEAM_NUM_CONTEXTS)) ? config->num_contexts : 0;
    gshmem_team_t t = GSHMEM_TEAM_INVALID;
    int rc = abiint_shmem_team_split(parent_team, start, stride, size, contexts, &t);
    if (new_team != NULL)
        *new_team = t;
    return rc;
}

int gshmem_team_split_2d(gshmem_team_t parent_team, int xrange, const gshmem_team_config_t *xaxis_config,
                         long xaxis_mask, gshmem_team_t *xaxis_team, const gshmem_team_config_t *yaxis_config,
                         long yaxis_mask, gshmem_team_t *yaxis_team)
{
    shm_ready("gshmem_team_split_2d");
    int xc = (xaxis_config != NULL && (xaxis_mask & GSHMEM_TEAM_NUM_CONTEXTS)) ? xaxis_config->num_contexts : 0;
    int yc = (yaxis_config != NULL && (yaxis_mask & GSHMEM_TEAM_NUM_CONTEXTS)) ? yaxis_config->num_contexts : 0;
    gshmem_team_t x = GSHMEM_TEAM_INVALID, y = GSHMEM_TEAM_INVALID;
    int rc = abiint_shmem_team_split_2d(parent_team, xrange, xc, yc, &x, &y);
    if (xaxis_team != NULL)
        *xaxis_team = x;
    if (yaxis_team != NULL)
        *yaxis_team = y;
    return rc;
}

int gshmem_team_get_config(gshmem_team_t team, long config_mask, gshmem_team_config_t *config)
{
    shm_ready("gshmem_team_get_config");
    if (team == GSHMEM_TEAM_INVALID || config == NULL)
        return 1;
    int contexts = abiint_shmem_team_contexts((char *)"gshmem_team_get_config", team);
    if (config_mask & GSHMEM_TEAM_NUM_CONTEXTS)
        config->num_contexts = contexts;
    return 0;
}

void gshmem_team_destroy(gshmem_team_t team)
{
    shm_ready("gshmem_team_destroy");
    abiint_shmem_team_destroy(team);
}

/* ------------------------------------------------------ collectives --- */

int shm_coll(const char *call, int coll, gshmem_team_t team, void *dest, const void *src, size_t nelems, size_t size,
             int kind, int op, int root)
{
    shm_ready(call);
    shm_bytes(call, nelems, size);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return abiint_shmem_coll((char *)call, coll, team, (uintptr_t)dest, (uintptr_t)src, nelems, size, kind, op, root,
                             1, 1);
}

int shm_alltoalls(const char *call, gshmem_team_t team, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                  size_t nelems, size_t size)
{
    shm_ready(call);
    shm_bytes(call, nelems, size);
    if (dst < 1 || sst < 1)
        shm_fatal(call, "strides %td and %td: both must be at least 1", dst, sst);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return abiint_shmem_coll((char *)call, ABI_COLL_ALLTOALLS, team, (uintptr_t)dest, (uintptr_t)src, nelems, size,
                             ABI_SHM_UINT, 0, 0, dst, sst);
}

int gshmem_alltoallsmem(gshmem_team_t team, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems)
{
    return shm_alltoalls("gshmem_alltoallsmem", team, dest, source, dst, sst, nelems, 1);
}

int gshmem_broadcastmem(gshmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root)
{
    return shm_coll("gshmem_broadcastmem", ABI_COLL_BROADCAST, team, dest, source, nelems, 1, ABI_SHM_UINT, 0, PE_root);
}

int gshmem_fcollectmem(gshmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return shm_coll("gshmem_fcollectmem", ABI_COLL_FCOLLECT, team, dest, source, nelems, 1, ABI_SHM_UINT, 0, 0);
}

int gshmem_collectmem(gshmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return shm_coll("gshmem_collectmem", ABI_COLL_COLLECT, team, dest, source, nelems, 1, ABI_SHM_UINT, 0, 0);
}

int gshmem_alltoallmem(gshmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return shm_coll("gshmem_alltoallmem", ABI_COLL_ALLTOALL, team, dest, source, nelems, 1, ABI_SHM_UINT, 0, 0);
}
