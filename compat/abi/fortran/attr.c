/* attr.c: attributes between Fortran and C (MPI-4.1 section 19.3.7).
 *
 * C's attribute functions put and get address-valued (pointer) attributes,
 * Fortran's integer-valued ones: INTEGER(KIND=MPI_ADDRESS_KIND) through
 * MPI_X_SET_ATTR, a default INTEGER through the deprecated MPI_ATTR_PUT,
 * sign-extended to the address-sized word MPI behaves as if it stored.
 * An integer-valued attribute read from C is a pointer to the integer (to
 * an MPI_Aint, or to an int where MPI_ATTR_PUT set it); an address-valued
 * one read from Fortran is the address converted to an integer. The C
 * library's store keeps one pointer and no language, so the binding keeps
 * each integer-valued attribute in a box of its own and stores the box's
 * address: C sees the pointer to the integer the standard asks for, and
 * Fortran knows a box (a value to read through) from any other pointer (a
 * value to convert) because boxes live only in the binding's own slabs.
 *
 * Keyvals created from Fortran call their copy and delete functions with
 * Fortran's arguments: the integer (the box's value, or the address
 * converted) by reference, and the state (INTEGER(KIND=MPI_ADDRESS_KIND),
 * an INTEGER for MPI_KEYVAL_CREATE) as the keyval keeps it. A copy function
 * that sets FLAG gives an integer-valued attribute, a new box; a delete
 * function that succeeds ends its box. A box given to a keyval created in
 * C is the C functions' to keep or share (its copy function may give the
 * same pointer to the new object), so it is never freed.
 *
 * What this cannot tell apart: C code that sets, as a pointer, the address
 * of a box it read from an integer-valued attribute is read in Fortran as
 * that integer, not as the address. */
#include <pthread.h>
#include "fbind.h"

enum { FB_BOX_FREE, FB_BOX_AINT, FB_BOX_INT };

/* fb_box: one integer-valued attribute. */
struct fb_box {
    MPI_Aint v;          /* the value; an INTEGER one sign-extended */
    int kind;            /* FB_BOX_AINT or FB_BOX_INT while in use */
    struct fb_box *next; /* on the free list */
};

/* FB_INT_OFF: where an int's bytes lie in the MPI_Aint that holds it. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define FB_INT_OFF (sizeof(MPI_Aint) - sizeof(int))
#else
#define FB_INT_OFF 0
#endif

#define FB_SLAB 1024
struct fb_slab {
    struct fb_box box[FB_SLAB];
    struct fb_slab *next;
};

static pthread_mutex_t box_mu = PTHREAD_MUTEX_INITIALIZER;
static struct fb_slab *slabs;
static struct fb_box *free_boxes;

/* box_new is a box holding v, or NULL when memory is out. */
static struct fb_box *box_new(int kind, MPI_Aint v)
{
    pthread_mutex_lock(&box_mu);
    if (!free_boxes) {
        struct fb_slab *s = calloc(1, sizeof *s);
        if (!s) { pthread_mutex_unlock(&box_mu); return NULL; }
        for (int i = 0; i < FB_SLAB; i++) {
            s->box[i].next = free_boxes;
            free_boxes = &s->box[i];
        }
        s->next = slabs;
        slabs = s;
    }
    struct fb_box *b = free_boxes;
    free_boxes = b->next;
    b->v = v;
    b->kind = kind;
    pthread_mutex_unlock(&box_mu);
    return b;
}

static void box_free(struct fb_box *b)
{
    pthread_mutex_lock(&box_mu);
    b->kind = FB_BOX_FREE;
    b->next = free_boxes;
    free_boxes = b;
    pthread_mutex_unlock(&box_mu);
}

/* box_ptr is what C sees: a pointer to the MPI_Aint, or to the int. */
static void *box_ptr(struct fb_box *b)
{
    return (char *)&b->v + (b->kind == FB_BOX_INT ? FB_INT_OFF : 0);
}

/* box_of is the box whose pointer p is, or NULL for any other value. */
static struct fb_box *box_of(void *p)
{
    struct fb_box *found = NULL;
    pthread_mutex_lock(&box_mu);
    for (struct fb_slab *s = slabs; s; s = s->next) {
        char *lo = (char *)s->box, *hi = (char *)(s->box + FB_SLAB);
        if ((char *)p < lo || (char *)p >= hi) continue;
        size_t off = (size_t)((char *)p - lo);
        struct fb_box *b = &s->box[off / sizeof *b];
        size_t at = off % sizeof *b;
        if ((b->kind == FB_BOX_AINT && at == 0) || (b->kind == FB_BOX_INT && at == FB_INT_OFF))
            found = b;
        break;
    }
    pthread_mutex_unlock(&box_mu);
    return found;
}

