/* convert.c: the C side of Fortran interoperability (mpi_fortran.h):
 * handle conversion (a Fortran handle is the ABI's MPI_X_toint value) and
 * status conversion (the C, mpif.h and mpi_f08 statuses are the same 8
 * integers, so a conversion is a copy; an ignore value is MPI_ERR_ARG,
 * as is a null pointer). */
#include "fbind.h"
#include "mpi_fortran.h"

MPI_Fint *MPI_F_STATUS_IGNORE = mpifcb_status_ignore_;
MPI_Fint *MPI_F_STATUSES_IGNORE = mpifcb_statuses_ignore_;
MPI_F08_status *MPI_F08_STATUS_IGNORE = (MPI_F08_status *)&gshmem_f08_status_ignore;
MPI_F08_status *MPI_F08_STATUSES_IGNORE = (MPI_F08_status *)gshmem_f08_statuses_ignore;

#define FB_F2C(K, T)                                                      \
    MPI_Fint PMPI_##K##_c2f(T h) { return FB_TO(K, h); }                  \
    T PMPI_##K##_f2c(MPI_Fint i) { return FB_FROM(K, i); }                \
    FB_ALIAS(MPI_##K##_c2f, PMPI_##K##_c2f)                               \
    FB_ALIAS(MPI_##K##_f2c, PMPI_##K##_f2c)
FB_F2C(Comm, MPI_Comm)
FB_F2C(Errhandler, MPI_Errhandler)
FB_F2C(File, MPI_File)
FB_F2C(Group, MPI_Group)
FB_F2C(Info, MPI_Info)
FB_F2C(Message, MPI_Message)
FB_F2C(Op, MPI_Op)
FB_F2C(Request, MPI_Request)
FB_F2C(Session, MPI_Session)
FB_F2C(Win, MPI_Win)
MPI_Fint PMPI_Type_c2f(MPI_Datatype h) { return FB_TO(Datatype, h); }
MPI_Datatype PMPI_Type_f2c(MPI_Fint i) { return FB_FROM(Datatype, i); }
FB_ALIAS(MPI_Type_c2f, PMPI_Type_c2f)
FB_ALIAS(MPI_Type_f2c, PMPI_Type_f2c)

_Static_assert(sizeof(MPI_Status) == 8 * sizeof(MPI_Fint), "one status layout");
_Static_assert(sizeof(MPI_F08_status) == sizeof(MPI_Status), "one status layout");

static int fb_copy_status(const void *from, void *to)
{
    if (!from || !to || fb_status((void *)from) == MPI_STATUS_IGNORE ||
        fb_status(to) == MPI_STATUS_IGNORE)
        return MPI_ERR_ARG;
    memmove(to, from, sizeof(MPI_Status));
    return MPI_SUCCESS;
}

#define FB_STATUS(name, A, B)                                             \
    int PMPI_Status_##name(const A *from, B *to) { return fb_copy_status(from, to); } \
    FB_ALIAS(MPI_Status_##name, PMPI_Status_##name)
FB_STATUS(c2f, MPI_Status, MPI_Fint)
FB_STATUS(f2c, MPI_Fint, MPI_Status)
FB_STATUS(c2f08, MPI_Status, MPI_F08_status)
FB_STATUS(f082c, MPI_F08_status, MPI_Status)
FB_STATUS(f2f08, MPI_Fint, MPI_F08_status)
FB_STATUS(f082f, MPI_F08_status, MPI_Fint)

/* The Fortran forms: MPI_STATUS_F2F08(F_STATUS, F08_STATUS, IERROR) and
 * MPI_STATUS_F082F(F08_STATUS, F_STATUS, IERROR), in both modules. */
void pmpi_status_f2f08_(const MPI_Fint *f, MPI_F08_status *f08, int *ierror)
{
    fb_ret(ierror, fb_copy_status(f, f08));
}
FB_ALIAS(mpi_status_f2f08_, pmpi_status_f2f08_)
void pmpi_status_f082f_(const MPI_F08_status *f08, MPI_Fint *f, int *ierror)
{
    fb_ret(ierror, fb_copy_status(f08, f));
}
FB_ALIAS(mpi_status_f082f_, pmpi_status_f082f_)
