package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The OpenSHMEM 1.5 specification's routines and constants, written here
// from the specification's own lists and type tables (not from the
// generator's), so that shmem.h missing one fails the test.

var (
	specRMA = strings.Fields("float double longdouble char schar short int long longlong uchar ushort uint ulong ulonglong " +
		"int8 int16 int32 int64 uint8 uint16 uint32 uint64 size ptrdiff")
	specStdAMO  = strings.Fields("int long longlong uint ulong ulonglong int32 int64 uint32 uint64 size ptrdiff")
	specExtAMO  = append(strings.Fields("float double"), specStdAMO...)
	specBitAMO  = strings.Fields("uint ulong ulonglong int32 int64 uint32 uint64")
	specSync    = strings.Fields("short int long longlong ushort uint ulong ulonglong int32 int64 uint32 uint64 size ptrdiff")
	specBitRed  = strings.Fields("uchar ushort uint ulong ulonglong int8 int16 int32 int64 uint8 uint16 uint32 uint64 size")
	specMinMax  = strings.Fields("char schar short int long longlong ptrdiff uchar ushort uint ulong ulonglong int8 int16 int32 int64 uint8 uint16 uint32 uint64 size float double longdouble")
	specSumProd = append(append([]string{}, specMinMax...), "complexd", "complexf")
	specSizes   = strings.Fields("8 16 32 64 128")
)

// specRoutines is every routine name of OpenSHMEM 1.5, deprecated ones
// included.
func specRoutines() []string {
	out := strings.Fields(`shmem_init shmem_my_pe shmem_n_pes shmem_finalize shmem_global_exit shmem_pe_accessible
		shmem_addr_accessible shmem_ptr shmem_info_get_version shmem_info_get_name start_pes _my_pe _num_pes
		shmem_init_thread shmem_query_thread shmem_malloc shmem_free shmem_realloc shmem_align
		shmem_malloc_with_hints shmem_calloc shmalloc shfree shrealloc shmemalign shmem_team_my_pe shmem_team_n_pes
		shmem_team_get_config shmem_team_translate_pe shmem_team_split_strided shmem_team_split_2d
		shmem_team_destroy shmem_ctx_create shmem_team_create_ctx shmem_ctx_destroy shmem_ctx_get_team
		shmem_signal_fetch shmem_signal_wait_until shmem_barrier_all shmem_barrier shmem_sync shmem_sync_all
		shmem_team_sync shmem_alltoallmem shmem_alltoall32 shmem_alltoall64 shmem_alltoallsmem shmem_alltoalls32
		shmem_alltoalls64 shmem_broadcastmem shmem_broadcast32 shmem_broadcast64 shmem_collectmem shmem_collect32
		shmem_collect64 shmem_fcollectmem shmem_fcollect32 shmem_fcollect64 shmem_wait shmem_wait_until
		shmem_fence shmem_quiet shmem_ctx_fence shmem_ctx_quiet shmem_set_lock shmem_test_lock shmem_clear_lock
		shmem_clear_cache_inv shmem_set_cache_inv shmem_clear_cache_line_inv shmem_set_cache_line_inv
		shmem_udcflush shmem_udcflush_line shmem_pcontrol`)
	withCtx := func(names ...string) {
		for _, n := range names {
			out = append(out, n, strings.Replace(n, "shmem_", "shmem_ctx_", 1))
		}
	}
	typed := func(ts []string, format string, ctx bool) {
		for _, t := range ts {
			n := strings.ReplaceAll(format, "TYPE", t)
			if ctx {
				withCtx(n)
			} else {
				out = append(out, n)
			}
		}
	}
	for _, op := range []string{"put", "get", "put_nbi", "get_nbi", "p", "g", "iput", "iget", "put_signal", "put_signal_nbi"} {
		typed(specRMA, "shmem_TYPE_"+op, true)
	}
	for _, s := range specSizes {
		for _, op := range []string{"put%s", "get%s", "put%s_nbi", "get%s_nbi", "iput%s", "iget%s", "put%s_signal", "put%s_signal_nbi"} {
			withCtx("shmem_" + strings.ReplaceAll(op, "%s", s))
		}
	}
	withCtx("shmem_putmem", "shmem_getmem", "shmem_putmem_nbi", "shmem_getmem_nbi", "shmem_putmem_signal", "shmem_putmem_signal_nbi")
	for _, op := range []string{"fetch", "set", "swap", "fetch_nbi", "swap_nbi"} {
		typed(specExtAMO, "shmem_TYPE_atomic_"+op, true)
	}
	for _, op := range []string{"compare_swap", "fetch_inc", "inc", "fetch_add", "add", "compare_swap_nbi", "fetch_inc_nbi", "fetch_add_nbi"} {
		typed(specStdAMO, "shmem_TYPE_atomic_"+op, true)
	}
	for _, op := range []string{"and", "or", "xor", "fetch_and", "fetch_or", "fetch_xor", "fetch_and_nbi", "fetch_or_nbi", "fetch_xor_nbi"} {
		typed(specBitAMO, "shmem_TYPE_atomic_"+op, true)
	}
	for _, c := range []string{"alltoall", "alltoalls", "broadcast", "collect", "fcollect"} {
		typed(specRMA, "shmem_TYPE_"+c, false)
	}
	for _, op := range []string{"and", "or", "xor"} {
		typed(specBitRed, "shmem_TYPE_"+op+"_reduce", false)
		typed(strings.Fields("short int long longlong"), "shmem_TYPE_"+op+"_to_all", false)
	}
	for _, op := range []string{"max", "min"} {
		typed(specMinMax, "shmem_TYPE_"+op+"_reduce", false)
		typed(strings.Fields("short int long longlong float double longdouble"), "shmem_TYPE_"+op+"_to_all", false)
	}
	for _, op := range []string{"sum", "prod"} {
		typed(specSumProd, "shmem_TYPE_"+op+"_reduce", false)
		typed(strings.Fields("short int long longlong float double longdouble complexd complexf"), "shmem_TYPE_"+op+"_to_all", false)
	}
	for _, w := range []string{"wait_until", "wait_until_all", "wait_until_any", "wait_until_some", "wait_until_all_vector",
		"wait_until_any_vector", "wait_until_some_vector", "test", "test_all", "test_any", "test_some", "test_all_vector",
		"test_any_vector", "test_some_vector"} {
		typed(specSync, "shmem_TYPE_"+w, false)
	}
	typed(strings.Fields("short int long longlong"), "shmem_TYPE_wait", false)
	return out
}