/* attr_value is the integer Fortran reads for attribute value v of
 * keyval: the predefined attributes' values where C gets a pointer to
 * them, a box's value, any other pointer converted (MPI_WIN_BASE, values
 * set from C). */
static MPI_Aint attr_value(int keyval, void *v)
{
    switch (keyval) {
    case MPI_TAG_UB: case MPI_IO: case MPI_HOST: case MPI_WTIME_IS_GLOBAL:
    case MPI_APPNUM: case MPI_LASTUSEDCODE: case MPI_UNIVERSE_SIZE:
    case MPI_WIN_DISP_UNIT: case MPI_WIN_CREATE_FLAVOR: case MPI_WIN_MODEL:
        return *(int *)v;
    case MPI_WIN_SIZE:
        return *(MPI_Aint *)v;
    case MPI_WIN_BASE:
        return (MPI_Aint)v;
    }
    struct fb_box *b = box_of(v);
    return b ? b->v : (MPI_Aint)v;
}

#define FB_ATTR(lower, K, Kfrom)                                                          \
    void pmpi_##lower##_set_attr_(const int *h, const int *keyval, const MPI_Aint *val,   \
                                  int *ierror)                                            \
    {                                                                                     \
        struct fb_box *b = box_new(FB_BOX_AINT, *val);                                    \
        if (!b) { fb_ret(ierror, MPI_ERR_NO_MEM); return; }                               \
        int rc = MPI_##K##_set_attr(FB_FROM(Kfrom, *h), *keyval, box_ptr(b));             \
        if (rc != MPI_SUCCESS) box_free(b);                                               \
        fb_ret(ierror, rc);                                                               \
    }                                                                                     \
    FB_ALIAS(mpi_##lower##_set_attr_, pmpi_##lower##_set_attr_)                           \
    void pmpi_##lower##_get_attr_(const int *h, const int *keyval, MPI_Aint *val,         \
                                  int *flag, int *ierror)                                 \
    {                                                                                     \
        void *v = NULL;                                                                   \
        int f = 0;                                                                        \
        int rc = MPI_##K##_get_attr(FB_FROM(Kfrom, *h), *keyval, &v, &f);                 \
        if (rc == MPI_SUCCESS && f) *val = attr_value(*keyval, v);                        \
        *flag = fb_lout(f);                                                               \
        fb_ret(ierror, rc);                                                               \
    }                                                                                     \
    FB_ALIAS(mpi_##lower##_get_attr_, pmpi_##lower##_get_attr_)
FB_ATTR(comm, Comm, Comm)
FB_ATTR(type, Type, Datatype)
FB_ATTR(win, Win, Win)

/* MPI_ATTR_PUT/GET (deprecated): the value is a default INTEGER; GET
 * reads the low part of the attribute word. */
void pmpi_attr_put_(const int *comm, const int *keyval, const int *val, int *ierror)
{
    struct fb_box *b = box_new(FB_BOX_INT, (MPI_Aint)*val);
    if (!b) { fb_ret(ierror, MPI_ERR_NO_MEM); return; }
    int rc = MPI_Comm_set_attr(FB_FROM(Comm, *comm), *keyval, box_ptr(b));
    if (rc != MPI_SUCCESS) box_free(b);
    fb_ret(ierror, rc);
}
FB_ALIAS(mpi_attr_put_, pmpi_attr_put_)
void pmpi_attr_get_(const int *comm, const int *keyval, int *val, int *flag, int *ierror)
{
    void *v = NULL;
    int f = 0;
    int rc = MPI_Comm_get_attr(FB_FROM(Comm, *comm), *keyval, &v, &f);
    if (rc == MPI_SUCCESS && f) *val = (int)attr_value(*keyval, v);
    *flag = fb_lout(f);
    fb_ret(ierror, rc);
}
FB_ALIAS(mpi_attr_get_, pmpi_attr_get_)

/* Keyvals. Fortran's copy function:
 *   SUBROUTINE COPY_FN(OLD, KEYVAL, EXTRA_STATE, ATTRIBUTE_VAL_IN,
 *                      ATTRIBUTE_VAL_OUT, FLAG, IERROR)
 * with INTEGER(KIND=MPI_ADDRESS_KIND) state and values (INTEGER ones for
 * the deprecated MPI_KEYVAL_CREATE), and the delete function
 *   SUBROUTINE DELETE_FN(OBJ, KEYVAL, ATTRIBUTE_VAL, EXTRA_STATE, IERROR). */
typedef void (*fb_copyfn)(int *, int *, MPI_Aint *, MPI_Aint *, MPI_Aint *, int *, int *);
typedef void (*fb_delfn)(int *, int *, MPI_Aint *, MPI_Aint *, int *);
typedef void (*fb_copyfn4)(int *, int *, int *, int *, int *, int *, int *);
typedef void (*fb_delfn4)(int *, int *, int *, int *, int *);

struct fb_keyval {
    fb_fn copy, del; /* del NULL: MPI_X_NULL_DELETE_FN */
    MPI_Aint extra;  /* the user's EXTRA_STATE */
    int small;       /* MPI_KEYVAL_CREATE: INTEGER values and state */
    int dup;         /* copy is MPI_X_DUP_FN */
};

#define FB_PREDEF(lower)                                                           \
    void mpi_##lower##_null_copy_fn_(int *o, int *k, MPI_Aint *e, MPI_Aint *in,    \
                                     MPI_Aint *out, int *flag, int *ierr)          \
    {                                                                              \
        (void)o; (void)k; (void)e; (void)in; (void)out;                            \
        *flag = fb_false; *ierr = MPI_SUCCESS;                                     \
    }                                                                              \
    void mpi_##lower##_dup_fn_(int *o, int *k, MPI_Aint *e, MPI_Aint *in,          \
                               MPI_Aint *out, int *flag, int *ierr)                \
    {                                                                              \
        (void)o; (void)k; (void)e;                                                 \
        *out = *in; *flag = fb_true; *ierr = MPI_SUCCESS;                          \
    }                                                                              \
    void mpi_##lower##_null_delete_fn_(int *o, int *k, MPI_Aint *v, MPI_Aint *e,   \
                                       int *ierr)                                  \
    {                                                                              \
        (void)o; (void)k; (void)v; (void)e; *ierr = MPI_SUCCESS;                   \
    }
