/* fbind.h: what every Fortran entry point of libgshmem_mpifort needs:
 * handle conversion through the ABI's MPI_X_toint/fromint, MPI's special
 * addresses as the Fortran program sees them, LOGICAL values and
 * Fortran strings (blank-padded, length passed hidden after the
 * arguments, as gfortran does). Only the C ABI is called, so a Fortran
 * program records libmpi_abi.so.1 and this library, nothing else of
 * gshmem's. */
#ifndef GSHMEM_FBIND_H
#define GSHMEM_FBIND_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <ISO_Fortran_binding.h>
#include "mpi.h"

/* FB_FROM/FB_TO: the ABI's predefined handles are their own integers
 * (below 0x400), so they convert without a call; user handles go through
 * the library's table. */
#define FB_FROM(K, i) ((unsigned)(i) < 0x400u ? (MPI_##K)(intptr_t)(i) : MPI_##K##_fromint(i))
#define FB_TO(K, h) ((uintptr_t)(h) < 0x400u ? (int)(intptr_t)(h) : MPI_##K##_toint(h))
#define FB_FROM_Type(i) FB_FROM(Datatype, i)
#define MPI_Datatype_fromint MPI_Type_fromint
#define MPI_Datatype_toint MPI_Type_toint

/* FB_ALIAS makes the mpi_x_ name a weak alias of pmpi_x_ (profiling). */
#define FB_ALIAS(a, b) extern __typeof__(b) a __attribute__((weak, alias(#b)));

/* The special addresses: common blocks of mpif.h and use mpi (defined in
 * special.c, the program's copy binds to them) and module variables of
 * use mpi_f08 (defined by the module's object). */
extern int mpifcb_bottom_[1], mpifcb_in_place_[1], mpifcb_buffer_automatic_[1];
extern int mpifcb_status_ignore_[8], mpifcb_statuses_ignore_[8];
extern int mpifcb_errcodes_ignore_[1], mpifcb_unweighted_[1], mpifcb_weights_empty_[1];
extern int gshmem_f08_bottom, gshmem_f08_in_place, gshmem_f08_buffer_automatic;
extern MPI_Status gshmem_f08_status_ignore, gshmem_f08_statuses_ignore[1];
extern int gshmem_f08_errcodes_ignore[1], gshmem_f08_unweighted[1], gshmem_f08_weights_empty[1];

/* fb_true, fb_false: the compiler's LOGICAL values (special.c). */
extern int fb_true, fb_false;

static inline void fb_ret(int *ierror, int rc) { if (ierror) *ierror = rc; }

/* fb_addr maps MPI_BOTTOM, MPI_IN_PLACE, MPI_BUFFER_AUTOMATIC to C's. */
static inline void *fb_addr(void *p)
{
    if (p == mpifcb_bottom_ || p == &gshmem_f08_bottom) return MPI_BOTTOM;
    if (p == mpifcb_in_place_ || p == &gshmem_f08_in_place) return MPI_IN_PLACE;
    if (p == mpifcb_buffer_automatic_ || p == &gshmem_f08_buffer_automatic) return MPI_BUFFER_AUTOMATIC;
    return p;
}

/* fb_status maps MPI_STATUS(ES)_IGNORE; a status is otherwise the same
 * 8 INTEGERs in Fortran as in C. */
static inline MPI_Status *fb_status(void *p)
{
    if (p == mpifcb_status_ignore_ || p == mpifcb_statuses_ignore_ ||
        p == &gshmem_f08_status_ignore || p == gshmem_f08_statuses_ignore)
        return MPI_STATUS_IGNORE;
    return p;
}

/* fb_ints maps MPI_ERRCODES_IGNORE, MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY. */
static inline int *fb_ints(int *p)
{
    if (p == mpifcb_errcodes_ignore_ || p == gshmem_f08_errcodes_ignore) return MPI_ERRCODES_IGNORE;
    if (p == mpifcb_unweighted_ || p == gshmem_f08_unweighted) return MPI_UNWEIGHTED;
    if (p == mpifcb_weights_empty_ || p == gshmem_f08_weights_empty) return MPI_WEIGHTS_EMPTY;
    return p;
}

static inline int fb_lin(int v) { return v != fb_false; }
static inline int fb_lout(int c) { return c ? fb_true : fb_false; }

static inline void *fb_alloc(int n, size_t size) { return malloc((size_t)(n > 0 ? n : 1) * size); }

/* fb_cstr copies a Fortran string without its trailing blanks, with a NUL. */
static inline char *fb_cstr(const char *s, size_t len)
{
    while (len > 0 && s[len - 1] == ' ') len--;
    char *c = malloc(len + 1);
    if (c) { memcpy(c, s, len); c[len] = 0; }
    return c;
}

/* fb_cstr_info is fb_cstr less the leading blanks too: an info key or
 * value from Fortran has its leading and trailing blanks stripped (MPI-4.1
 * section 10, MPI_INFO_SET). */
static inline char *fb_cstr_info(const char *s, size_t len)
{
    while (len > 0 && *s == ' ') s++, len--;
    return fb_cstr(s, len);
}

/* fb_outbuf is room for any string MPI returns (MPI_MAX_* at most). */
static inline char *fb_outbuf(size_t len)
{
    size_t n = len > MPI_MAX_LIBRARY_VERSION_STRING ? len : MPI_MAX_LIBRARY_VERSION_STRING;
    return calloc(n + 1, 1);
}

/* fb_fstr copies C string c into Fortran string f, blank-padded. */
static inline void fb_fstr(char *f, size_t len, const char *c)
{
    size_t n = strlen(c);
    if (n > len) n = len;
    memcpy(f, c, n);
    memset(f + n, ' ', len - n);
}

/* fb_fn: a Fortran procedure argument, whatever its interface. */
typedef void (*fb_fn)(void);

int fb_comm_count(MPI_Comm comm);
int fb_nbr_count(MPI_Comm comm, int out);

/* FB_BAD: fb_cfi refused the buffer (the error is raised and in ierror). */
#define FB_BAD ((void *)&fb_true)
enum { FB_ON_SELF, FB_ON_COMM, FB_ON_WIN, FB_ON_FILE };
void *fb_cfi(CFI_cdesc_t *d, int noblock, int *ierror, int on, int handle);
void *fb_cfi_sec(CFI_cdesc_t *d, MPI_Count count, int datatype, int *sect, int *ierror, int on, int handle);

#endif
