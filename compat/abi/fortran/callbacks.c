/* callbacks.c: user functions written in Fortran (MPI_Op_create, the
 * MPI_Op_create_c, the MPI_X_create_errhandler calls, attribute copy and
 * delete functions) and
 * the predefined callbacks as Fortran procedures. The C ABI's user-op and
 * errhandler callbacks carry no user state, so each Fortran function gets
 * one of FB_SLOTS fixed C trampolines that knows its slot; keyvals carry
 * extra_state, which holds the Fortran functions and the user's own. */
#include <pthread.h>
#include "fbind.h"

#define FB_SLOTS 64

static pthread_mutex_t fb_mu = PTHREAD_MUTEX_INITIALIZER;

/* fb_slot returns the slot of fn in tab (the same function shares one),
 * or -1 when every slot is taken. */
static int fb_slot(fb_fn tab[], fb_fn fn)
{
    int s = -1;
    pthread_mutex_lock(&fb_mu);
    for (int i = 0; i < FB_SLOTS; i++) {
        if (tab[i] == fn) { s = i; break; }
        if (!tab[i]) { tab[i] = fn; s = i; break; }
    }
    pthread_mutex_unlock(&fb_mu);
    return s;
}

/* FB_REP64(M) is M(a, b) for slot a*8+b, a and b in 0..7. */
#define FB_REP8(M, a) M(a, 0) M(a, 1) M(a, 2) M(a, 3) M(a, 4) M(a, 5) M(a, 6) M(a, 7)
#define FB_REP64(M) FB_REP8(M, 0) FB_REP8(M, 1) FB_REP8(M, 2) FB_REP8(M, 3) \
    FB_REP8(M, 4) FB_REP8(M, 5) FB_REP8(M, 6) FB_REP8(M, 7)

/* User ops: SUBROUTINE USER_FN(INVEC, INOUTVEC, LEN, DATATYPE) (mpi), and
 * mpi_f08's (TYPE(C_PTR), VALUE :: invec, inoutvec; ...) are the same
 * call at the machine level. */
typedef void (*fb_userop)(void *, void *, int *, int *);
static fb_fn op_tab[FB_SLOTS];
#define FB_OP(a, b)                                                                \
    static void fb_op_##a##b(void *in, void *inout, int *len, MPI_Datatype *dt)    \
    {                                                                              \
        int f = FB_TO(Datatype, *dt);                                              \
        ((fb_userop)op_tab[a * 8 + b])(in, inout, len, &f);                        \
    }
FB_REP64(FB_OP)
#define FB_OPL(a, b) fb_op_##a##b,
static MPI_User_function *const op_tramp[FB_SLOTS] = {FB_REP64(FB_OPL)};

void pmpi_op_create_(fb_fn user_fn, const int *commute, int *op, int *ierror)
{
    int s = fb_slot(op_tab, user_fn);
    if (s < 0) { fb_ret(ierror, MPI_ERR_NO_MEM); return; } /* FB_SLOTS distinct functions */
    MPI_Op c = MPI_OP_NULL;
    int rc = MPI_Op_create(op_tramp[s], fb_lin(*commute), &c);
    *op = FB_TO(Op, c);
    fb_ret(ierror, rc);
}
FB_ALIAS(mpi_op_create_, pmpi_op_create_)

/* MPI_Op_create_c (mpi_f08 only, as every large-count form): the user
 * function's LEN is an INTEGER(KIND=MPI_COUNT_KIND), MPI_User_function_c. */
typedef void (*fb_userop_c)(void *, void *, MPI_Count *, int *);
static fb_fn op_c_tab[FB_SLOTS];
#define FB_OPC(a, b)                                                               \
    static void fb_opc_##a##b(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt) \
    {                                                                              \
        int f = FB_TO(Datatype, *dt);                                              \
        ((fb_userop_c)op_c_tab[a * 8 + b])(in, inout, len, &f);                    \
    }
FB_REP64(FB_OPC)
#define FB_OPCL(a, b) fb_opc_##a##b,
static MPI_User_function_c *const op_c_tramp[FB_SLOTS] = {FB_REP64(FB_OPCL)};