FB_PREDEF(comm)
FB_PREDEF(type)
FB_PREDEF(win)
void mpi_null_copy_fn_(int *o, int *k, int *e, int *in, int *out, int *flag, int *ierr)
{
    (void)o; (void)k; (void)e; (void)in; (void)out;
    *flag = fb_false; *ierr = MPI_SUCCESS;
}
void mpi_dup_fn_(int *o, int *k, int *e, int *in, int *out, int *flag, int *ierr)
{
    (void)o; (void)k; (void)e;
    *out = *in; *flag = fb_true; *ierr = MPI_SUCCESS;
}
void mpi_null_delete_fn_(int *o, int *k, int *v, int *e, int *ierr)
{
    (void)o; (void)k; (void)v; (void)e; *ierr = MPI_SUCCESS;
}
void mpi_conversion_fn_null_(void) {}
void mpi_conversion_fn_null_c_(void) {}

/* fb_copy calls keyval s's copy function for the object Fortran knows as
 * f. MPI_X_DUP_FN gives the new object the same value: a box of its own
 * for an integer, the same pointer for an address. */
static int fb_copy(int f, int keyval, struct fb_keyval *s, void *in, void *out, int *flag)
{
    struct fb_box *b = box_of(in), *nb;
    if (s->dup) {
        if (b) {
            if (!(nb = box_new(b->kind, b->v))) return MPI_ERR_NO_MEM;
            *(void **)out = box_ptr(nb);
        } else {
            *(void **)out = in;
        }
        *flag = 1;
        return MPI_SUCCESS;
    }
    MPI_Aint vin = b ? b->v : (MPI_Aint)in, vo = 0;
    int fl = fb_false, ierr = MPI_SUCCESS, kind = FB_BOX_AINT;
    if (s->small) {
        int e = (int)s->extra, vi = (int)vin, o = 0;
        ((fb_copyfn4)s->copy)(&f, &keyval, &e, &vi, &o, &fl, &ierr);
        s->extra = e;
        vo = o;
        kind = FB_BOX_INT;
    } else {
        ((fb_copyfn)s->copy)(&f, &keyval, &s->extra, &vin, &vo, &fl, &ierr);
    }
    if (ierr != MPI_SUCCESS) return ierr;
    *flag = fb_lin(fl);
    if (*flag) {
        if (!(nb = box_new(kind, vo))) return MPI_ERR_NO_MEM;
        *(void **)out = box_ptr(nb);
    }
    return MPI_SUCCESS;
}

