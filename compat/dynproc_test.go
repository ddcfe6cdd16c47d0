package compat_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/shmem"
)

// job runs fn on n goroutine PEs of a World of their own: two jobs in one
// test process share nothing but the process (their Envs meet over TCP).
func job(n int, fn func(e *compat.Env, w *compat.Comm) error) error {
	return shmem.Run(n, func(sw *shmem.World) error {
		e, err := compat.New(sw)
		if err != nil {
			return err
		}
		return errors.Join(fn(e, e.CommWorld()), e.Finalize())
	}, shmem.WithSymmetricSize(32<<20))
}

// meet checks an intercommunicator between a job of nl and one of nr:
// sizes, messages both ways (eager, large, synchronous), a collective
// over it, Merge and Disconnect.
func meet(t *testing.T, ic *compat.Comm, accepting bool, nl, nr int) error {
	if !ic.IsInter() || ic.Size() != nl || ic.RemoteSize() != nr {
		return errors.New("wrong intercommunicator shape")
	}
	me := ic.Rank()
	// Rank 0 of each side swaps a small and a large message with rank 0 of
	// the other, then a synchronous one.
	if me == 0 {
		small := []int32{int32(100 + nl)}
		big := make([]byte, 1<<20)
		for i := range big {
			big[i] = byte(i * nl)
		}
		gotSmall := []int32{0}
		gotBig := make([]byte, 1<<20)
		rs, err := compat.Isend(ic, small, 1, compat.Int32, 0, 1)
		if err != nil {
			return err
		}
		rb, err := compat.Isend(ic, big, len(big), compat.Byte, 0, 2)
		if err != nil {
			return err
		}
		st, err := compat.Recv(ic, gotSmall, 1, compat.Int32, compat.AnySource, 1)
		if err != nil {
			return err
		}
		if _, err := compat.Recv(ic, gotBig, len(gotBig), compat.Byte, 0, 2); err != nil {
			return err
		}
		if err := compat.Waitall([]*compat.Request{rs, rb}, nil); err != nil {
			return err
		}
		if gotSmall[0] != int32(100+nr) || st.Source != 0 || gotBig[1] != byte(nr) {
			return errors.New("wrong data across the intercommunicator")
		}
		if accepting {
			if err := compat.Ssend(ic, small, 1, compat.Int32, 0, 3); err != nil {
				return err
			}
		} else if _, err := compat.Recv(ic, gotSmall, 1, compat.Int32, 0, 3); err != nil {
			return err
		}
	}
	// Allreduce on an intercommunicator: each side gets the other's sum.
	out := []int64{0}
	if err := compat.Allreduce(ic, []int64{int64(me + 1)}, out, 1, compat.Int64, compat.OpSum); err != nil {
		return err
	}
	if out[0] != int64(nr*(nr+1)/2) {
		return errors.New("wrong intercommunicator Allreduce")
	}
	m, err := ic.Merge(!accepting)
	if err != nil {
		return err
	}
	want := me
	if !accepting {
		want = nr + me
	}
	if m.Size() != nl+nr || m.Rank() != want {
		return errors.New("wrong merged communicator")
	}
	sum := []int64{0}
	if err := compat.Allreduce(m, []int64{int64(m.Rank())}, sum, 1, compat.Int64, compat.OpSum); err != nil {
		return err
	}
	if n := int64(nl + nr); sum[0] != n*(n-1)/2 {
		return errors.New("wrong merged Allreduce")
	}
	if _, err := m.AllocSymmetric(8); !errors.Is(err, compat.ErrUnsupportedOperation) {
		return errors.New("symmetric memory over jobs was not refused")
	}
	if err := m.Free(); err != nil {
		return err
	}
	if err := ic.Barrier(); err != nil {
		return err
	}
	return ic.Free()
}

