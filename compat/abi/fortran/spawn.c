/* spawn.c: the Fortran bindings whose arguments are arrays of strings
 * (MPI_Comm_spawn, MPI_Comm_spawn_multiple) or Fortran callbacks with
 * state (MPI_Grequest_start, MPI_Register_datarep). */
#include "fbind.h"

extern char mpifcb_argv_null_[1], mpifcb_argvs_null_[1];
extern char gshmem_f08_argv_null[1], gshmem_f08_argvs_null[1];

/* fb_argv converts a Fortran argv: n strings of len characters each at
 * stride (in strings) apart, ended by the first blank one (MPI-4.1
 * section 11.8.2). The result and its strings are one allocation. */
static char **fb_argv(const char *a, size_t len, size_t stride)
{
    size_t n = 0, bytes = 0;
    for (;; n++) {
        const char *s = a + n * stride * len;
        size_t l = len;
        while (l > 0 && s[l - 1] == ' ') l--;
        if (l == 0) break;
        bytes += l + 1;
    }
    char **v = malloc((n + 1) * sizeof(char *) + bytes);
    if (!v) return NULL;
    char *p = (char *)(v + n + 1);
    for (size_t i = 0; i < n; i++) {
        const char *s = a + i * stride * len;
        size_t l = len;
        while (l > 0 && s[l - 1] == ' ') l--;
        memcpy(p, s, l);
        p[l] = 0;
        v[i] = p;
        p += l + 1;
    }
    v[n] = NULL;
    return v;
}

static int fb_argv_null(const char *a)
{
    return a == mpifcb_argv_null_ || a == gshmem_f08_argv_null ||
           a == mpifcb_argvs_null_ || a == gshmem_f08_argvs_null;
}

void pmpi_comm_spawn_(const char *command, const char *argv, const int *maxprocs, const int *info,
                      const int *root, const int *comm, int *intercomm, int *errcodes, int *ierror,
                      size_t command_len, size_t argv_len)
{
    char *cmd = fb_cstr(command, command_len);
    char **av = fb_argv_null(argv) ? MPI_ARGV_NULL : fb_argv(argv, argv_len, 1);
    if (!cmd || (!fb_argv_null(argv) && !av)) {
        free(cmd);
        free(av);
        fb_ret(ierror, MPI_ERR_NO_MEM);
        return;
    }
    MPI_Comm c = MPI_COMM_NULL;
    int rc = MPI_Comm_spawn(cmd, av, *maxprocs, FB_FROM(Info, *info), *root, FB_FROM(Comm, *comm), &c,
                            fb_ints(errcodes));
    *intercomm = FB_TO(Comm, c);
    free(cmd);
    if (av != MPI_ARGV_NULL) free(av);
    fb_ret(ierror, rc);
}
FB_ALIAS(mpi_comm_spawn_, pmpi_comm_spawn_)

/* MPI_COMM_SPAWN_MULTIPLE(COUNT, ARRAY_OF_COMMANDS, ARRAY_OF_ARGV, ...):
 * ARRAY_OF_ARGV(COUNT, *), command i's arguments down row i. */
void pmpi_comm_spawn_multiple_(const int *count, const char *commands, const char *argvs,
                               const int *maxprocs, const int *infos, const int *root, const int *comm,
                               int *intercomm, int *errcodes, int *ierror, size_t commands_len,
                               size_t argvs_len)
{
    int n = *count > 0 ? *count : 0, rc = MPI_ERR_NO_MEM;
    char **cmds = calloc((size_t)n + 1, sizeof(char *));
    char ***avs = fb_argv_null(argvs) ? MPI_ARGVS_NULL : calloc((size_t)n + 1, sizeof(char **));
    MPI_Info *ci = fb_alloc(n, sizeof(MPI_Info));
    MPI_Comm c = MPI_COMM_NULL;
    if (!cmds || !ci || (!fb_argv_null(argvs) && !avs)) goto out;
    for (int i = 0; i < n; i++) {
        if (!(cmds[i] = fb_cstr(commands + (size_t)i * commands_len, commands_len))) goto out;
        if (avs && !(avs[i] = fb_argv(argvs + (size_t)i * argvs_len, argvs_len, (size_t)n))) goto out;
        ci[i] = FB_FROM(Info, infos[i]);
    }
    rc = MPI_Comm_spawn_multiple(*count, cmds, avs, maxprocs, ci, *root, FB_FROM(Comm, *comm), &c,
                                 fb_ints(errcodes));
    *intercomm = FB_TO(Comm, c);
out:
    for (int i = 0; cmds && i < n; i++) free(cmds[i]);
    for (int i = 0; avs && i < n; i++) free(avs[i]);
    free(cmds);
    free(avs);
    free(ci);
    fb_ret(ierror, rc);
}
FB_ALIAS(mpi_comm_spawn_multiple_, pmpi_comm_spawn_multiple_)

