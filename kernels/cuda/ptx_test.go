package cuda

import (
	"encoding/binary"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The PTX must be what nvcc 11.8 emits for sm_90 and hold every kernel the
// Go side looks up by name.
func TestPTXWellFormed(t *testing.T) {
	for name, c := range map[string]struct {
		ptx     string
		entries []string
	}{
		"builtin": {BuiltinPTX, []string{"gshmemi_amo", "gshmemi_barrier_all", "gshmemi_sync_all",
			"gshmemi_wait_until_u64", "gshmemi_signal_add", "gshmemi_put_nbi", "gshmemi_bench_put_block", "gshmemi_bench_copy",
			"gshmemi_bench_pingpong", "gshmemi_fill_u32", "gshmemi_check_u32"}},
		"selftest": {SelfTestPTX, []string{"gshmemt_ops"}},
	} {
		t.Run(name, func(t *testing.T) {
			require.NotEmpty(t, c.ptx)
			assert.Regexp(t, `(?m)^\.version [78]\.\d+$`, c.ptx)
			assert.Regexp(t, `(?m)^\.target sm_90$`, c.ptx)
			assert.Regexp(t, `(?m)^\.address_size 64$`, c.ptx)
			assert.Contains(t, c.ptx, ".const .align 8 .b8 "+StateSymbol+"["+strconv.Itoa(StateSize)+"];")
			for _, e := range c.entries {
				assert.Regexp(t, `(?m)^\.visible \.entry `+e+`\(`, c.ptx, "entry %s", e)
			}
			assert.Equal(t, strings.Count(c.ptx, "{"), strings.Count(c.ptx, "}"), "unbalanced braces")
			assert.NotContains(t, c.ptx, "\x00")
		})
	}
}

// The Go constants must match the header's, which the kernels compile with.
func TestStateLayoutMatchesHeader(t *testing.T) {
	defs := map[string]uint64{}
	re := regexp.MustCompile(`(?m)^#define (GSHMEM_[A-Z_]+) (0x[0-9a-f]+|\d+)`)
	for _, m := range re.FindAllStringSubmatch(Header, -1) {
		v, err := strconv.ParseUint(strings.TrimSuffix(m[2], "ull"), 0, 64)
		require.NoError(t, err)
		defs[m[1]] = v
	}
	want := map[string]uint64{
		"GSHMEM_STATE_MAGIC":         StateMagic,
		"GSHMEM_STATE_SIZE":          StateSize,
		"GSHMEM_STATE_OFF_MAGIC":     StateOffMagic,
		"GSHMEM_STATE_OFF_MYPE":      StateOffMyPE,
		"GSHMEM_STATE_OFF_NPES":      StateOffNPEs,
		"GSHMEM_STATE_OFF_HEAP_BASE": StateOffHeapBase,
		"GSHMEM_STATE_OFF_HEAP_SIZE": StateOffHeapSize,
		"GSHMEM_STATE_OFF_PEER_BASE": StateOffPeerBase,
		"GSHMEM_STATE_OFF_CTRL_SIZE": StateOffCtrlSize,
		"GSHMEM_STATE_OFF_TEAM_NODE": StateOffTeamNode,
		"GSHMEM_CTRL_BARRIER":        CtrlBarrier,
		"GSHMEM_CTRL_EPOCH":          CtrlEpoch,
		"GSHMEM_CTRL_MIN_SIZE":       CtrlMinSize,
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
	assert.Equal(t, uint64(StateSize), off, "struct size")
	assert.Equal(t, uint64(StateOffMyPE), offs["mype"])
	assert.Equal(t, uint64(StateOffNPEs), offs["npes"])
	assert.Equal(t, uint64(StateOffHeapBase), offs["heap_base"])
	assert.Equal(t, uint64(StateOffPeerBase), offs["peer_base"])
	assert.Equal(t, uint64(StateOffCtrlSize), offs["ctrl_size"])
	assert.Equal(t, uint64(StateOffTeamNode), offs["team_node"])
}

func TestStateEncode(t *testing.T) {
	b := State{MyPE: 3, NPEs: 4, HeapBase: 0x7f0000000000, HeapSize: 1 << 30, PeerBase: 0x7f1000000000, CtrlSize: 4096}.Encode()
	require.Len(t, b, StateSize)
	le := binary.LittleEndian
	assert.Equal(t, uint64(StateMagic), le.Uint64(b[StateOffMagic:]))
	assert.Equal(t, "GSHMEM01", string(b[:8]))
	assert.Equal(t, uint32(3), le.Uint32(b[StateOffMyPE:]))
	assert.Equal(t, uint32(4), le.Uint32(b[StateOffNPEs:]))
	assert.Equal(t, uint64(0x7f0000000000), le.Uint64(b[StateOffHeapBase:]))
	assert.Equal(t, uint64(1<<30), le.Uint64(b[StateOffHeapSize:]))
	assert.Equal(t, uint64(0x7f1000000000), le.Uint64(b[StateOffPeerBase:]))
	assert.Equal(t, uint64(4096), le.Uint64(b[StateOffCtrlSize:]))
}
