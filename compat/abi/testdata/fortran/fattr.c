/* fattr.c: the C half of fattr.f90: reads and sets attributes whose
 * keyvals and values come from Fortran, as MPI-4.1 section 19.3.7 says C
 * sees them (a pointer to the MPI_Aint, or to the int MPI_ATTR_PUT set),
 * and makes a keyval of its own whose copy function shares the pointer. */
#include <stddef.h>
#include <mpi.h>

static int cattr_ok(int flag, int rc) { return rc == MPI_SUCCESS && flag; }

/* cgetaint: comm's attribute is a pointer to an MPI_Aint holding *want. */
void cgetaint_(MPI_Fint *comm, MPI_Fint *key, MPI_Aint *want, MPI_Fint *ok)
{
    MPI_Aint *p = NULL;
    int flag = 0, rc = MPI_Comm_get_attr(MPI_Comm_f2c(*comm), *key, &p, &flag);
    *ok = cattr_ok(flag, rc) && *p == *want;
}

/* cgetint: comm's attribute is a pointer to an int holding *want. */
void cgetint_(MPI_Fint *comm, MPI_Fint *key, MPI_Fint *want, MPI_Fint *ok)
{
    int *p = NULL;
    int flag = 0, rc = MPI_Comm_get_attr(MPI_Comm_f2c(*comm), *key, &p, &flag);
    *ok = cattr_ok(flag, rc) && *p == *want;
}

/* cattrptr: the pointer C gets, as an integer. */
void cattrptr_(MPI_Fint *comm, MPI_Fint *key, MPI_Aint *addr)
{
    void *p = NULL;
    int flag = 0;
    MPI_Comm_get_attr(MPI_Comm_f2c(*comm), *key, &p, &flag);
    *addr = flag ? (MPI_Aint)p : 0;
}

/* csetaddr: sets the address of a C variable as comm's attribute. */
static double cvar;
void csetaddr_(MPI_Fint *comm, MPI_Fint *key, MPI_Aint *addr, MPI_Fint *ok)
{
    *addr = (MPI_Aint)&cvar;
    *ok = MPI_Comm_set_attr(MPI_Comm_f2c(*comm), *key, &cvar) == MPI_SUCCESS;
}

void cgettype_(MPI_Fint *type, MPI_Fint *key, MPI_Aint *want, MPI_Fint *ok)
{
    MPI_Aint *p = NULL;
    int flag = 0, rc = MPI_Type_get_attr(MPI_Type_f2c(*type), *key, &p, &flag);
    *ok = cattr_ok(flag, rc) && *p == *want;
}

void cgetwin_(MPI_Fint *win, MPI_Fint *key, MPI_Aint *want, MPI_Fint *ok)
{
    MPI_Aint *p = NULL;
    int flag = 0, rc = MPI_Win_get_attr(MPI_Win_f2c(*win), *key, &p, &flag);
    *ok = cattr_ok(flag, rc) && *p == *want;
}

/* A C keyval whose copy function gives the new communicator the same
 * pointer and adds one to the integer it points to. */
static int share_inc(MPI_Comm comm, int key, void *extra, void *in, void *out, int *flag)
{
    (void)comm; (void)key; (void)extra;
    *(MPI_Aint *)in += 1;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

void cmkkey_(MPI_Fint *key, MPI_Fint *ok)
{
    int k = MPI_KEYVAL_INVALID;
    *ok = MPI_Comm_create_keyval(share_inc, MPI_COMM_NULL_DELETE_FN, &k, NULL) == MPI_SUCCESS;
    *key = k;
}
