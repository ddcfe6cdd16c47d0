//go:build cgo

/* OpenSHMEM 1.5's untyped routines (shmem.h) over gshmem.h's engine: one
 * heap and one set of PEs, whichever API (or MPI) started them. The typed
 * routines are zshmem.c's, the collectives of active sets shmem_coll.c's.
 * Each routine is pshmem_X; zshmem.c makes shmem_X its weak alias. */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "oshmem.h"

struct shmemi_ctx shmemi_ctx_default = {SHMEM_TEAM_WORLD, 0, 0, NULL};
shm_static_seg shm_static[SHM_STATIC_MAX];
uint32_t shm_static_n;

/* ------------------------------------------- symmetric data objects --- */

/* The data segments shmem_init makes symmetric: the main program's
 * writable data (.data and .bss, less the part RELRO makes read-only after
 * relocation), page-rounded, and the same of every shared library the
 * program was started with, except the system's (libc and the loader, whose
 * data other threads use while it moves), gshmem's own libraries (the Go
 * runtime's data) and the CUDA libraries. Libraries opened later (dlopen
 * after shmem_init) are not symmetric. */
struct oshi_segs {
    uintptr_t *lo, *len;
    int n, max, first;
    uintptr_t self; /* the load address of this library */
};

static int system_lib(const char *path)
{
    static const char *const dirs[] = {"/lib/", "/lib32/", "/lib64/", "/libx32/", "/usr/lib/", "/usr/lib32/",
                                       "/usr/lib64/", "/usr/libx32/", "/usr/local/cuda", NULL};
    for (int i = 0; dirs[i]; i++)
        if (strncmp(path, dirs[i], strlen(dirs[i])) == 0)
            return 1;
    /* Wherever installed: gshmem's own, and the libraries its transports
     * run threads in (UCX, CUDA's driver and runtime), which are live when
     * shmem_init gets here. */
    static const char *const names[] = {"libmpi_abi.so", "libgshmem_mpifort.so", "ld-linux", "linux-vdso",
                                        "libucp.so", "libucs.so", "libuct.so", "libucm.so", "libcuda.so",
                                        "libcudart.so", "libnvidia-", NULL};
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (int i = 0; names[i]; i++)
        if (strncmp(base, names[i], strlen(names[i])) == 0)
            return 1;
    return 0;
}

static int data_segs(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct oshi_segs *s = arg;
    int main_prog = s->first;
    s->first = 0;
    if (!main_prog && (info->dlpi_addr == s->self || !info->dlpi_name || !info->dlpi_name[0] ||
                       system_lib(info->dlpi_name)))
        return 0;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), relro = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_GNU_RELRO)
            relro = (info->dlpi_addr + ph->p_vaddr + ph->p_memsz) & ~(page - 1); /* protected up to here */
    }
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W) || ph->p_memsz == 0)
            continue;
        uintptr_t start = info->dlpi_addr + ph->p_vaddr;
        uintptr_t lo = start & ~(page - 1), hi = (start + ph->p_memsz + page - 1) & ~(page - 1);
        if (relro > lo && relro <= hi)
            lo = relro;
        if (hi <= lo)
            continue;
        if (s->n == s->max)
            return 1; /* more than SHM_STATIC_MAX: the rest stay private (shmem_static.go says so) */
        s->lo[s->n] = lo;
        s->len[s->n] = hi - lo;
        s->n++;
        if (main_prog)
            break; /* the program's first writable segment, as before */
    }
    return 0;
}

/* oshi_data_segments fills lo and len with the symmetric data segments
 * (at most max, the main program's first) and returns how many. */
int oshi_data_segments(uintptr_t *lo, uintptr_t *len, int max)
{
    Dl_info self;
    struct oshi_segs s = {lo, len, 0, max, 1, 0};
    if (dladdr((void *)oshi_data_segments, &self) != 0)
        s.self = (uintptr_t)self.dli_fbase;
    dl_iterate_phdr(data_segs, &s);
    return s.n;
}

/* oshi_data_alias moves the data at lo into the heap object at heap (len
 * bytes, page-aligned, of the heap's shared mapping) and maps that object
 * at lo in its place: the program's globals then live in the symmetric
 * heap, where every transport reaches them. It returns 0 or an errno. */
int oshi_data_alias(void *heap, uintptr_t lo, size_t len)
{
    memcpy(heap, (void *)lo, len);
    void *at = mremap(heap, 0, len, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)lo);
    if (at == MAP_FAILED)
        return errno;
    return at == (void *)lo ? 0 : EFAULT;
}

