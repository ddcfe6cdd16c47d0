/* The fault-tolerance extensions of mpi-ext.h: thin C entry points over
 * compat's Comm.Revoke, Shrink, Agree, FailureAck, AckFailed,
 * FailureGetAcked and GetFailed (ulfm.go), which are not part of the standard ABI's table. */
#include "abi.h"
#include "include/mpi-ext.h"
#include "_cgo_export.h"

int MPIX_Comm_revoke(MPI_Comm comm) { return abiint_comm_revoke((uintptr_t)comm); }

int MPIX_Comm_is_revoked(MPI_Comm comm, int *flag) { return abiint_comm_is_revoked((uintptr_t)comm, flag); }

int MPIX_Comm_shrink(MPI_Comm comm, MPI_Comm *newcomm)
{
    return abiint_comm_shrink((uintptr_t)comm, (uintptr_t *)newcomm);
}

int MPIX_Comm_agree(MPI_Comm comm, int *flag) { return abiint_comm_agree((uintptr_t)comm, flag); }

int MPIX_Comm_failure_ack(MPI_Comm comm) { return abiint_comm_failure_ack((uintptr_t)comm); }

int MPIX_Comm_failure_get_acked(MPI_Comm comm, MPI_Group *failedgrp)
{
    return abiint_comm_failed_group((uintptr_t)comm, 1, (uintptr_t *)failedgrp);
}

int MPIX_Comm_get_failed(MPI_Comm comm, MPI_Group *failedgrp)
{
    return abiint_comm_failed_group((uintptr_t)comm, 0, (uintptr_t *)failedgrp);
}

int MPIX_Comm_ack_failed(MPI_Comm comm, int num_to_ack, int *num_acked)
{
    return abiint_comm_ack_failed((uintptr_t)comm, num_to_ack, num_acked);
}
