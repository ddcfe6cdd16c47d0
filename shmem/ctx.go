package shmem

import (
	"sync"
	"sync/atomic"

	"github.com/gshmem/gshmem/shmem/internal/transport"
)

// CtxOption is a set of options for CtxCreate (SHMEM_CTX_*).
type CtxOption uint

const (
	// CtxSerialized: the context is not used by several goroutines at
	// once (SHMEM_CTX_SERIALIZED). Accepted; the runtime stays safe either
	// way.
	CtxSerialized CtxOption = 1 << iota
	// CtxPrivate: only the goroutine that created the context uses it
	// (SHMEM_CTX_PRIVATE). Accepted, as CtxSerialized.
	CtxPrivate
	// CtxNoStore: the context is not used for stores (SHMEM_CTX_NOSTORE):
	// puts, signals and atomics that write fail on it with ErrInvalid, and
	// its Quiet only completes its gets and fetches.
	CtxNoStore
	ctxAllOptions = CtxSerialized | CtxPrivate | CtxNoStore
)

// Ctx is a communication context (shmem_ctx_t): an independent stream of
// RMA, atomic and signal operations with its own Quiet and Fence. Quiet on
// a context completes only the operations issued on it, so goroutines of
// one PE that each use their own context never wait for each other's
// transfers: over tcp each context has connections of its own to the
// peers it reaches, which serve its requests apart from the others'. On
// shared memory every operation completes when it returns, so contexts
// cost nothing there.
//
// Every RMA, atomic and signal call has a form taking a context: CtxPut,
// CtxFetchAdd, CtxPutSignal, ... (shmem_ctx_put, ...); the forms without
// one use the PE's default context (World.CtxDefault). A nil *Ctx is the
// default context. A context made by Team.CreateCtx numbers PEs as its
// team does.
type Ctx struct {
	w    *World
	team *Team // nil: PEs numbered as in the world
	opts CtxOption
	st   transport.Stream // its own stream; nil: the PE's own operations
	dead atomic.Bool
	def  bool
}

// teamCtxs counts a team's live contexts (TeamConfig.NumContexts).
type teamCtxs struct {
	mu   sync.Mutex
	live int
}

// CtxDefault returns the PE's default context (SHMEM_CTX_DEFAULT): the
// one the calls without a context use. It cannot be destroyed.
func (w *World) CtxDefault() *Ctx { return &Ctx{w: w, def: true} }

// CtxCreate makes a context of the world team (shmem_ctx_create).
func (w *World) CtxCreate(opts CtxOption) (*Ctx, error) {
	if w.closed.Load() {
		return nil, ErrFinalized
	}
	return w.newCtx(nil, opts)
}

// CreateCtx makes a context whose PE numbers are those of t
// (shmem_team_create_ctx). It fails with ErrInvalid when t already has
// Config().NumContexts live contexts.
func (t *Team) CreateCtx(opts CtxOption) (*Ctx, error) {
	if err := t.usable(); err != nil {
		return nil, err
	}
	t.ctxs.mu.Lock()
	defer t.ctxs.mu.Unlock()
	if n := t.cfg.NumContexts; n > 0 && t.ctxs.live >= n {
		return nil, errf(ErrInvalid, "%s was configured for %d contexts, and they are all live", t.name, n)
	}
	c, err := t.w.newCtx(t, opts)
	if err == nil {
		t.ctxs.live++
	}
	return c, err
}

func (w *World) newCtx(t *Team, opts CtxOption) (*Ctx, error) {
	if opts&^ctxAllOptions != 0 {
		return nil, errf(ErrInvalid, "context options %#x", uint(opts))
	}
	c := &Ctx{w: w, team: t, opts: opts}
	if s, ok := w.tr.(transport.Streamer); ok {
		c.st = s.NewStream()
	}
	return c, nil
}

// Options returns the options the context was created with.
func (c *Ctx) Options() CtxOption {
	if c == nil {
		return 0
	}
	return c.opts
}

// Team returns the team whose PE numbers the context takes (the world
// team for CtxCreate and the default context).
func (c *Ctx) Team() *Team {
	if c.team == nil {
		return c.w.TeamWorld()
	}
	return c.team
}