/* ------------------------------------------------------------ setup --- */

static void init_data(const char *call)
{
    uintptr_t lo[SHM_STATIC_MAX], len[SHM_STATIC_MAX];
    int n = oshi_data_segments(lo, len, SHM_STATIC_MAX);
    abiint_osh_static((char *)call, lo, len, n);
}

void pshmem_init(void)
{
    abiint_osh_env();
    gshmem_init();
    init_data("shmem_init");
    abiint_osh_info();
}

int pshmem_init_thread(int requested, int *provided)
{
    if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE) {
        fprintf(stderr, "gshmem: shmem_init_thread: requested %d is not a SHMEM_THREAD_* level\n", requested);
        return 1;
    }
    abiint_osh_env();
    int rc = gshmem_init_thread(requested, provided);
    if (rc == 0) {
        init_data("shmem_init_thread");
        abiint_osh_info();
    }
    return rc;
}

void pshmem_query_thread(int *provided) { gshmem_query_thread(provided); }
void pshmem_finalize(void) { gshmem_finalize(); }
int pshmem_my_pe(void) { return gshmem_my_pe(); }
int pshmem_n_pes(void) { return gshmem_n_pes(); }
void pshmem_global_exit(int status) { gshmem_global_exit(status); }
int pshmem_pe_accessible(int pe) { return gshmem_pe_accessible(pe); }
int pshmem_addr_accessible(const void *addr, int pe) { return gshmem_addr_accessible(addr, pe); }

void *pshmem_ptr(const void *dest, int pe)
{
    void *p = gshmem_ptr(dest, pe);
    /* This PE's own object is where the program holds it (a global's own
     * address, not the heap's view of it). */
    return pe == abi_shm.my_pe ? (void *)dest : p;
}

void *pshmem_team_ptr(shmem_team_t team, const void *dest, int pe)
{
    shm_ready("shmem_team_ptr");
    int wpe = gshmem_team_translate_pe(team, pe, SHMEM_TEAM_WORLD);
    if (wpe < 0)
        return NULL; /* an invalid team, or pe not in it */
    return pshmem_ptr(dest, wpe);
}

void pshmem_info_get_version(int *major, int *minor)
{
    if (major != NULL)
        *major = SHMEM_MAJOR_VERSION;
    if (minor != NULL)
        *minor = SHMEM_MINOR_VERSION;
}

void pshmem_info_get_name(char *name)
{
    if (name != NULL)
        snprintf(name, SHMEM_MAX_NAME_LEN, "%s", SHMEM_VENDOR_STRING);
}

/* ----------------------------------------------------------- memory --- */

void *pshmem_malloc(size_t size) { return gshmem_malloc(size); }
void pshmem_free(void *ptr) { gshmem_free(ptr); }
void *pshmem_realloc(void *ptr, size_t size) { return gshmem_realloc(ptr, size); }
void *pshmem_align(size_t alignment, size_t size) { return gshmem_align(alignment, size); }
void *pshmem_calloc(size_t count, size_t size) { return gshmem_calloc(count, size); }

void *pshmem_malloc_with_hints(size_t size, long hints)
{
    (void)hints; /* every object takes atomics and signals from any PE */
    return gshmem_malloc(size);
}

/* ------------------------------------------------------------ teams --- */

int pshmem_team_my_pe(shmem_team_t team) { return gshmem_team_my_pe(team); }
int pshmem_team_n_pes(shmem_team_t team) { return gshmem_team_n_pes(team); }

int pshmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config)
{
    return gshmem_team_get_config(team, config_mask, (gshmem_team_config_t *)config);
}

int pshmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team)
{
    return gshmem_team_translate_pe(src_team, src_pe, dest_team);
}

int pshmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                              const shmem_team_config_t *config, long config_mask, shmem_team_t *new_team)
{
    if (parent_team == SHMEM_TEAM_INVALID) { /* no team, and nonzero, as the specification says */
        if (new_team != NULL)
            *new_team = SHMEM_TEAM_INVALID;
        return 1;
    }
    return gshmem_team_split_strided(parent_team, start, stride, size, (const gshmem_team_config_t *)config,
                                     config_mask, new_team);
}

