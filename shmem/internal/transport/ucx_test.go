//go:build ucx && cgo

package transport

import (
	"context"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	logtest "github.com/sirupsen/logrus/hooks/test"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/shmem/internal/bootstrap"
)

// connectUCXAll runs Connect over ucx for n in-process PEs, each its own node.
func connectUCXAll(t *testing.T, nodes []string, timeout time.Duration) []*Job {
	t.Helper()
	ucxTestEnv(t)
	n := len(nodes)
	g := bootstrap.NewGroup(n)
	jobs := make([]*Job, n)
	errs := make([]error, n)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for pe := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, _ := logtest.NewNullLogger()
			l.SetLevel(logrus.DebugLevel)
			jobs[pe], errs[pe] = Connect(ctx, Config{
				Rank: pe, Size: n, HeapSize: testHeap, Allgather: g.PE(pe).Allgather,
				NodeID: nodes[pe], TCPAddr: "127.0.0.1", PeerTimeout: timeout, Log: l, Remote: RemoteUCX,
			})
		}()
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	t.Cleanup(func() {
		var wg sync.WaitGroup
		for _, j := range jobs {
			if j != nil {
				wg.Add(1)
				go func() { defer wg.Done(); _ = j.Transport.Close() }()
			}
		}
		wg.Wait()
	})
	return jobs
}

// ucxTestEnv keeps UCP on this host: tcp over loopback unless the caller
// chose other transports (UCX_TLS=sm, for one).
func ucxTestEnv(t *testing.T) {
	if os.Getenv("UCX_TLS") == "" {
		t.Setenv("UCX_TLS", "tcp")
	}
	if os.Getenv("UCX_NET_DEVICES") == "" && os.Getenv("UCX_TLS") == "tcp" {
		t.Setenv("UCX_NET_DEVICES", "lo")
	}
}

func TestUCXSmoke(t *testing.T) {
	jobs := connectUCXAll(t, []string{"a", "b"}, 5*time.Second)
	t.Log(jobs[0].Kind, jobs[0].Lanes[1])
	tr := jobs[0].Transport
	require.NoError(t, tr.Put(1, 4096, []byte("hello")))
	require.NoError(t, tr.Quiet())
	require.Equal(t, "hello", string(jobs[1].Heap[4096:4101]))
	dst := make([]byte, 5)
	require.NoError(t, tr.Get(1, 4096, dst))
	require.Equal(t, "hello", string(dst))
	old, err := tr.Atomic(1, 8192, 8, OpAdd, 5, 0)
	require.NoError(t, err)
	require.Equal(t, uint64(0), old)
	old, err = tr.Atomic(1, 8192, 8, OpAdd, 5, 0)
	require.NoError(t, err)
	require.Equal(t, uint64(5), old)
}