func TestAcceptConnect(t *testing.T) {
	t.Setenv("GSHMEM_TCP_ADDR", "127.0.0.1")
	names := make(chan string, 1)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		assert.NoError(t, job(2, func(e *compat.Env, w *compat.Comm) error {
			var p *compat.Port
			if w.Rank() == 1 {
				var err error
				if p, err = e.OpenPort(); err != nil {
					return err
				}
				names <- p.Name()
			}
			ic, err := w.Accept(p, 1)
			if err != nil {
				return err
			}
			if p != nil {
				if err := p.Close(); err != nil {
					return err
				}
				if err := p.Close(); !errors.Is(err, compat.ErrPort) {
					return errors.New("a second Close was not ErrPort")
				}
			}
			return meet(t, ic, true, 2, 3)
		}))
	}()
	go func() {
		defer wg.Done()
		assert.NoError(t, job(3, func(e *compat.Env, w *compat.Comm) error {
			var name string
			if w.Rank() == 0 {
				name = <-names
			}
			ic, err := w.Connect(name, 0)
			if err != nil {
				return err
			}
			return meet(t, ic, false, 3, 2)
		}))
	}()
	wg.Wait()
}

func TestConnectRefusals(t *testing.T) {
	t.Setenv("GSHMEM_TCP_ADDR", "127.0.0.1")
	t.Setenv("GSHMEM_DYNPROC_TIMEOUT", "300ms")
	require.NoError(t, job(2, func(e *compat.Env, w *compat.Comm) error {
		for _, bad := range []string{"", "nonsense", "gshmem-port:127.0.0.1:1:zz", "gshmem-port:nohost:00"} {
			if _, err := w.Connect(bad, 0); !errors.Is(err, compat.ErrPort) {
				return errors.New("a malformed port name was not ErrPort: " + bad)
			}
		}
		p, err := e.OpenPort()
		if err != nil {
			return err
		}
		name := p.Name()
		if len(name) >= 1024 {
			return errors.New("port name too long")
		}
		// Nobody accepts: the wait ends (ClassOther) instead of hanging,
		// on both ranks.
		if _, err := w.Accept(p, 0); err == nil {
			return errors.New("Accept with nobody connecting returned")
		}
		if err := p.Close(); err != nil {
			return err
		}
		// A closed port's name is refused as ErrPort.
		if _, err := w.Connect(name, 0); !errors.Is(err, compat.ErrPort) {
			return errors.New("a closed port was not ErrPort: " + err.Error())
		}
		if _, err := w.Accept(p, 0); !errors.Is(err, compat.ErrPort) {
			return errors.New("Accept on a closed port was not ErrPort")
		}
		if _, err := w.Connect(name, 5); !errors.Is(err, compat.ErrRoot) {
			return errors.New("a bad root was not ErrRoot")
		}
		return nil
	}))
}

func TestJoin(t *testing.T) {
	t.Setenv("GSHMEM_TCP_ADDR", "127.0.0.1")
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	require.NoError(t, err)
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	var wg sync.WaitGroup
	for side := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			assert.NoError(t, job(1, func(e *compat.Env, w *compat.Comm) error {
				ic, err := e.Join(fds[side])
				if err != nil {
					return err
				}
				got := []int32{0}
				if _, err := compat.Sendrecv(ic, []int32{int32(side)}, 1, compat.Int32, 0, 9, got, 1, compat.Int32, 0, 9); err != nil {
					return err
				}
				if got[0] != int32(1-side) {
					return errors.New("wrong data over the joined intercommunicator")
				}
				return ic.Free()
			}))
		}()
	}
	wg.Wait()
	// Not a socket: ErrArg, and the fd is left alone.
	require.NoError(t, job(1, func(e *compat.Env, w *compat.Comm) error {
		r, wfd, err := osPipe()
		if err != nil {
			return err
		}
		defer unix.Close(r)
		defer unix.Close(wfd)
		if _, err := e.Join(r); !errors.Is(err, compat.ErrArg) {
			return errors.New("Join on a pipe was not ErrArg")
		}
		return nil
	}))
}

func osPipe() (int, int, error) {
	var p [2]int
	err := unix.Pipe(p[:])
	return p[0], p[1], err
}

func TestSpawnNeedsLauncher(t *testing.T) {
	t.Setenv("GSHMEM_LOCAL_ADDR", "")
	require.NoError(t, job(2, func(e *compat.Env, w *compat.Comm) error {
		_, err := w.Spawn([]compat.SpawnApp{{Command: "true", MaxProcs: 1}}, 0)
		if !errors.Is(err, compat.ErrSpawn) {
			return errors.New("Spawn outside gshmem run was not ErrSpawn")
		}
		return nil
	}))
}
