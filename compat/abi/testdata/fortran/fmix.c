/* fmix.c: the C half of fmix.f90, called as CALL CSIDE(...) with
 * gfortran's conventions (lower case, trailing underscore, by reference).
 * *ok is 1 when every check passed, else the number of the first failed. */
#include <mpi.h>
#include <string.h>

void cside_(MPI_Fint *fcomm, MPI_Fint *ftype, MPI_Fint *fstatus, MPI_Fint *fnew, MPI_Fint *ok)
{
    int np = 0, rank = 0, size = 0, set = 0, flag = 0, lt = 0, lf = 0;
    MPI_Comm comm = MPI_Comm_f2c(*fcomm);
    MPI_Datatype dt = MPI_Type_f2c(*ftype);
    MPI_Status st;
    char v[MPI_MAX_INFO_VAL];
    MPI_Info info = MPI_INFO_NULL;
    *ok = 2;
    if (comm != MPI_COMM_WORLD || MPI_Comm_c2f(comm) != *fcomm) return;
    *ok = 3;
    if (MPI_Comm_size(comm, &np) != MPI_SUCCESS || MPI_Comm_rank(comm, &rank) != MPI_SUCCESS) return;
    *ok = 4;
    if (MPI_Type_size(dt, &size) != MPI_SUCCESS || size != 12 || MPI_Type_c2f(dt) != *ftype) return;
    *ok = 5;
    if (MPI_Status_f2c(fstatus, &st) != MPI_SUCCESS || st.MPI_SOURCE != (rank + np - 1) % np || st.MPI_TAG != 9) return;
    *ok = 6;
    MPI_Fint back[MPI_F_STATUS_SIZE];
    if (MPI_Status_c2f(&st, back) != MPI_SUCCESS || memcmp(back, fstatus, sizeof back) != 0) return;
    *ok = 7;
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    if (MPI_Status_f2c(MPI_F_STATUS_IGNORE, &st) != MPI_ERR_ARG) return;
    *ok = 8; /* the binding told the C library gfortran's LOGICAL values */
    if (MPI_Abi_get_fortran_booleans(4, &lt, &lf, &set) != MPI_SUCCESS || !set || lt != 1 || lf != 0) return;
    *ok = 9;
    if (MPI_Abi_get_fortran_info(&info) != MPI_SUCCESS || info == MPI_INFO_NULL) return;
    if (MPI_Info_get(info, "mpi_integer_size", sizeof v - 1, v, &flag) != MPI_SUCCESS || !flag || strcmp(v, "4") != 0) return;
    MPI_Info_free(&info);
    *ok = 10;
    MPI_Comm dup;
    if (MPI_Comm_dup(comm, &dup) != MPI_SUCCESS) return;
    *fnew = MPI_Comm_c2f(dup);
    if (MPI_Comm_f2c(*fnew) != dup) return;
    *ok = 1;
}