void pmpi_op_create_c_(fb_fn user_fn, const int *commute, int *op, int *ierror)
{
    int s = fb_slot(op_c_tab, user_fn);
    if (s < 0) { fb_ret(ierror, MPI_ERR_NO_MEM); return; } /* FB_SLOTS distinct functions */
    MPI_Op c = MPI_OP_NULL;
    int rc = MPI_Op_create_c(op_c_tramp[s], fb_lin(*commute), &c);
    *op = FB_TO(Op, c);
    fb_ret(ierror, rc);
}
FB_ALIAS(mpi_op_create_c_, pmpi_op_create_c_)

/* Error handlers: SUBROUTINE HANDLER(COMM, ERROR_CODE). */
typedef void (*fb_errfn)(int *, int *);
#define FB_EH(K, lower, Kfrom)                                                     \
    static fb_fn lower##_eh_tab[FB_SLOTS];                                         \
    FB_REP64(FB_EH_T_##lower)                                                      \
    static MPI_##K##_errhandler_function *const lower##_eh_tramp[FB_SLOTS] = {     \
        FB_REP64(FB_EH_L_##lower)};                                                \
    void pmpi_##lower##_create_errhandler_(fb_fn fn, int *eh, int *ierror)         \
    {                                                                              \
        int s = fb_slot(lower##_eh_tab, fn);                                       \
        if (s < 0) { fb_ret(ierror, MPI_ERR_NO_MEM); return; }                     \
        MPI_Errhandler c = MPI_ERRHANDLER_NULL;                                    \
        int rc = MPI_##K##_create_errhandler(lower##_eh_tramp[s], &c);             \
        *eh = FB_TO(Errhandler, c);                                                \
        fb_ret(ierror, rc);                                                        \
    }                                                                              \
    FB_ALIAS(mpi_##lower##_create_errhandler_, pmpi_##lower##_create_errhandler_)
#define FB_EH_T(K, lower, Kfrom, a, b)                                             \
    static void fb_eh_##lower##_##a##b(MPI_##K *h, int *code, ...)                 \
    {                                                                              \
        int f = FB_TO(Kfrom, *h);                                                  \
        ((fb_errfn)lower##_eh_tab[a * 8 + b])(&f, code);                           \
    }
#define FB_EH_T_comm(a, b) FB_EH_T(Comm, comm, Comm, a, b)
#define FB_EH_L_comm(a, b) fb_eh_comm_##a##b,
#define FB_EH_T_win(a, b) FB_EH_T(Win, win, Win, a, b)
#define FB_EH_L_win(a, b) fb_eh_win_##a##b,
#define FB_EH_T_file(a, b) FB_EH_T(File, file, File, a, b)
#define FB_EH_L_file(a, b) fb_eh_file_##a##b,
#define FB_EH_T_session(a, b) FB_EH_T(Session, session, Session, a, b)
#define FB_EH_L_session(a, b) fb_eh_session_##a##b,
FB_EH(Comm, comm, Comm)
FB_EH(Win, win, Win)
FB_EH(File, file, File)
FB_EH(Session, session, Session)

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
    fb_fn copy, del;
    MPI_Aint extra;
    int small; /* MPI_KEYVAL_CREATE: INTEGER values */
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

#define FB_KEYVAL(K, lower, Kfrom)                                                 \
    static int fb_copy_##lower(MPI_##Kfrom h, int keyval, void *extra, void *in,       \
                               void *out, int *flag)                               \
    {                                                                              \
        struct fb_keyval *s = extra;                                               \
        int f = FB_TO(Kfrom, h), fl = 0, ierr = MPI_SUCCESS;                       \
        if (s->small) {                                                            \
            int e = (int)s->extra, vi = (int)(MPI_Aint)in, vo = 0;                 \
            ((fb_copyfn4)s->copy)(&f, &keyval, &e, &vi, &vo, &fl, &ierr);          \
            *(void **)out = (void *)(MPI_Aint)vo;                                  \
        } else {                                                                   \
            MPI_Aint e = s->extra, vi = (MPI_Aint)in, vo = 0;                      \
            ((fb_copyfn)s->copy)(&f, &keyval, &e, &vi, &vo, &fl, &ierr);           \
            *(void **)out = (void *)vo;                                            \
        }                                                                          \
        *flag = fl != fb_false;                                                    \
        return ierr;                                                               \
    }                                                                              \
    static int fb_del_##lower(MPI_##Kfrom h, int keyval, void *val, void *extra)       \
    {                                                                              \
        struct fb_keyval *s = extra;                                               \
        int f = FB_TO(Kfrom, h), ierr = MPI_SUCCESS;                               \
        if (s->small) {                                                            \
            int e = (int)s->extra, v = (int)(MPI_Aint)val;                         \
            ((fb_delfn4)s->del)(&f, &keyval, &v, &e, &ierr);                       \
        } else {                                                                   \
            MPI_Aint e = s->extra, v = (MPI_Aint)val;                              \
            ((fb_delfn)s->del)(&f, &keyval, &v, &e, &ierr);                        \
        }                                                                          \
        return ierr;                                                               \
    }                                                                              \
    static int fb_keyval_##lower(fb_fn copy, fb_fn del, int *keyval, MPI_Aint extra,\
                                 int small)                                        \
    {                                                                              \
        struct fb_keyval *s = malloc(sizeof *s);                                   \
        if (!s) return MPI_ERR_NO_MEM;                                             \
        *s = (struct fb_keyval){copy, del, extra, small};                          \
        MPI_##K##_copy_attr_function *c = fb_copy_##lower;                         \
        MPI_##K##_delete_attr_function *d = fb_del_##lower;                        \
        if (copy == (fb_fn)mpi_##lower##_null_copy_fn_ ||                          \
            copy == (fb_fn)mpi_null_copy_fn_)                                      \
            c = MPI_##Kfrom##_NULL_COPY_FN_C;                                      \
        else if (copy == (fb_fn)mpi_##lower##_dup_fn_ || copy == (fb_fn)mpi_dup_fn_) \
            c = MPI_##Kfrom##_DUP_FN_C;                                            \
        if (del == (fb_fn)mpi_##lower##_null_delete_fn_ ||                         \
            del == (fb_fn)mpi_null_delete_fn_)                                     \
            d = MPI_##Kfrom##_NULL_DELETE_FN_C;                                    \
        /* The state lives as long as the process: MPI keeps calling the */      \
        /* functions after MPI_X_free_keyval for attributes still set. */          \
        return MPI_##K##_create_keyval(c, d, keyval, s);                           \
    }                                                                              \
    void pmpi_##lower##_create_keyval_(fb_fn copy, fb_fn del, int *keyval,         \
                                       const MPI_Aint *extra, int *ierror)         \
    {                                                                              \
        fb_ret(ierror, fb_keyval_##lower(copy, del, keyval, *extra, 0));           \
    }                                                                              \
    FB_ALIAS(mpi_##lower##_create_keyval_, pmpi_##lower##_create_keyval_)
#define MPI_Comm_NULL_COPY_FN_C MPI_COMM_NULL_COPY_FN
#define MPI_Comm_DUP_FN_C MPI_COMM_DUP_FN
#define MPI_Comm_NULL_DELETE_FN_C MPI_COMM_NULL_DELETE_FN
#define MPI_Datatype_NULL_COPY_FN_C MPI_TYPE_NULL_COPY_FN
#define MPI_Datatype_DUP_FN_C MPI_TYPE_DUP_FN
#define MPI_Datatype_NULL_DELETE_FN_C MPI_TYPE_NULL_DELETE_FN
#define MPI_Win_NULL_COPY_FN_C MPI_WIN_NULL_COPY_FN
#define MPI_Win_DUP_FN_C MPI_WIN_DUP_FN
#define MPI_Win_NULL_DELETE_FN_C MPI_WIN_NULL_DELETE_FN
FB_KEYVAL(Comm, comm, Comm)
FB_KEYVAL(Type, type, Datatype)
FB_KEYVAL(Win, win, Win)

void pmpi_keyval_create_(fb_fn copy, fb_fn del, int *keyval, const int *extra, int *ierror)
{
    fb_ret(ierror, fb_keyval_comm(copy, del, keyval, *extra, 1));
}
FB_ALIAS(mpi_keyval_create_, pmpi_keyval_create_)
