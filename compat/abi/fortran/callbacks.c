/* callbacks.c: user functions written in Fortran (MPI_Op_create, the
 * MPI_Op_create_c, the MPI_X_create_errhandler calls; attribute copy and
 * delete functions are attr.c's). The C ABI's user-op and errhandler
 * callbacks carry no user state, so each Fortran function gets one of
 * FB_SLOTS fixed C trampolines that knows its slot. */
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