/* fb_del calls keyval s's delete function; the value's box, if any,
 * ends with it unless the function fails (the attribute stays then). */
static int fb_del(int f, int keyval, struct fb_keyval *s, void *val)
{
    struct fb_box *b = box_of(val);
    MPI_Aint v = b ? b->v : (MPI_Aint)val;
    int ierr = MPI_SUCCESS;
    if (s->del && s->small) {
        int e = (int)s->extra, vi = (int)v;
        ((fb_delfn4)s->del)(&f, &keyval, &vi, &e, &ierr);
        s->extra = e;
    } else if (s->del) {
        ((fb_delfn)s->del)(&f, &keyval, &v, &s->extra, &ierr);
    }
    if (ierr == MPI_SUCCESS && b) box_free(b);
    return ierr;
}

#define FB_KEYVAL(K, lower, Kfrom)                                                 \
    static int fb_copy_##lower(MPI_##Kfrom h, int keyval, void *extra, void *in,   \
                               void *out, int *flag)                               \
    {                                                                              \
        return fb_copy(FB_TO(Kfrom, h), keyval, extra, in, out, flag);             \
    }                                                                              \
    static int fb_del_##lower(MPI_##Kfrom h, int keyval, void *val, void *extra)   \
    {                                                                              \
        return fb_del(FB_TO(Kfrom, h), keyval, extra, val);                        \
    }                                                                              \
    static int fb_keyval_##lower(fb_fn copy, fb_fn del, int *keyval, MPI_Aint extra,\
                                 int small)                                        \
    {                                                                              \
        struct fb_keyval *s = malloc(sizeof *s);                                   \
        if (!s) return MPI_ERR_NO_MEM;                                             \
        *s = (struct fb_keyval){copy, del, extra, small, 0};                       \
        MPI_##K##_copy_attr_function *c = fb_copy_##lower;                         \
        if (copy == (fb_fn)mpi_##lower##_null_copy_fn_ ||                          \
            copy == (fb_fn)mpi_null_copy_fn_)                                      \
            c = MPI_##Kfrom##_NULL_COPY_FN_C;                                      \
        else if (copy == (fb_fn)mpi_##lower##_dup_fn_ || copy == (fb_fn)mpi_dup_fn_) \
            s->dup = 1;                                                            \
        if (del == (fb_fn)mpi_##lower##_null_delete_fn_ ||                         \
            del == (fb_fn)mpi_null_delete_fn_)                                     \
            s->del = NULL;                                                         \
        /* The state lives as long as the process: MPI keeps calling the */      \
        /* functions after MPI_X_free_keyval for attributes still set. */          \
        int rc = MPI_##K##_create_keyval(c, fb_del_##lower, keyval, s);            \
        if (rc != MPI_SUCCESS) free(s);                                            \
        return rc;                                                                 \
    }                                                                              \
    void pmpi_##lower##_create_keyval_(fb_fn copy, fb_fn del, int *keyval,         \
                                       const MPI_Aint *extra, int *ierror)         \
    {                                                                              \
        fb_ret(ierror, fb_keyval_##lower(copy, del, keyval, *extra, 0));           \
    }                                                                              \
    FB_ALIAS(mpi_##lower##_create_keyval_, pmpi_##lower##_create_keyval_)
#define MPI_Comm_NULL_COPY_FN_C MPI_COMM_NULL_COPY_FN
#define MPI_Datatype_NULL_COPY_FN_C MPI_TYPE_NULL_COPY_FN
#define MPI_Win_NULL_COPY_FN_C MPI_WIN_NULL_COPY_FN
FB_KEYVAL(Comm, comm, Comm)
FB_KEYVAL(Type, type, Datatype)
FB_KEYVAL(Win, win, Win)

void pmpi_keyval_create_(fb_fn copy, fb_fn del, int *keyval, const int *extra, int *ierror)
{
    fb_ret(ierror, fb_keyval_comm(copy, del, keyval, *extra, 1));
}
FB_ALIAS(mpi_keyval_create_, pmpi_keyval_create_)