// specConstants is the specification's library constants (and the
// deprecated names it still lists).
var specConstants = strings.Fields(`SHMEM_MAJOR_VERSION SHMEM_MINOR_VERSION SHMEM_MAX_NAME_LEN SHMEM_VENDOR_STRING
	SHMEM_THREAD_SINGLE SHMEM_THREAD_FUNNELED SHMEM_THREAD_SERIALIZED SHMEM_THREAD_MULTIPLE SHMEM_CMP_EQ SHMEM_CMP_NE
	SHMEM_CMP_GT SHMEM_CMP_GE SHMEM_CMP_LT SHMEM_CMP_LE SHMEM_SIGNAL_SET SHMEM_SIGNAL_ADD SHMEM_TEAM_WORLD
	SHMEM_TEAM_SHARED SHMEM_TEAM_INVALID SHMEM_TEAM_NUM_CONTEXTS SHMEM_CTX_DEFAULT SHMEM_CTX_INVALID
	SHMEM_CTX_SERIALIZED SHMEM_CTX_PRIVATE SHMEM_CTX_NOSTORE SHMEM_SYNC_VALUE SHMEM_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
	SHMEM_REDUCE_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE SHMEM_ALLTOALL_SYNC_SIZE
	SHMEM_ALLTOALLS_SYNC_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_MALLOC_ATOMICS_REMOTE SHMEM_MALLOC_SIGNAL_REMOTE
	_SHMEM_MAJOR_VERSION _SHMEM_MINOR_VERSION _SHMEM_MAX_NAME_LEN _SHMEM_VENDOR_STRING _SHMEM_SYNC_VALUE
	_SHMEM_BCAST_SYNC_SIZE _SHMEM_BARRIER_SYNC_SIZE _SHMEM_REDUCE_SYNC_SIZE _SHMEM_REDUCE_MIN_WRKDATA_SIZE
	_SHMEM_COLLECT_SYNC_SIZE _SHMEM_CMP_EQ _SHMEM_CMP_NE _SHMEM_CMP_GT _SHMEM_CMP_GE _SHMEM_CMP_LT _SHMEM_CMP_LE`)

// declared is the names shmem.h declares as functions.
func declared(header string) map[string]bool {
	out := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^[^#/ *][^(\n]*?\b(\w+)\([^)]*\);$`).FindAllStringSubmatch(header, -1) {
		out[m[1]] = true
	}
	return out
}

// TestShmemHeaderCurrent checks shmem.h and pshmem.h against the
// specification: every routine declared (pshmem_ names too), every
// constant defined, the version 1.5, and every C11 generic the
// specification names.
func TestShmemHeaderCurrent(t *testing.T) {
	h, p := string(shmemHeader()), string(pshmemHeader())
	have, prof := declared(h), declared(p)
	var missing, missingProf []string
	for _, n := range specRoutines() {
		if !have[n] {
			missing = append(missing, n)
		}
		if !prof["p"+n] {
			missingProf = append(missingProf, "p"+n)
		}
	}
	require.Empty(t, missing, "routines of OpenSHMEM 1.5 that shmem.h does not declare")
	require.Empty(t, missingProf, "profiling names pshmem.h does not declare")
	for _, c := range specConstants {
		require.Regexp(t, `(?m)^#define `+c+`\b`, h)
	}
	require.Contains(t, h, "#define SHMEM_MAJOR_VERSION 1\n")
	require.Contains(t, h, "#define SHMEM_MINOR_VERSION 5\n")
	for _, g := range strings.Fields(`put get p g put_nbi get_nbi iput iget put_signal put_signal_nbi atomic_fetch
		atomic_set atomic_swap atomic_compare_swap atomic_fetch_inc atomic_inc atomic_fetch_add atomic_add atomic_and
		atomic_fetch_and atomic_or atomic_fetch_or atomic_xor atomic_fetch_xor atomic_fetch_nbi atomic_swap_nbi
		atomic_compare_swap_nbi atomic_fetch_inc_nbi atomic_fetch_add_nbi atomic_fetch_and_nbi atomic_fetch_or_nbi
		atomic_fetch_xor_nbi wait_until wait_until_all wait_until_any wait_until_some wait_until_all_vector
		wait_until_any_vector wait_until_some_vector test test_all test_any test_some test_all_vector test_any_vector
		test_some_vector broadcast collect fcollect alltoall alltoalls and_reduce or_reduce xor_reduce max_reduce
		min_reduce sum_reduce prod_reduce`) {
		require.Contains(t, h, "#define shmem_"+g+"(...) ", "the C11 generic shmem_%s", g)
	}
	// Every generic names only functions the header declares.
	for _, m := range regexp.MustCompile(`: (shmem_\w+)`).FindAllStringSubmatch(h, -1) {
		require.True(t, have[m[1]], "a generic selects %s, which shmem.h does not declare", m[1])
	}
	require.Equal(t, 1, strings.Count(string(shmemTyped()), "pshmem_int_put("), "one definition per routine")
}