/* Generalized requests: QUERY_FN(EXTRA_STATE, STATUS, IERROR),
 * FREE_FN(EXTRA_STATE, IERROR), CANCEL_FN(EXTRA_STATE, COMPLETE, IERROR).
 * EXTRA_STATE is the program's own variable, by reference, as MPICH and
 * Open MPI pass it: what a callback stores there, the program reads. */
struct fb_greq {
    void (*query)(MPI_Aint *, MPI_Status *, int *);
    void (*free)(MPI_Aint *, int *);
    void (*cancel)(MPI_Aint *, int *, int *);
    MPI_Aint *extra;
};

static int fb_greq_query(void *s, MPI_Status *st)
{
    struct fb_greq *g = s;
    int ierr = MPI_SUCCESS;
    g->query(g->extra, st, &ierr);
    return ierr;
}

static int fb_greq_free(void *s)
{
    struct fb_greq *g = s;
    int ierr = MPI_SUCCESS;
    g->free(g->extra, &ierr);
    free(g);
    return ierr;
}

static int fb_greq_cancel(void *s, int complete)
{
    struct fb_greq *g = s;
    int ierr = MPI_SUCCESS, c = fb_lout(complete);
    g->cancel(g->extra, &c, &ierr);
    return ierr;
}

void pmpi_grequest_start_(void (*query)(MPI_Aint *, MPI_Status *, int *), void (*freefn)(MPI_Aint *, int *),
                          void (*cancel)(MPI_Aint *, int *, int *), const MPI_Aint *extra, int *request,
                          int *ierror)
{
    struct fb_greq *g = malloc(sizeof *g);
    if (!g) { fb_ret(ierror, MPI_ERR_NO_MEM); return; }
    *g = (struct fb_greq){query, freefn, cancel, (MPI_Aint *)extra};
    MPI_Request r = MPI_REQUEST_NULL;
    int rc = MPI_Grequest_start(fb_greq_query, fb_greq_free, fb_greq_cancel, g, &r);
    if (rc != MPI_SUCCESS) free(g);
    *request = FB_TO(Request, r);
    fb_ret(ierror, rc);
}
FB_ALIAS(mpi_grequest_start_, pmpi_grequest_start_)

/* MPI_REGISTER_DATAREP: conversion functions
 * (USERBUF, DATATYPE, COUNT, FILEBUF, POSITION, EXTRA_STATE, IERROR) and
 * DTYPE_FILE_EXTENT_FN(DATATYPE, EXTENT, EXTRA_STATE, IERROR);
 * MPI_CONVERSION_FN_NULL for none. */
typedef void (*fb_convfn)(void *, int *, int *, void *, MPI_Offset *, MPI_Aint *, int *);
typedef void (*fb_extfn)(int *, MPI_Aint *, MPI_Aint *, int *);
struct fb_datarep {
    fb_convfn read, write;
    fb_extfn extent;
    MPI_Aint extra;
};
void mpi_conversion_fn_null_(void);

static int fb_conv(fb_convfn f, void *user, MPI_Datatype dt, int count, void *file, MPI_Offset pos, MPI_Aint extra)
{
    int t = FB_TO(Datatype, dt), ierr = MPI_SUCCESS;
    f(user, &t, &count, file, &pos, &extra, &ierr);
    return ierr;
}
static int fb_read(void *u, MPI_Datatype dt, int n, void *f, MPI_Offset pos, void *s)
{
    struct fb_datarep *d = s;
    return fb_conv(d->read, u, dt, n, f, pos, d->extra);
}
static int fb_write(void *u, MPI_Datatype dt, int n, void *f, MPI_Offset pos, void *s)
{
    struct fb_datarep *d = s;
    return fb_conv(d->write, u, dt, n, f, pos, d->extra);
}
static int fb_extent(MPI_Datatype dt, MPI_Aint *extent, void *s)
{
    struct fb_datarep *d = s;
    int t = FB_TO(Datatype, dt), ierr = MPI_SUCCESS;
    d->extent(&t, extent, &d->extra, &ierr);
    return ierr;
}