int pshmem_team_split_2d(shmem_team_t parent_team, int xrange, const shmem_team_config_t *xaxis_config,
                         long xaxis_mask, shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                         long yaxis_mask, shmem_team_t *yaxis_team)
{
    if (parent_team == SHMEM_TEAM_INVALID) {
        if (xaxis_team != NULL)
            *xaxis_team = SHMEM_TEAM_INVALID;
        if (yaxis_team != NULL)
            *yaxis_team = SHMEM_TEAM_INVALID;
        return 1;
    }
    return gshmem_team_split_2d(parent_team, xrange, (const gshmem_team_config_t *)xaxis_config, xaxis_mask,
                                xaxis_team, (const gshmem_team_config_t *)yaxis_config, yaxis_mask, yaxis_team);
}

void pshmem_team_destroy(shmem_team_t team) { gshmem_team_destroy(team); }

/* --------------------------------------------------------- contexts --- */

int pshmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    shm_ready("shmem_team_create_ctx");
    if (ctx == NULL)
        return 1;
    *ctx = SHMEM_CTX_INVALID;
    if (team == SHMEM_TEAM_INVALID || options & ~(SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE))
        return 1;
    int n = gshmem_team_n_pes(team);
    if (n <= 0 || gshmem_team_my_pe(team) < 0)
        return 1; /* not a member */
    struct shmemi_ctx *c = calloc(1, sizeof *c);
    if (c == NULL)
        return 1;
    c->team = team;
    c->options = options;
    c->n = n;
    if (team != SHMEM_TEAM_WORLD) {
        if ((c->world = malloc((size_t)n * sizeof(int))) == NULL) {
            free(c);
            return 1;
        }
        for (int i = 0; i < n; i++)
            c->world[i] = gshmem_team_translate_pe(team, i, SHMEM_TEAM_WORLD);
    }
    *ctx = c;
    return 0;
}

int pshmem_ctx_create(long options, shmem_ctx_t *ctx)
{
    return pshmem_team_create_ctx(SHMEM_TEAM_WORLD, options, ctx);
}

void pshmem_ctx_destroy(shmem_ctx_t ctx)
{
    if (ctx == SHMEM_CTX_INVALID)
        return;
    if (ctx == SHMEM_CTX_DEFAULT)
        shm_fatal("shmem_ctx_destroy", "SHMEM_CTX_DEFAULT cannot be destroyed");
    gshmem_quiet(); /* destroying a context completes its operations */
    free(ctx->world);
    free(ctx);
}

int pshmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)
{
    if (team == NULL)
        return 1;
    if (ctx == SHMEM_CTX_INVALID) {
        *team = SHMEM_TEAM_INVALID;
        return 1;
    }
    *team = ctx == SHMEM_CTX_DEFAULT ? SHMEM_TEAM_WORLD : ctx->team;
    return 0;
}

/* ------------------------------------------------ RMA and signaling --- */

void pshmem_putmem(void *dest, const void *source, size_t nelems, int pe)
{
    shm_put("shmem_putmem", dest, source, nelems, 1, pe, 0);
}

void pshmem_getmem(void *dest, const void *source, size_t nelems, int pe)
{
    shm_get("shmem_getmem", dest, source, nelems, 1, pe, 0);
}

void pshmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe)
{
    shm_put("shmem_putmem_nbi", dest, source, nelems, 1, pe, 1);
}

void pshmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe)
{
    shm_get("shmem_getmem_nbi", dest, source, nelems, 1, pe, 1);
}

void pshmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)
{
    shm_put("shmem_ctx_putmem", dest, source, nelems, 1, oshi_pe("shmem_ctx_putmem", ctx, pe), 0);
}

void pshmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)
{
    shm_get("shmem_ctx_getmem", dest, source, nelems, 1, oshi_pe("shmem_ctx_getmem", ctx, pe), 0);
}

void pshmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)
{
    shm_put("shmem_ctx_putmem_nbi", dest, source, nelems, 1, oshi_pe("shmem_ctx_putmem_nbi", ctx, pe), 1);
}

void pshmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)
{
    shm_get("shmem_ctx_getmem_nbi", dest, source, nelems, 1, oshi_pe("shmem_ctx_getmem_nbi", ctx, pe), 1);
}

void pshmem_putmem_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,
                          int sig_op, int pe)
{
    shm_put_signal("shmem_putmem_signal", dest, source, nelems, 1, sig_addr, signal, sig_op, pe, 0);
}

void pshmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,
                              int sig_op, int pe)
{
    shm_put_signal("shmem_putmem_signal_nbi", dest, source, nelems, 1, sig_addr, signal, sig_op, pe, 1);
}

