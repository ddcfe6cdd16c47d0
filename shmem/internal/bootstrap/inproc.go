package bootstrap

import (
	"context"
	"fmt"
	"sync"
)

// Group is the shared state of n in-process PEs.
type Group struct {
	n    int
	mu   sync.Mutex
	cond chan struct{} // closed and replaced whenever a round completes or the group aborts
	seq  []uint64      // per rank: allgather rounds entered
	data map[uint64][][]byte
	got  map[uint64]int
	done map[uint64][][]byte
	left map[uint64]int

	abortOnce sync.Once
	aborted   chan struct{}
	code      int
	msg       string
}

// NewGroup returns the bootstrap state shared by n goroutine PEs.
func NewGroup(n int) *Group {
	return &Group{
		n: n, cond: make(chan struct{}), seq: make([]uint64, n),
		data: map[uint64][][]byte{}, got: map[uint64]int{},
		done: map[uint64][][]byte{}, left: map[uint64]int{},
		aborted: make(chan struct{}),
	}
}

// Aborted is closed when a PE of the group called Abort.
func (g *Group) Aborted() <-chan struct{} { return g.aborted }

// ExitCode returns the code and message given to Abort.
func (g *Group) ExitCode() (int, string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.code, g.msg
}

// PE returns the Bootstrap of rank.
func (g *Group) PE(rank int) Bootstrap { return &inproc{g: g, rank: rank} }

type inproc struct {
	g    *Group
	rank int
}

func (b *inproc) Name() string   { return "inproc" }
func (b *inproc) Rank() int      { return b.rank }
func (b *inproc) Size() int      { return b.g.n }
func (b *inproc) LocalRank() int { return b.rank }
func (b *inproc) LocalSize() int { return b.g.n }

func (b *inproc) Allgather(ctx context.Context, data []byte) ([][]byte, error) {
	g := b.g
	g.mu.Lock()
	s := g.seq[b.rank]
	g.seq[b.rank]++
	if g.data[s] == nil {
		g.data[s] = make([][]byte, g.n)
	}
	g.data[s][b.rank] = append([]byte(nil), data...)
	g.got[s]++
	if g.got[s] == g.n {
		g.done[s], g.left[s] = g.data[s], g.n
		delete(g.data, s)
		delete(g.got, s)
		close(g.cond)
		g.cond = make(chan struct{})
	}
	for {
		if res, ok := g.done[s]; ok {
			g.left[s]--
			if g.left[s] == 0 {
				delete(g.done, s)
				delete(g.left, s)
			}
			g.mu.Unlock()
			return res, nil
		}
		wake := g.cond
		g.mu.Unlock()
		select {
		case <-wake:
		case <-g.aborted:
			return nil, ErrAborted
		case <-ctx.Done():
			return nil, fmt.Errorf("bootstrap: PE %d waiting for the other PEs: %w", b.rank, ctx.Err())
		}
		g.mu.Lock()
	}
}

func (b *inproc) Barrier(ctx context.Context) error {
	_, err := b.Allgather(ctx, nil)
	return err
}

func (b *inproc) Abort(code int, msg string) error {
	b.g.abortOnce.Do(func() {
		b.g.mu.Lock()
		b.g.code, b.g.msg = code, msg
		b.g.mu.Unlock()
		close(b.g.aborted)
	})
	return nil
}

func (b *inproc) Close() error { return nil }

// Singleton is the bootstrap of a program started without a launcher.
func Singleton() Bootstrap { return singleton{NewGroup(1).PE(0)} }

type singleton struct{ Bootstrap }

func (singleton) Name() string { return NameSingleton }
func (singleton) Via() string  { return "nothing: a job of one PE" }
