/* A profiling library in the PMPI way: it defines MPI_Send, counts, and
 * calls PMPI_Send. Linked before libmpi_abi.so.1, its MPI_Send wins over
 * the library's weak one. */
#include <mpi.h>

static int sends = 0;

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    sends++;
    return PMPI_Send(buf, count, datatype, dest, tag, comm);
}

int prof_sends(void)
{
    return sends;
}