void pmpi_register_datarep_(const char *datarep, fb_convfn rd, fb_convfn wr, fb_extfn ext,
                            const MPI_Aint *extra, int *ierror, size_t datarep_len)
{
    char *name = fb_cstr(datarep, datarep_len);
    /* Registered for the life of the process, as MPI keeps datareps. */
    struct fb_datarep *d = malloc(sizeof *d);
    if (!name || !d) { free(name); free(d); fb_ret(ierror, MPI_ERR_NO_MEM); return; }
    *d = (struct fb_datarep){rd, wr, ext, *extra};
    fb_fn null = (fb_fn)mpi_conversion_fn_null_;
    int rc = MPI_Register_datarep(name, (fb_fn)rd == null ? MPI_CONVERSION_FN_NULL : fb_read,
                                  (fb_fn)wr == null ? MPI_CONVERSION_FN_NULL : fb_write, fb_extent, d);
    if (rc != MPI_SUCCESS) free(d);
    free(name);
    fb_ret(ierror, rc);
}
FB_ALIAS(mpi_register_datarep_, pmpi_register_datarep_)

/* MPI_Register_datarep_c (mpi_f08 only): the conversion functions'
 * COUNT is an INTEGER(KIND=MPI_COUNT_KIND) (MPI_Datarep_conversion_function_c),
 * MPI_CONVERSION_FN_NULL_C for none; the extent function is the same. */
typedef void (*fb_convfn_c)(void *, int *, MPI_Count *, void *, MPI_Offset *, MPI_Aint *, int *);
void mpi_conversion_fn_null_c_(void);

static int fb_conv_c(fb_fn f, void *user, MPI_Datatype dt, MPI_Count count, void *file, MPI_Offset pos,
                     MPI_Aint extra)
{
    int t = FB_TO(Datatype, dt), ierr = MPI_SUCCESS;
    ((fb_convfn_c)f)(user, &t, &count, file, &pos, &extra, &ierr);
    return ierr;
}
static int fb_read_c(void *u, MPI_Datatype dt, MPI_Count n, void *f, MPI_Offset pos, void *s)
{
    struct fb_datarep *d = s;
    return fb_conv_c((fb_fn)d->read, u, dt, n, f, pos, d->extra);
}
static int fb_write_c(void *u, MPI_Datatype dt, MPI_Count n, void *f, MPI_Offset pos, void *s)
{
    struct fb_datarep *d = s;
    return fb_conv_c((fb_fn)d->write, u, dt, n, f, pos, d->extra);
}

void pmpi_register_datarep_c_(const char *datarep, fb_convfn_c rd, fb_convfn_c wr, fb_extfn ext,
                              const MPI_Aint *extra, int *ierror, size_t datarep_len)
{
    char *name = fb_cstr(datarep, datarep_len);
    struct fb_datarep *d = malloc(sizeof *d);
    if (!name || !d) { free(name); free(d); fb_ret(ierror, MPI_ERR_NO_MEM); return; }
    *d = (struct fb_datarep){(fb_convfn)rd, (fb_convfn)wr, ext, *extra};
    fb_fn null = (fb_fn)mpi_conversion_fn_null_c_, null4 = (fb_fn)mpi_conversion_fn_null_;
    int rc = MPI_Register_datarep_c(name, (fb_fn)rd == null || (fb_fn)rd == null4 ? MPI_CONVERSION_FN_NULL_C : fb_read_c,
                                    (fb_fn)wr == null || (fb_fn)wr == null4 ? MPI_CONVERSION_FN_NULL_C : fb_write_c,
                                    fb_extent, d);
    if (rc != MPI_SUCCESS) free(d);
    free(name);
    fb_ret(ierror, rc);
}
FB_ALIAS(mpi_register_datarep_c_, pmpi_register_datarep_c_)
