//go:build ucx && cgo

package shmem_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/internal/launcher"
	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
)

// ucxEnv puts every process PE on its own node, reached over UCX on
// loopback tcp (or the UCX_TLS the caller chose). The children inherit it.
func ucxEnv(t *testing.T) {
	t.Setenv("GSHMEM_NODE_ID", "%r")
	t.Setenv("GSHMEM_REMOTE_TRANSPORT", "ucx")
	t.Setenv("GSHMEM_TCP_ADDR", "127.0.0.1")
	if os.Getenv("UCX_TLS") == "" {
		t.Setenv("UCX_TLS", "tcp")
	}
	if os.Getenv("UCX_NET_DEVICES") == "" {
		t.Setenv("UCX_NET_DEVICES", "lo")
	}
}

func runUCX(t *testing.T, n int, fn func(t *petest.T, w *shmem.World)) {
	ucxEnv(t)
	petest.RunConfig(t, petest.Config{N: n, HeapSize: 16 << 20, Modes: []string{"procs"}}, func(t *petest.T, w *shmem.World) {
		top := w.Topology()
		for pe, k := range top.Transport {
			if pe != w.MyPE() {
				require.Equal(t, "ucx", k, "PE %d", pe)
				require.Contains(t, top.Lanes[pe], "tcp", "PE %d's lanes", pe)
			}
		}
		fn(t, w)
	})
}

func TestUCXRMAAndAtomics(t *testing.T) {
	runUCX(t, 3, func(t *petest.T, w *shmem.World) {
		me, n := w.MyPE(), w.NPEs()
		next, prev := (me+1)%n, (me+n-1)%n
		const size = 300_000
		buf, err := shmem.Calloc[byte](w, size)
		require.NoError(t, err)
		src := bytes.Repeat([]byte{byte(me + 1)}, size)
		require.NoError(t, shmem.Put(buf, src, next))
		require.NoError(t, w.Quiet())
		require.NoError(t, w.BarrierAll())
		assert.Equal(t, bytes.Repeat([]byte{byte(prev + 1)}, size), buf.Local())
		got := make([]byte, size)
		require.NoError(t, shmem.GetNBI(got, buf, next))
		require.NoError(t, w.Quiet())
		assert.Equal(t, src, got)

		w32, err := shmem.Calloc[uint32](w, 8)
		require.NoError(t, err)
		w64, err := shmem.Calloc[int64](w, 8)
		require.NoError(t, err)
		require.NoError(t, w.BarrierAll())
		// Every PE adds to every PE's words: n*(n-1)/2 on each.
		for pe := range n {
			require.NoError(t, shmem.Add(w32.At(0), uint32(me), pe))
			_, err := shmem.FetchAdd(w64.At(0), int64(me), pe)
			require.NoError(t, err)
			require.NoError(t, shmem.Or(w32.At(1), uint32(1)<<me, pe))
			require.NoError(t, shmem.Xor(w64.At(1), int64(1)<<me, pe))
		}
		require.NoError(t, w.BarrierAll())
		assert.Equal(t, uint32(n*(n-1)/2), w32.Local()[0])
		assert.Equal(t, int64(n*(n-1)/2), w64.Local()[0])
		assert.Equal(t, uint32(1)<<n-1, w32.Local()[1])
		assert.Equal(t, int64(1)<<n-1, w64.Local()[1])
		// The other ops, on the next PE's words 2..7.
		require.NoError(t, shmem.Store(w64.At(2), 40, next))
		v, err := shmem.Load(w64.At(2), next)
		require.NoError(t, err)
		assert.Equal(t, int64(40), v)
		old, err := shmem.Swap(w64.At(2), 41, next)
		require.NoError(t, err)
		assert.Equal(t, int64(40), old)
		old, err = shmem.CompareAndSwap(w64.At(2), 41, 42, next)
		require.NoError(t, err)
		assert.Equal(t, int64(41), old)
		old, err = shmem.CompareAndSwap(w64.At(2), 0, 99, next)
		require.NoError(t, err)
		assert.Equal(t, int64(42), old, "a failed compare-and-swap")
		o32, err := shmem.FetchAnd(w32.At(3), 0, next)
		require.NoError(t, err)
		assert.Equal(t, uint32(0), o32)
		fo, err := shmem.Swap(shmem.Sym[float64]{}, 1, next)
		assert.Error(t, err, "a zero object")
		_ = fo
		require.NoError(t, w.BarrierAll())
		assert.Equal(t, int64(42), w64.Local()[2])
	})
}

