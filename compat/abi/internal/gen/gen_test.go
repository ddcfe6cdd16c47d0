package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestGeneratedFilesCurrent fails when abi.txt or the package's exports
// changed without go generate ./compat/abi.
func TestGeneratedFilesCurrent(t *testing.T) {
	files, err := generate("../..")
	require.NoError(t, err)
	stale, err := apply("../..", files, true)
	require.NoError(t, err)
	require.Empty(t, stale, "run go generate ./compat/abi")
}

func TestTables(t *testing.T) {
	data, err := generate("../..")
	require.NoError(t, err)
	require.Contains(t, string(data["include/mpi.h"]), "#define MPI_COMM_WORLD                       ((MPI_Comm)0x00000101)")
	tb, err := parseTablesFile("../..")
	require.NoError(t, err)
	require.Len(t, tb.funcs, 664, "entry points of the standard ABI 1.0")
	for _, f := range tb.funcs {
		require.NotContains(t, f.name, "MPI_", "names are stored without the prefix")
	}
	_, err = parseTables([]byte("func int Bad(int x[[)\n"))
	require.Error(t, err)
	_, err = parseTables([]byte("nonsense line\n"))
	require.Error(t, err)
}

func TestShims(t *testing.T) {
	tb, err := parseTablesFile("../..")
	require.NoError(t, err)
	by := map[string]*function{}
	for _, f := range tb.funcs {
		by[f.name] = f
	}
	require.True(t, shimmable(by["Send_c"], by["Send"]))
	require.True(t, shimmable(by["Pack_c"], by["Pack"]))
	require.False(t, shimmable(by["Allgatherv_c"], by["Allgatherv"]), "count arrays are not shimmed")
	body := shim(by["Get_count_c"], by["Get_count"])
	require.Contains(t, body, "int t_count = 0;")
	require.NotContains(t, body, "*count > INT_MAX", "an output is not read")
	require.Contains(t, shim(by["Send_c"], by["Send"]), "count > INT_MAX")
	// A count of elements past INT_MAX becomes one contiguous datatype;
	// a reduction does so only under a predefined op.
	require.Contains(t, shim(by["Send_c"], by["Send"]), "PMPI_Type_contiguous_c(count, datatype, &t_datatype)")
	require.Contains(t, shim(by["Allreduce_c"], by["Allreduce"]), "count > INT_MAX && (uintptr_t)op < 0x40")
	require.Contains(t, shim(by["Get_c"], by["Get"]), "PMPI_Type_contiguous_c(target_count, target_datatype, &t_target_datatype)")
}