// Destroy completes the context's operations and releases it
// (shmem_ctx_destroy). Calls on it afterwards fail with ErrInvalid. The
// default context cannot be destroyed.
func (c *Ctx) Destroy() error {
	if c == nil || c.def {
		return errf(ErrInvalid, "the default context cannot be destroyed")
	}
	if c.dead.Swap(true) {
		return errf(ErrInvalid, "context destroyed twice")
	}
	var err error
	if c.st != nil {
		err = c.st.Close()
	}
	if c.team != nil {
		c.team.ctxs.mu.Lock()
		c.team.ctxs.live--
		c.team.ctxs.mu.Unlock()
	}
	return err
}

// Quiet completes every operation issued on the context
// (shmem_ctx_quiet), and only those.
func (c *Ctx) Quiet() error {
	if err := c.usable(nil); err != nil {
		return err
	}
	if c.st == nil {
		return c.w.Quiet()
	}
	return c.st.Quiet()
}

// Fence orders the context's puts, atomics and signals to each target
// (shmem_ctx_fence). A context's requests to one PE travel one ordered
// stream, so this is the transport's fence.
func (c *Ctx) Fence() error {
	if err := c.usable(nil); err != nil {
		return err
	}
	return c.w.Fence()
}

// usable reports why c cannot issue on w's objects, or nil (w nil: c's
// own world).
func (c *Ctx) usable(w *World) error {
	if c == nil {
		return nil
	}
	if w != nil && c.w != w {
		return errf(ErrNotSymmetric, "context and object belong to different worlds")
	}
	if c.w.closed.Load() {
		return ErrFinalized
	}
	if c.dead.Load() {
		return errf(ErrInvalid, "context was destroyed")
	}
	if c.team != nil && c.team.dead {
		return errf(ErrInvalid, "the context's %s was destroyed", c.team.name)
	}
	return nil
}

// target checks c for an operation on w's object at PE pe (in c's
// numbering) and returns the world PE number. store says the operation
// writes.
func (c *Ctx) target(w *World, pe int, store bool) (int, error) {
	if c == nil {
		return pe, nil
	}
	if err := c.usable(w); err != nil {
		return 0, err
	}
	if store && c.opts&CtxNoStore != 0 {
		return 0, errf(ErrInvalid, "store on a context created with CtxNoStore")
	}
	if c.team == nil {
		return pe, nil
	}
	wpe := TranslatePE(c.team, pe, w.teams.world)
	if wpe < 0 {
		return 0, errf(ErrBadPE, "PE %d of %s", pe, c.team)
	}
	return wpe, nil
}

// The transport calls of a context: its own stream, or the PE's.

func (c *Ctx) put(w *World, pe int, off uint64, b []byte, nbi bool) error {
	if c == nil || c.st == nil {
		if nbi {
			return w.tr.PutNBI(pe, off, b)
		}
		return w.tr.Put(pe, off, b)
	}
	return c.st.Put(pe, off, b)
}

func (c *Ctx) get(w *World, pe int, off uint64, b []byte, nbi bool) error {
	if c == nil || c.st == nil {
		if nbi {
			return w.tr.GetNBI(pe, off, b)
		}
		return w.tr.Get(pe, off, b)
	}
	if nbi {
		return c.st.GetNBI(pe, off, b)
	}
	return c.st.Get(pe, off, b)
}

func (c *Ctx) atomic(w *World, pe int, off uint64, width int, op transport.AtomicOp, v, cmp uint64) (uint64, error) {
	if c == nil || c.st == nil {
		return w.tr.Atomic(pe, off, width, op, v, cmp)
	}
	return c.st.Atomic(pe, off, width, op, v, cmp)
}

// atomicNBI starts an atomic whose old value lands in dst by Quiet.
func (c *Ctx) atomicNBI(w *World, pe int, off uint64, width int, op transport.AtomicOp, v, cmp uint64, dst []byte) error {
	if c != nil && c.st != nil {
		return c.st.AtomicNBI(pe, off, width, op, v, cmp, dst)
	}
	if a, ok := w.tr.(transport.NonblockingAtomics); ok {
		return a.AtomicNBI(pe, off, width, op, v, cmp, dst)
	}
	old, err := w.tr.Atomic(pe, off, width, op, v, cmp)
	if err == nil {
		copy(dst, asBytes([]uint64{old})[:width]) // little-endian low bytes
	}
	return err
}

func (c *Ctx) quiet(w *World) error {
	if c == nil || c.st == nil {
		return w.tr.Quiet()
	}
	return c.st.Quiet()
}

// configured gives a new team (nil for the PEs a split leaves out) the
// i-th of the configurations a split was passed, if any.
func configured(t *Team, cfg []TeamConfig, i int) *Team {
	if t != nil && i < len(cfg) {
		t.cfg = cfg[i]
	}
	return t
}