func TestUCXSignalsAndWaits(t *testing.T) {
	runUCX(t, 2, func(t *petest.T, w *shmem.World) {
		me := w.MyPE()
		data, err := shmem.Calloc[int64](w, 1024)
		require.NoError(t, err)
		sig, err := shmem.Calloc[uint64](w, 2)
		require.NoError(t, err)
		flag, err := shmem.Calloc[int64](w, 1)
		require.NoError(t, err)
		require.NoError(t, w.BarrierAll())
		for round := int64(1); round <= 20; round++ {
			if me == 0 {
				// Let PE 1 fall asleep first: the wake must come from the
				// write, not from a poll.
				time.Sleep(2 * time.Millisecond)
				vals := make([]int64, 1024)
				for i := range vals {
					vals[i] = round
				}
				require.NoError(t, shmem.PutSignal(data, vals, sig.At(0), uint64(round), shmem.SignalSet, 1))
				require.NoError(t, shmem.PutSignal(data.Slice(0, 1), vals[:1], sig.At(1), 1, shmem.SignalAdd, 1))
				require.NoError(t, shmem.P(flag, round, 1))
				require.NoError(t, w.Quiet())
				require.NoError(t, shmem.WaitUntil(flag, shmem.CmpEQ, -round))
			} else {
				got, err := shmem.SignalWaitUntil(sig.At(0), shmem.CmpGE, uint64(round))
				require.NoError(t, err)
				require.Equal(t, uint64(round), got)
				for i, v := range data.Local() {
					require.Equal(t, round, v, "element %d after the signal", i)
				}
				_, err = shmem.SignalWaitUntil(sig.At(1), shmem.CmpEQ, uint64(round))
				require.NoError(t, err)
				require.NoError(t, shmem.WaitUntil(flag, shmem.CmpEQ, round))
				require.NoError(t, shmem.P(flag, -round, 0))
			}
		}
		require.NoError(t, w.BarrierAll())
	})
}

func TestUCXCollectives(t *testing.T) {
	runUCX(t, 3, func(t *petest.T, w *shmem.World) {
		me, n := w.MyPE(), w.NPEs()
		tm := w.TeamWorld()
		const k = 5000
		src, err := shmem.Calloc[int64](w, k*n)
		require.NoError(t, err)
		dst, err := shmem.Calloc[int64](w, k*n)
		require.NoError(t, err)
		for i := range src.Local() {
			src.Local()[i] = int64(me*1_000_000 + i)
		}
		require.NoError(t, w.BarrierAll())
		require.NoError(t, shmem.Reduce(tm, shmem.ReduceSum, dst.Slice(0, k), src.Slice(0, k), k))
		for i, v := range dst.Local()[:k] {
			require.Equal(t, int64(n*(n-1)/2*1_000_000+n*i), v, "sum element %d", i)
		}
		require.NoError(t, shmem.Broadcast(tm, dst.Slice(0, k), src.Slice(0, k), k, 1))
		for i, v := range dst.Local()[:k] {
			require.Equal(t, int64(1_000_000+i), v, "broadcast element %d", i)
		}
		require.NoError(t, shmem.FCollect(tm, dst, src.Slice(0, k), k))
		for pe := range n {
			require.Equal(t, int64(pe*1_000_000+k-1), dst.Local()[pe*k+k-1])
		}
		require.NoError(t, shmem.Alltoall(tm, dst, src, k))
		for pe := range n {
			require.Equal(t, int64(pe*1_000_000+me*k), dst.Local()[pe*k], "block from PE %d", pe)
		}
		for range 50 {
			require.NoError(t, tm.Barrier())
		}
	})
}

// TestUCXKilledPE: a PE killed mid-job is reported to the survivors as
// ErrPeerLost within seconds; each survivor writes what it saw to a file
// before the launcher stops the job.
func TestUCXKilledPE(t *testing.T) {
	dir := os.Getenv("GSHMEM_UCX_KILL_DIR")
	if dir != "" {
		ucxKillChild(t, dir)
		return
	}
	ucxEnv(t)
	dir = t.TempDir()
	exe, err := os.Executable()
	require.NoError(t, err)
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	_, err = launcher.Run(ctx, launcher.Config{
		N: 3, Argv: []string{exe, "-test.run=^TestUCXKilledPE$", "-test.count=1"},
		Env:       append(os.Environ(), "GSHMEM_UCX_KILL_DIR="+dir, "GSHMEM_SYMMETRIC_SIZE=4m"),
		TagOutput: true, Stdout: &out, Stderr: &out, KillGrace: 20 * time.Second,
	})
	t.Logf("launcher: %v after %v", err, time.Since(start))
	for _, pe := range []int{0, 1} {
		b, err := os.ReadFile(filepath.Join(dir, strconv.Itoa(pe)))
		require.NoError(t, err, "PE %d reported nothing; output:\n%s", pe, out.String())
		assert.Contains(t, string(b), "peer lost", "PE %d", pe)
		assert.Contains(t, string(b), "PE 2", "PE %d", pe)
		secs, _ := strconv.ParseFloat(strings.Fields(string(b))[0], 64)
		t.Logf("PE %d saw the loss after %.2fs: %s", pe, secs, b)
	}
}

func ucxKillChild(t *testing.T, dir string) {
	// The launcher stops the job when PE 2 dies; the survivors stay to
	// see the loss themselves (it kills them after KillGrace otherwise).
	signal.Ignore(syscall.SIGTERM)
	w, err := shmem.Init(context.Background())
	require.NoError(t, err)
	x, err := shmem.Calloc[int64](w, 1)
	require.NoError(t, err)
	require.NoError(t, w.BarrierAll())
	if w.MyPE() == 2 {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	killed := time.Now()
	// Wait for a word nobody will write: only the loss ends the wait.
	err = shmem.WaitUntil(x, shmem.CmpEQ, 1)
	if err == nil {
		err = errors.New("the wait ended without a loss")
	}
	msg := strconv.FormatFloat(time.Since(killed).Seconds(), 'f', 2, 64) + " " + err.Error()
	require.NoError(t, os.WriteFile(filepath.Join(dir, strconv.Itoa(w.MyPE())), []byte(msg), 0o600))
	require.ErrorIs(t, err, shmem.ErrPeerLost)
}
