/* The environment calls: versions, thread levels, names, times, errors,
 * the ABI queries and the handle conversions. */
#include <string.h>
#include "check.h"

int main(int argc, char **argv)
{
    int flag = -1, provided = -1, v, sv, len, rank, size;
    CHECK_RC(MPI_Initialized(&flag));
    CHECK(flag == 0);
    CHECK_RC(MPI_Abi_get_version(&v, &sv));
    CHECK(v == 1 && sv == 0 && MPI_ABI_VERSION == 1);

    CHECK_RC(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE);
    CHECK_RC(MPI_Query_thread(&v));
    CHECK(v == provided);
    CHECK_RC(MPI_Initialized(&flag));
    CHECK(flag == 1);
    CHECK_RC(MPI_Finalized(&flag));
    CHECK(flag == 0);
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(rank >= 0 && rank < size);
    CHECK_RC(MPI_Comm_size(MPI_COMM_SELF, &v));
    CHECK(v == 1);
    CHECK_RC(MPI_Comm_rank(MPI_COMM_SELF, &v));
    CHECK(v == 0);

    CHECK_RC(MPI_Get_version(&v, &sv));
    CHECK(v == MPI_VERSION && sv == MPI_SUBVERSION && v == 5);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    CHECK_RC(MPI_Get_library_version(lib, &len));
    CHECK(len > 0 && (int)strlen(lib) == len && strstr(lib, "gshmem") != NULL);
    char host[MPI_MAX_PROCESSOR_NAME];
    CHECK_RC(MPI_Get_processor_name(host, &len));
    CHECK(len > 0 && (int)strlen(host) == len);

    double t0 = MPI_Wtime(), t1 = MPI_Wtime();
    CHECK(t1 >= t0 && t0 > 0);
    CHECK(MPI_Wtick() > 0 && MPI_Wtick() < 1);
    CHECK(PMPI_Wtime() >= t1);

    char msg[MPI_MAX_ERROR_STRING];
    CHECK_RC(MPI_Error_string(MPI_ERR_RANK, msg, &len));
    CHECK(strstr(msg, "MPI_ERR_RANK") != NULL && (int)strlen(msg) == len);
    CHECK_RC(MPI_Error_class(MPI_ERR_TRUNCATE, &v));
    CHECK(v == MPI_ERR_TRUNCATE);

    MPI_Info info;
    CHECK_RC(MPI_Abi_get_info(&info));
    char val[MPI_MAX_INFO_VAL];
    int buflen = sizeof val;
    CHECK_RC(MPI_Info_get_string(info, "mpi_aint_size", &buflen, val, &flag));
    CHECK(flag == 1 && atoi(val) == (int)sizeof(MPI_Aint));
    CHECK_RC(MPI_Info_get_nkeys(info, &v));
    CHECK(v == 3);
    CHECK_RC(MPI_Info_free(&info));
    CHECK(info == MPI_INFO_NULL);

    /* Handle conversions: predefined handles are their constants. */
    CHECK(MPI_Comm_toint(MPI_COMM_WORLD) == 0x101);
    CHECK(MPI_Comm_fromint(0x101) == MPI_COMM_WORLD);
    CHECK(MPI_Type_toint(MPI_INT) == 0x209);
    CHECK(MPI_Type_fromint(MPI_Type_toint(MPI_DOUBLE)) == MPI_DOUBLE);
    CHECK(MPI_Op_fromint(MPI_Op_toint(MPI_SUM)) == MPI_SUM);
    MPI_Comm dup;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    int id = MPI_Comm_toint(dup);
    CHECK(id >= 0x400);
    CHECK(MPI_Comm_fromint(id) == dup);
    CHECK_RC(MPI_Comm_free(&dup));
    CHECK(dup == MPI_COMM_NULL);
    CHECK(MPI_Aint_add(100, 28) == 128 && MPI_Aint_diff(128, 100) == 28);
    CHECK_RC(MPI_Pcontrol(1, "ignored", 2));

    MPI_Status st;
    CHECK_RC(MPI_Status_set_source(&st, 5));
    CHECK_RC(MPI_Status_set_tag(&st, 6));
    CHECK_RC(MPI_Status_set_error(&st, MPI_ERR_TAG));
    CHECK_RC(MPI_Status_set_cancelled(&st, 1));
    CHECK_RC(MPI_Status_set_elements(&st, MPI_INT, 3));
    CHECK_RC(MPI_Status_get_source(&st, &v));
    CHECK(v == 5 && st.MPI_SOURCE == 5 && st.MPI_TAG == 6 && st.MPI_ERROR == MPI_ERR_TAG);
    CHECK_RC(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 1);
    CHECK_RC(MPI_Get_count(&st, MPI_INT, &v));
    CHECK(v == 3);
    CHECK_RC(MPI_Get_count(&st, MPI_DOUBLE, &v));
    CHECK(v == MPI_UNDEFINED);
    CHECK(sizeof(MPI_Status) == 32 && sizeof(MPI_Count) == 8 && sizeof(MPI_Offset) == 8);

    CHECK_RC(MPI_Finalize());
    CHECK_RC(MPI_Finalized(&flag));
    CHECK(flag == 1);
    printf("env ok %d/%d\n", rank, size);
    return 0;
}
