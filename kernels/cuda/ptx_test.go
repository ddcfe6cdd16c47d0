package cuda

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/internal/devstate"
)

// The PTX must be what nvcc 11.8 emits for sm_90 and hold every kernel the
// Go side looks up by name.
func TestPTXWellFormed(t *testing.T) {
	for name, c := range map[string]struct {
		ptx     string
		entries []string
	}{
		"builtin": {devstate.BuiltinPTX, []string{"gshmemi_amo", "gshmemi_barrier_all", "gshmemi_sync_all",
			"gshmemi_wait_until_u64", "gshmemi_signal_add", "gshmemi_put_nbi", "gshmemi_bench_put_block", "gshmemi_bench_copy",
			"gshmemi_bench_pingpong", "gshmemi_fill_u32", "gshmemi_check_u32"}},
		"selftest": {SelfTestPTX, []string{"gshmemt_ops"}},
	} {
		t.Run(name, func(t *testing.T) {
			require.NotEmpty(t, c.ptx)
			assert.Regexp(t, `(?m)^\.version [78]\.\d+$`, c.ptx)
			assert.Regexp(t, `(?m)^\.target sm_90$`, c.ptx)
			assert.Regexp(t, `(?m)^\.address_size 64$`, c.ptx)
			assert.Contains(t, c.ptx, ".const .align 8 .b8 "+devstate.StateSymbol+"["+strconv.Itoa(devstate.StateSize)+"];")
			for _, e := range c.entries {
				assert.Regexp(t, `(?m)^\.visible \.entry `+e+`\(`, c.ptx, "entry %s", e)
			}
			assert.Equal(t, strings.Count(c.ptx, "{"), strings.Count(c.ptx, "}"), "unbalanced braces")
			assert.NotContains(t, c.ptx, "\x00")
		})
	}
}

// The Go constants of the core (internal/devstate) must match the
// header's, which the kernels compile with.
func TestStateLayoutMatchesHeader(t *testing.T) {
	defs := map[string]uint64{}
	re := regexp.MustCompile(`(?m)^#define (GSHMEM_[A-Z_]+) (0x[0-9a-f]+|\d+)`)
	for _, m := range re.FindAllStringSubmatch(Header, -1) {
		v, err := strconv.ParseUint(strings.TrimSuffix(m[2], "ull"), 0, 64)
		require.NoError(t, err)
		defs[m[1]] = v
	}
	want := map[string]uint64{
		"GSHMEM_STATE_MAGIC":         devstate.StateMagic,
		"GSHMEM_STATE_SIZE":          devstate.StateSize,
		"GSHMEM_STATE_OFF_MAGIC":     devstate.StateOffMagic,
		"GSHMEM_STATE_OFF_MYPE":      devstate.StateOffMyPE,
		"GSHMEM_STATE_OFF_NPES":      devstate.StateOffNPEs,
		"GSHMEM_STATE_OFF_HEAP_BASE": devstate.StateOffHeapBase,
		"GSHMEM_STATE_OFF_HEAP_SIZE": devstate.StateOffHeapSize,
		"GSHMEM_STATE_OFF_PEER_BASE": devstate.StateOffPeerBase,
		"GSHMEM_STATE_OFF_CTRL_SIZE": devstate.StateOffCtrlSize,
		"GSHMEM_STATE_OFF_TEAM_NODE": devstate.StateOffTeamNode,
		"GSHMEM_CTRL_BARRIER":        devstate.CtrlBarrier,
		"GSHMEM_CTRL_EPOCH":          devstate.CtrlEpoch,
		"GSHMEM_CTRL_MIN_SIZE":       devstate.CtrlMinSize,
	}
	for k, v := range want {
		got, ok := defs[k]
		if assert.True(t, ok, "%s missing from gshmem.cuh", k) {
			assert.Equal(t, v, got, k)
		}
	}
	// The struct's fields, in order, with their sizes, must add up to the offsets.
	body := regexp.MustCompile(`(?s)typedef struct gshmem_state \{(.*?)\} gshmem_state_t;`).FindStringSubmatch(Header)
	require.Len(t, body, 2)
	field := regexp.MustCompile(`(?m)^\s*(unsigned long long|int|const unsigned long long \*)\s*(\w+);`)
	off := uint64(0)
	offs := map[string]uint64{}
	for _, m := range field.FindAllStringSubmatch(body[1], -1) {
		sz := uint64(8)
		if m[1] == "int" {
			sz = 4
		}
		off = (off + sz - 1) &^ (sz - 1)
		offs[m[2]] = off
		off += sz
	}
	assert.Equal(t, uint64(devstate.StateSize), off, "struct size")
	assert.Equal(t, uint64(devstate.StateOffMyPE), offs["mype"])
	assert.Equal(t, uint64(devstate.StateOffNPEs), offs["npes"])
	assert.Equal(t, uint64(devstate.StateOffHeapBase), offs["heap_base"])
	assert.Equal(t, uint64(devstate.StateOffPeerBase), offs["peer_base"])
	assert.Equal(t, uint64(devstate.StateOffCtrlSize), offs["ctrl_size"])
	assert.Equal(t, uint64(devstate.StateOffTeamNode), offs["team_node"])
}
