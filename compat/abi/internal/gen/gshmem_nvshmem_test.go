package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// NVSHMEM 3.4's constants and the names of its public headers' macros,
// written here from NVSHMEM's headers (not from the generator's table).
var nvshmemConstants = strings.Fields(`NVSHMEM_MAJOR_VERSION NVSHMEM_MINOR_VERSION NVSHMEM_VENDOR_MAJOR_VERSION
	NVSHMEM_VENDOR_MINOR_VERSION NVSHMEM_VENDOR_PATCH_VERSION NVSHMEM_VENDOR_STRING NVSHMEM_MAX_NAME_LEN
	NVSHMEM_CMP_EQ NVSHMEM_CMP_NE NVSHMEM_CMP_GT NVSHMEM_CMP_GE NVSHMEM_CMP_LT NVSHMEM_CMP_LE NVSHMEM_CMP_SENTINEL
	NVSHMEM_SIGNAL_SET NVSHMEM_SIGNAL_ADD NVSHMEM_THREAD_SINGLE NVSHMEM_THREAD_FUNNELED NVSHMEM_THREAD_SERIALIZED
	NVSHMEM_THREAD_MULTIPLE NVSHMEM_TEAM_WORLD NVSHMEM_TEAM_SHARED NVSHMEMX_TEAM_NODE NVSHMEM_TEAM_INVALID
	NVSHMEM_TEAM_WORLD_INDEX NVSHMEM_TEAM_SHARED_INDEX NVSHMEMX_TEAM_NODE_INDEX NVSHMEMX_INIT_WITH_MPI_COMM
	NVSHMEMX_INIT_ATTR_INITIALIZER NVSHMEM_PE_INVALID nvshmem_team_t nvshmemx_init_attr_t nvshmem_team_config_t
	NVSHMEMX_INIT_THREAD_PES NVSHMEMX_INIT_WITH_SHMEM NVSHMEMX_INIT_WITH_UNIQUEID nvshmemx_uniqueid_t
	nvshmemx_uniqueid_args_t nvshmemx_init_args_t NVSHMEMX_UNIQUEID_INITIALIZER NVSHMEMX_UNIQUEID_ARGS_INITIALIZER
	NVSHMEM_STATUS_NOT_INITIALIZED NVSHMEM_STATUS_IS_BOOTSTRAPPED NVSHMEM_STATUS_IS_INITIALIZED
	NVSHMEMX_SUCCESS NVSHMEMX_ERROR_INVALID_VALUE NVSHMEMX_ERROR_OUT_OF_MEMORY NVSHMEMX_ERROR_NOT_SUPPORTED
	NVSHMEMX_ERROR_SYMMETRY NVSHMEMX_ERROR_GPU_NOT_SELECTED NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED
	NVSHMEMX_ERROR_INTERNAL NVSHMEMI_ERROR_PRINT NVSHMEMI_WARN_PRINT NVSHMEMI_ERROR_EXIT NVSHMEMI_ERROR_JMP
	NVSHMEMI_NULL_ERROR_JMP NVSHMEMI_EQ_ERROR_JMP NVSHMEMI_NE_ERROR_JMP NVSHMEMI_NZ_ERROR_JMP
	NVSHMEMI_CHECK_ERROR_JMP NVSHMEMI_NZ_EXIT NVSHMEMI_NZ_SYSCHECK_EXIT`)

// TestNVSHMEMHeaderCurrent checks the one table: every host call of
// gshmem.h and every device call of gshmem.cuh has its NVSHMEM name in
// nvshmem.h, every host call is a symbol of znvshmem.c, and NVSHMEM's
// constants are defined.
func TestNVSHMEMHeaderCurrent(t *testing.T) {
	files, err := generate("../..")
	require.NoError(t, err)
	h := string(files["include/nvshmem.h"]) + string(files["include/nvshmemx_error.h"])
	c := string(files["znvshmem.c"])
	protos := gshmemProtos()
	require.Greater(t, len(protos), 1500, "gshmem.h's prototypes")
	for _, p := range protos {
		n := nvshmemName(p.name)
		require.True(t, strings.Contains(h, "#define "+n+" "+p.name+"\n"), "nvshmem.h lacks %s", n)
		require.True(t, strings.Contains(c, " "+n+"(") || strings.Contains(c, "*"+n+"("), "no symbol %s", n)
		require.True(t, strings.Contains(c, " "+p.name+"("), "%s does not forward to %s", n, p.name)
	}
	cuh, err := readCuh("../..")
	require.NoError(t, err)
	dev := deviceNames(cuh)
	require.Greater(t, len(dev), 500, "gshmem.cuh's device calls")
	for _, n := range dev {
		require.NotContains(t, n, "#")
		require.NotContains(t, n, "NAME")
		require.True(t, strings.Contains(h, "#define "+nvshmemName(n)+" "+n+"\n"), "nvshmem.h lacks %s", nvshmemName(n))
	}
	for _, n := range []string{"nvshmemx_int_put_warp", "nvshmemx_float_sum_reduce_block", "nvshmemx_int_and_reduce_block", "nvshmemx_uint64_xor_reduce_block",
		"nvshmemx_size_broadcast_block", "nvshmemx_int8_fcollect_block", "nvshmemx_ptrdiff_alltoall_block", "nvshmemx_collective_launch",
		"nvshmem_uint64_atomic_fetch_xor", "nvshmemx_barrier_all_block", "nvshmem_ptr"} {
		require.True(t, strings.Contains(h, "#define "+n+" "), "nvshmem.h lacks %s", n)
	}
	for _, k := range nvshmemConstants {
		require.Regexp(t, `(#define |typedef .* |\s)`+k+`\b`, h)
	}
	require.Contains(t, string(files["include/non_abi/nvshmemx_error.h"]), `#include "../nvshmemx_error.h"`)
}

// TestNVSHMEMHeaderCompiles compiles a C program against nvshmem.h and
// nvshmemx.h as NVSHMEM programs include them (skipped without cc).
func TestNVSHMEMHeaderCompiles(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler")
	}
	src := filepath.Join(t.TempDir(), "nv.c")
	require.NoError(t, os.WriteFile(src, []byte(`#include <nvshmem.h>
#include <nvshmemx.h>
#include <non_abi/nvshmemx_error.h>
int main(void) {
    nvshmem_init();
    int status = NVSHMEMX_SUCCESS;
    nvshmem_team_t team = NVSHMEMX_TEAM_NODE;
    int *x = (int *)nvshmem_malloc(sizeof(int));
    NVSHMEMI_NULL_ERROR_JMP(x, status, NVSHMEMX_ERROR_OUT_OF_MEMORY, out, "nvshmem_malloc failed\n");
    nvshmem_int_p(x, nvshmem_team_my_pe(team), (nvshmem_my_pe() + 1) % nvshmem_n_pes());
    nvshmem_barrier_all();
    nvshmem_int_wait_until(x, NVSHMEM_CMP_GE, 0);
    nvshmem_free(x);
out:
    nvshmem_finalize();
    return status == NVSHMEMX_SUCCESS && NVSHMEM_VENDOR_MAJOR_VERSION == 3 ? 0 : 1;
}
`), 0o644))
	out, err := exec.Command(cc, "-Wall", "-Werror", "-fsyntax-only", "-I../../include", src).CombinedOutput()
	require.NoError(t, err, string(out))
}
