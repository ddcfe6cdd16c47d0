/* removed.c: the MPI-1 Fortran routines MPI-3.0 removed (MPI-4.1 section
 * 16.2), for mpif.h and use mpi programs that still call them, as MPICH
 * and Open MPI keep them: each is its MPI-2 replacement with default
 * INTEGER addresses and displacements (MPI_ADDRESS is MPI_GET_ADDRESS,
 * MPI_TYPE_HVECTOR MPI_TYPE_CREATE_HVECTOR, MPI_ERRHANDLER_SET
 * MPI_COMM_SET_ERRHANDLER, ...). The C ABI has none of them, and mpi_f08
 * never had them. An address, extent or bound that does not fit a default
 * INTEGER is given as its low-order bits (so differences of nearby
 * addresses stay exact) with IERROR = MPI_ERR_ARG, which says so; the
 * error handler is not called, as MPICH does not, because the programs
 * these serve take the differences and expect to go on. */
#include "fbind.h"

/* fb_int_out stores v as a default INTEGER: MPI_ERR_ARG if it does not fit. */
static int fb_int_out(MPI_Aint v, int *out)
{
    *out = (int)v;
    return (MPI_Aint)*out == v ? MPI_SUCCESS : MPI_ERR_ARG;
}

void pmpi_address_(void *location, int *address, int *ierror)
{
    MPI_Aint a = 0;
    int rc = MPI_Get_address(fb_addr(location), &a);
    if (rc == MPI_SUCCESS) rc = fb_int_out(a, address);
    fb_ret(ierror, rc);
}
FB_ALIAS(mpi_address_, pmpi_address_)

void pmpi_type_extent_(const int *datatype, int *extent, int *ierror)
{
    MPI_Aint lb = 0, ext = 0;
    int rc = MPI_Type_get_extent(FB_FROM(Datatype, *datatype), &lb, &ext);
    if (rc == MPI_SUCCESS) rc = fb_int_out(ext, extent);
    fb_ret(ierror, rc);
}
FB_ALIAS(mpi_type_extent_, pmpi_type_extent_)

void pmpi_type_lb_(const int *datatype, int *displacement, int *ierror)
{
    MPI_Aint lb = 0, ext = 0;
    int rc = MPI_Type_get_extent(FB_FROM(Datatype, *datatype), &lb, &ext);
    if (rc == MPI_SUCCESS) rc = fb_int_out(lb, displacement);
    fb_ret(ierror, rc);
}
FB_ALIAS(mpi_type_lb_, pmpi_type_lb_)

void pmpi_type_ub_(const int *datatype, int *displacement, int *ierror)
{
    MPI_Aint lb = 0, ext = 0;
    int rc = MPI_Type_get_extent(FB_FROM(Datatype, *datatype), &lb, &ext);
    if (rc == MPI_SUCCESS) rc = fb_int_out(lb + ext, displacement);
    fb_ret(ierror, rc);
}
FB_ALIAS(mpi_type_ub_, pmpi_type_ub_)

void pmpi_type_hvector_(const int *count, const int *blocklength, const int *stride,
                        const int *oldtype, int *newtype, int *ierror)
{
    MPI_Datatype c = MPI_DATATYPE_NULL;
    int rc = MPI_Type_create_hvector(*count, *blocklength, (MPI_Aint)*stride, FB_FROM(Datatype, *oldtype), &c);
    if (rc == MPI_SUCCESS) *newtype = FB_TO(Datatype, c);
    fb_ret(ierror, rc);
}
FB_ALIAS(mpi_type_hvector_, pmpi_type_hvector_)

/* fb_aints widens n INTEGER displacements (NULL when memory is out). */
static MPI_Aint *fb_aints(int n, const int *d)
{
    MPI_Aint *a = fb_alloc(n, sizeof *a);
    if (a)
        for (int i = 0; i < n; i++) a[i] = d[i];
    return a;
}

void pmpi_type_hindexed_(const int *count, int *blocklengths, const int *displacements,
                         const int *oldtype, int *newtype, int *ierror)
{
    MPI_Aint *d = fb_aints(*count, displacements);
    if (!d) { fb_ret(ierror, MPI_ERR_NO_MEM); return; }
    MPI_Datatype c = MPI_DATATYPE_NULL;
    int rc = MPI_Type_create_hindexed(*count, blocklengths, d, FB_FROM(Datatype, *oldtype), &c);
    free(d);
    if (rc == MPI_SUCCESS) *newtype = FB_TO(Datatype, c);
    fb_ret(ierror, rc);
}
FB_ALIAS(mpi_type_hindexed_, pmpi_type_hindexed_)

void pmpi_type_struct_(const int *count, int *blocklengths, const int *displacements,
                       const int *types, int *newtype, int *ierror)
{
    int n = *count;
    MPI_Aint *d = fb_aints(n, displacements);
    MPI_Datatype *t = fb_alloc(n, sizeof *t);
    if (!d || !t) { free(d); free(t); fb_ret(ierror, MPI_ERR_NO_MEM); return; }
    for (int i = 0; i < n; i++) t[i] = FB_FROM(Datatype, types[i]);
    MPI_Datatype c = MPI_DATATYPE_NULL;
    int rc = MPI_Type_create_struct(n, blocklengths, d, t, &c);
    free(d);
    free(t);
    if (rc == MPI_SUCCESS) *newtype = FB_TO(Datatype, c);
    fb_ret(ierror, rc);
}
FB_ALIAS(mpi_type_struct_, pmpi_type_struct_)

/* The error handler routines of communicators under their MPI-1 names. */
void pmpi_comm_create_errhandler_(fb_fn fn, int *eh, int *ierror);
void pmpi_comm_set_errhandler_(const int *comm, const int *errhandler, int *ierror);
void pmpi_comm_get_errhandler_(const int *comm, int *errhandler, int *ierror);

void pmpi_errhandler_create_(fb_fn fn, int *eh, int *ierror) { pmpi_comm_create_errhandler_(fn, eh, ierror); }
FB_ALIAS(mpi_errhandler_create_, pmpi_errhandler_create_)
void pmpi_errhandler_set_(const int *comm, const int *eh, int *ierror) { pmpi_comm_set_errhandler_(comm, eh, ierror); }
FB_ALIAS(mpi_errhandler_set_, pmpi_errhandler_set_)
void pmpi_errhandler_get_(const int *comm, int *eh, int *ierror) { pmpi_comm_get_errhandler_(comm, eh, ierror); }
FB_ALIAS(mpi_errhandler_get_, pmpi_errhandler_get_)