void pshmem_ctx_putmem_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                              uint64_t signal, int sig_op, int pe)
{
    pe = oshi_pe("shmem_ctx_putmem_signal", ctx, pe);
    shm_put_signal("shmem_ctx_putmem_signal", dest, source, nelems, 1, sig_addr, signal, sig_op, pe, 0);
}

void pshmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                                  uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
    pe = oshi_pe("shmem_ctx_putmem_signal_nbi", ctx, pe);
    shm_put_signal("shmem_ctx_putmem_signal_nbi", dest, source, nelems, 1, sig_addr, signal, sig_op, pe, 1);
}

uint64_t pshmem_signal_fetch(const uint64_t *sig_addr) { return gshmem_signal_fetch(sig_addr); }

uint64_t pshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    return gshmem_signal_wait_until(sig_addr, cmp, cmp_value);
}

/* --------------------------------------- ordering, locks, profiling --- */

void pshmem_fence(void) { gshmem_fence(); }
void pshmem_quiet(void) { gshmem_quiet(); }

/* On SHMEM_CTX_INVALID, fence and quiet do nothing, as 1.5 says. */
void pshmem_ctx_fence(shmem_ctx_t ctx)
{
    if (ctx != SHMEM_CTX_INVALID)
        gshmem_fence();
}

void pshmem_ctx_quiet(shmem_ctx_t ctx)
{
    if (ctx != SHMEM_CTX_INVALID)
        gshmem_quiet();
}

void pshmem_set_lock(long *lock) { gshmem_set_lock(lock); }
void pshmem_clear_lock(long *lock) { gshmem_clear_lock(lock); }
int pshmem_test_lock(long *lock) { return gshmem_test_lock(lock); }

/* shmem_pcontrol: no profiling library is built in; a tool that defines
 * shmem_pcontrol (the weak alias's strong override) sees the calls. */
void pshmem_pcontrol(const int level, ...) { (void)level; }

/* The deprecated cache routines: the memory is coherent, nothing to do. */
void pshmem_clear_cache_inv(void) {}
void pshmem_set_cache_inv(void) {}
void pshmem_clear_cache_line_inv(void *dest) { (void)dest; }
void pshmem_set_cache_line_inv(void *dest) { (void)dest; }
void pshmem_udcflush(void) {}
void pshmem_udcflush_line(void *dest) { (void)dest; }

/* ----------------------------------------- OpenSHMEM 1.0-1.2 names --- */

void pstart_pes(int npes)
{
    (void)npes; /* the job's size is the launcher's */
    pshmem_init();
}

int p_my_pe(void) { return gshmem_my_pe(); }
int p_num_pes(void) { return gshmem_n_pes(); }
void *pshmalloc(size_t size) { return gshmem_malloc(size); }
void pshfree(void *ptr) { gshmem_free(ptr); }
void *pshrealloc(void *ptr, size_t size) { return gshmem_realloc(ptr, size); }
void *pshmemalign(size_t alignment, size_t size) { return gshmem_align(alignment, size); }

void pshmem_wait(long *ivar, long cmp_value)
{
    shm_wait("shmem_wait", ivar, sizeof(long), ABI_SHM_SINT, GSHMEM_CMP_NE, shm_bits(&cmp_value, sizeof cmp_value));
}

void pshmem_wait_until(long *ivar, int cmp, long cmp_value)
{
    shm_wait("shmem_wait_until", ivar, sizeof(long), ABI_SHM_SINT, cmp, shm_bits(&cmp_value, sizeof cmp_value));
}

long pshmem_swap(long *target, long value, int pe) { return pshmem_long_atomic_swap(target, value, pe); }

/* ---------------------------------------------- collectives (teams) --- */

void pshmem_barrier_all(void) { gshmem_barrier_all(); }
void pshmem_sync_all(void) { gshmem_sync_all(); }
int pshmem_team_sync(shmem_team_t team) { return gshmem_team_sync(team); }

int pshmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root)
{
    return gshmem_broadcastmem(team, dest, source, nelems, PE_root);
}

int pshmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return gshmem_collectmem(team, dest, source, nelems);
}

int pshmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return gshmem_fcollectmem(team, dest, source, nelems);
}

int pshmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return gshmem_alltoallmem(team, dest, source, nelems);
}

int pshmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems)
{
    return gshmem_alltoallsmem(team, dest, source, dst, sst, nelems);
}

#define OSHI_ALIASES_SHMEM_C
#include "zshmem_alias.h"
