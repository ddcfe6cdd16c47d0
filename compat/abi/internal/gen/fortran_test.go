package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFortranBindings: every C entry point with a Fortran binding is
// generated, hand-written or excluded with a reason, and the generated
// conversions are the ones the rules say.
func TestFortranBindings(t *testing.T) {
	tb, err := parseTablesFile("../..")
	require.NoError(t, err)
	bs, err := fortranBindings(tb)
	require.NoError(t, err)
	require.Greater(t, len(bs), 500, "most bindings come from the generator")
	by := map[string]*fbinding{}
	for _, b := range bs {
		by[b.f.name] = b
	}
	for _, f := range tb.funcs {
		if fortranSkip(f) {
			continue
		}
		require.True(t, by[f.name] != nil || fortranHand[f.name], "MPI_%s has no Fortran binding", f.name)
	}
	for n := range fortranHand {
		require.Nil(t, by[n], "MPI_%s is hand-written and generated", n)
	}
	files, err := fortranFiles(tb)
	require.NoError(t, err)
	c := string(files["fortran/zbind.c"])
	require.Contains(t, c, "int rc = MPI_Send(fb_addr(buf), *count, FB_FROM(Datatype, *datatype), *dest, *tag, FB_FROM(Comm, *comm));")
	require.Contains(t, c, "void pmpi_comm_set_name_(const int *comm, const char *comm_name, int *ierror, size_t comm_name_len)")
	require.Contains(t, c, "*flag = fb_lout(*flag);", "LOGICAL outputs are converted")
	require.Contains(t, c, "FB_ALIAS(mpi_waitall_, pmpi_waitall_)")
	require.Contains(t, c, "void pmpi_info_create_env_(int *info, int *ierror)\n", "MPI_INFO_CREATE_ENV has no argc, argv")
	require.Contains(t, c, "int rc = MPI_Info_create_env(0, NULL, &c_info);")
	require.Contains(t, c, "*indx >= 0) (*indx)++;", "MPI_WAITANY's index is 1-based")
	require.Contains(t, c, "for (int i = 0; i < *outcount; i++) array_of_indices[i]++;", "MPI_WAITSOME's indices are 1-based")
	require.True(t, by["Isend"].noblock && !by["Send"].noblock, "a nonblocking buffer is not a compiler's copy")
	require.True(t, by["Put"].noblock && by["Get"].noblock, "an RMA buffer outlives the call")
	require.Len(t, sectionArgs(by["Isend"]), 2, "MPI_Isend's count and datatype may be a section's")
	require.Len(t, sectionArgs(by["Get_accumulate"]), 4, "the origin's and the result's")
	require.Empty(t, sectionArgs(by["Iallreduce"]), "a count two buffers share is no section's")
	require.Empty(t, sectionArgs(by["Iallgather"]), "a receive count per process is no section's")
	require.Empty(t, sectionArgs(by["Send_init"]), "a persistent request names its datatype at each start")
	require.Contains(t, c, "void *b_buf = fb_cfi_sec(buf, *count, *datatype, &s_buf, ierror, FB_ON_COMM, *comm);")
	f08 := string(files["fortran/zmpi_f08.f90"])
	require.Contains(t, f08, "interface MPI_Send\n    subroutine MPI_Send_f08(")
	require.Contains(t, f08, "subroutine MPI_Send_c_f08(", "the large-count form shares the generic name")
	require.Contains(t, f08, "interface PMPI_Send\n    procedure :: MPI_Send_f08, MPI_Send_c_f08\n", "the profiling name has the same specifics")
	require.Contains(t, f08, "interface MPI_Type_get_extent_c\n", "an ambiguous large-count form keeps its own name")
	require.Contains(t, f08, "type(MPI_Comm), parameter :: MPI_COMM_WORLD = MPI_Comm(257)")
	h := string(files["fortran/include/mpif.h"])
	require.Contains(t, h, "      PARAMETER (MPI_COMM_WORLD=257)\n")
	require.Contains(t, h, "      PARAMETER (MPI_SOURCE=1)\n", "Fortran status indices are 1-based")
	for _, l := range strings.Split(h, "\n") {
		require.LessOrEqual(t, len(l), 72, "fixed form: %q", l)
	}
}
