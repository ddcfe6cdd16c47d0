/* mpi_fortran.h: MPI's C side of Fortran interoperability (MPI-4.1
 * section 19.3), included by mpi.h. The MPI-5.0 ABI leaves MPI_Fint and
 * these conversions out of libmpi_abi.so.1; gshmem's Fortran binding
 * library libgshmem_mpifort provides them, for the one Fortran compiler it
 * was built with (gfortran: INTEGER is a C int). Link with mpifort, or add
 * -lgshmem_mpifort to a C program that calls them. */
#ifndef GSHMEM_MPI_FORTRAN_H
#define GSHMEM_MPI_FORTRAN_H

#ifdef __cplusplus
extern "C" {
#endif

typedef int MPI_Fint;

/* MPI_F08_status: the mpi_f08 module's TYPE(MPI_Status), the same 8
 * integers as MPI_Status and as the mpif.h status array. */
typedef struct MPI_F08_status {
    MPI_Fint MPI_SOURCE;
    MPI_Fint MPI_TAG;
    MPI_Fint MPI_ERROR;
    MPI_Fint MPI_internal[5];
} MPI_F08_status;

extern MPI_Fint *MPI_F_STATUS_IGNORE;
extern MPI_Fint *MPI_F_STATUSES_IGNORE;
extern MPI_F08_status *MPI_F08_STATUS_IGNORE;
extern MPI_F08_status *MPI_F08_STATUSES_IGNORE;

#define GSHMEM_F2C(K, T)                 \
    MPI_Fint MPI_##K##_c2f(T h);         \
    T MPI_##K##_f2c(MPI_Fint i);         \
    MPI_Fint PMPI_##K##_c2f(T h);        \
    T PMPI_##K##_f2c(MPI_Fint i);
GSHMEM_F2C(Comm, MPI_Comm)
GSHMEM_F2C(Errhandler, MPI_Errhandler)
GSHMEM_F2C(File, MPI_File)
GSHMEM_F2C(Group, MPI_Group)
GSHMEM_F2C(Info, MPI_Info)
GSHMEM_F2C(Message, MPI_Message)
GSHMEM_F2C(Op, MPI_Op)
GSHMEM_F2C(Request, MPI_Request)
GSHMEM_F2C(Session, MPI_Session)
GSHMEM_F2C(Type, MPI_Datatype)
GSHMEM_F2C(Win, MPI_Win)
#undef GSHMEM_F2C

int MPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status);
int MPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status);
int MPI_Status_c2f08(const MPI_Status *c_status, MPI_F08_status *f08_status);
int MPI_Status_f082c(const MPI_F08_status *f08_status, MPI_Status *c_status);
int MPI_Status_f2f08(const MPI_Fint *f_status, MPI_F08_status *f08_status);
int MPI_Status_f082f(const MPI_F08_status *f08_status, MPI_Fint *f_status);
int PMPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status);
int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status);
int PMPI_Status_c2f08(const MPI_Status *c_status, MPI_F08_status *f08_status);
int PMPI_Status_f082c(const MPI_F08_status *f08_status, MPI_Status *c_status);
int PMPI_Status_f2f08(const MPI_Fint *f_status, MPI_F08_status *f08_status);
int PMPI_Status_f082f(const MPI_F08_status *f08_status, MPI_Fint *f_status);

#ifdef __cplusplus
}
#endif
#endif
