/* mpi-ext.h: gshmem's MPI extensions: CUDA awareness, as Open MPI's
 * mpi-ext.h lets codes test it, and the fault-tolerance (user-level
 * failure mitigation) calls of Open MPI and MPICH. MPIX_CUDA_AWARE_SUPPORT is
 * 0 in the host build of libmpi_abi.so.1, which is not CUDA-aware; `gshmem
 * abi install` of a build with -tags cuda installs this header with 1:
 * there device buffers may be passed to point-to-point, collective and
 * RMA calls of a job whose heap is GPU memory (GSHMEM_HEAP=device), and
 * MPIX_Query_cuda_support() returns 1. */
#ifndef GSHMEM_MPI_EXT_H
#define GSHMEM_MPI_EXT_H

#include "mpi.h" /* MPI_Comm, MPI_Group: a code may include this header first */

#define MPIX_CUDA_AWARE_SUPPORT 0

/* The fault-tolerance extensions (MPIX_Comm_revoke, ...). Their error
 * classes lie between the standard ABI's classes (up to MPI_ERR_ABI, 62)
 * and MPI_ERR_LASTCODE, apart from both: a lost process is reported with
 * class MPIX_ERR_PROC_FAILED when the job runs with GSHMEM_MPI_FT=ulfm,
 * else with MPI-4's MPI_ERR_PROC_ABORTED; either way the error string
 * names the lost rank. */
#define MPIX_ERR_PROC_FAILED         101
#define MPIX_ERR_PROC_FAILED_PENDING 102
#define MPIX_ERR_REVOKED             103
#define MPIX_FT_ULFM                 1

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when device buffers may be passed to MPI calls, else 0: 1 in a
 * library built with -tags cuda, except in a job whose symmetric heap is
 * host memory (GSHMEM_HEAP unset or host), where device buffers cannot be
 * told from host ones. */
int MPIX_Query_cuda_support(void);

/* MPIX_Comm_revoke revokes comm at every member: their pending operations
 * on it (a blocked receive, a send not yet matched, a collective) and
 * their later calls on it, except the ones below, MPI_Comm_group and
 * MPI_Comm_free, fail with MPIX_ERR_REVOKED. */
int MPIX_Comm_revoke(MPI_Comm comm);
/* MPIX_Comm_is_revoked sets *flag to 1 when comm was revoked, else 0. */
int MPIX_Comm_is_revoked(MPI_Comm comm, int *flag);
/* MPIX_Comm_shrink makes *newcomm over the members of comm that are not
 * lost, after agreeing with them on which are; collective over them. */
int MPIX_Comm_shrink(MPI_Comm comm, MPI_Comm *newcomm);
/* MPIX_Comm_agree sets *flag to the bitwise AND of the flags of the
 * members that are not lost, the same on each; MPIX_ERR_PROC_FAILED when
 * a lost member was not acknowledged (MPIX_Comm_failure_ack). */
int MPIX_Comm_agree(MPI_Comm comm, int *flag);
/* MPIX_Comm_failure_ack acknowledges the losses of comm's members the
 * calling process knows of; MPIX_Comm_failure_get_acked returns them.
 * Until then, after a loss of a member of comm, a receive from
 * MPI_ANY_SOURCE on comm that no message has matched does not wait: an
 * MPI_Irecv's request stays pending and its MPI_Wait, MPI_Test, ... return
 * MPIX_ERR_PROC_FAILED_PENDING (the request remains valid, to be waited on
 * again, cancelled or freed), and a blocking MPI_Recv returns
 * MPIX_ERR_PROC_FAILED and takes no message. Once acknowledged, they wait
 * for the other members as before. */
int MPIX_Comm_failure_ack(MPI_Comm comm);
int MPIX_Comm_failure_get_acked(MPI_Comm comm, MPI_Group *failedgrp);
/* MPIX_Comm_get_failed returns the group of comm's members the calling
 * process knows to be lost. */
int MPIX_Comm_get_failed(MPI_Comm comm, MPI_Group *failedgrp);

#ifdef __cplusplus
}
#endif

#endif
