//go:build cuda

package cuda

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gshmem/gshmem/internal/cudadrv"
	"github.com/gshmem/gshmem/internal/devstate"
)

// Config describes one PE's device heap.
type Config struct {
	Rank, NPEs           int
	LocalRank, LocalSize int
	// Ordinal is the GPU to use; negative picks LocalRank modulo the
	// number of visible GPUs.
	Ordinal  int
	HeapSize uint64
	// CtrlSize is the start of the allocatable heap; the device control
	// area lies below it.
	CtrlSize uint64
	// ZeroTo is where the zeroed start of the heap ends (at least
	// CtrlSize): the device counters of the team collectives live below
	// it and must start at zero before any peer can reach them.
	ZeroTo uint64
	// Allgather exchanges setup data with every PE (the bootstrap's).
	Allgather func(ctx context.Context, data []byte) ([][]byte, error)
	// Logf receives setup messages (may be nil).
	Logf func(format string, args ...any)
}

// Domain is one PE's device heap and its view of its peers' heaps.
type Domain struct {
	cfg     Config
	ord     int
	ctx     cudadrv.Context
	base    cudadrv.DevPtr
	peers   []cudadrv.DevPtr // pe -> heap as mapped in ctx; 0 = unreachable
	peerOrd []int            // pe -> GPU ordinal (-1 unknown)
	opened  []bool           // peers mapped by IPCOpen (to close)
	retain  []int            // other GPUs' primary contexts retained for peer access
	table   cudadrv.DevPtr   // device copy of peers, for the state table
	stream  cudadrv.Stream   // orders the PE's host-initiated operations
	memops  bool             // stream write/wait value usable
	graphs  copyGraphs

	mod cudadrv.Module // builtin kernels, state bound
	fn  struct {
		amo, barrier, sync, wait, signalAdd, putNBI cudadrv.Function
		putBlock, copy, pingpong, fill, check       cudadrv.Function
		collSync, collReduce, collReduceSmall       cudadrv.Function
		collPull, collReduceLL                      cudadrv.Function
	}
	sms   int // multiprocessors of the GPU
	state []byte

	mu     sync.Mutex     // guards pinned
	pinned unsafe.Pointer // 64 bytes of pinned host memory for results
	closed atomic.Bool

	legacyMu sync.Mutex    // guards legacy
	legacy   cudadrv.Event // AfterLegacy's event, made at its first use
}

// procToken tells PEs of this process from others (pids repeat across
// containers and nodes).
var procToken = func() [16]byte {
	var t [16]byte
	_, _ = rand.Read(t[:])
	return t
}()

// Probe reports whether a GPU can be used here, and why not.
func Probe() error { return cudadrv.Load() }

const recMagic = 0x67736375 // "ucsg"

// Open creates the PE's device heap and maps every peer's. It is
// collective (one Allgather).
func Open(ctx context.Context, cfg Config) (d *Domain, err error) {
	if err := cudadrv.Load(); err != nil {
		return nil, err
	}
	n, err := cudadrv.DeviceCount()
	if err != nil {
		return nil, err
	}
	ord := cfg.Ordinal
	if ord < 0 {
		ord = cfg.LocalRank % n
	}
	if ord >= n {
		return nil, fmt.Errorf("cuda: GPU %d requested, %d visible", ord, n)
	}
	if cfg.CtrlSize < devstate.CtrlMinSize || cfg.HeapSize <= cfg.CtrlSize {
		return nil, fmt.Errorf("cuda: heap of %d bytes with a %d-byte control area", cfg.HeapSize, cfg.CtrlSize)
	}
	d = &Domain{cfg: cfg, ord: ord}
	defer func() {
		if err != nil {
			d.release()
			d = nil
		}
	}()
	if d.ctx, err = cudadrv.RetainPrimary(ord); err != nil {
		return d, fmt.Errorf("cuda: GPU %d: %w", ord, err)
	}
	if d.base, err = d.ctx.MemAlloc(cfg.HeapSize); err != nil {
		return d, fmt.Errorf("cuda: allocating a %d-byte heap on GPU %d: %w", cfg.HeapSize, ord, err)
	}
	if d.stream, err = d.ctx.NewStream(cudadrv.StreamNonBlocking); err != nil {
		return d, err
	}
	if d.pinned, err = d.ctx.MemAllocHost(64); err != nil {
		return d, err
	}
	if err = d.ctx.MemsetAsync(d.base, 0, min(cfg.HeapSize, max(cfg.CtrlSize, cfg.ZeroTo)), d.stream); err != nil {
		return d, err
	}
	if err = d.ctx.StreamSynchronize(d.stream); err != nil {
		return d, err
	}
	ops, _ := cudadrv.DeviceAttribute(ord, cudadrv.AttrCanUseStreamMemOps)
	ops64, _ := cudadrv.DeviceAttribute(ord, cudadrv.AttrCanUse64BitMemOps)
	d.memops = cudadrv.HasStreamMemOps() && ops != 0 && ops64 != 0
	if d.sms, _ = cudadrv.DeviceAttribute(ord, cudadrv.AttrMultiprocessorCount); d.sms <= 0 {
		d.sms = 32
	}
	if err = d.loadBuiltin(); err != nil {
		return d, err
	}

	// Exchange: who we are, where our heap is, and how to map it.
	uuid, _ := cudadrv.DeviceUUID(ord)
	handle, herr := d.ctx.IPCGetHandle(d.base)
	if herr != nil {
		d.logf("no IPC handle for the heap (peers in other processes cannot map it): %v", herr)
		handle = nil
	}
	rec := make([]byte, 0, 128)
	rec = binary.LittleEndian.AppendUint32(rec, recMagic)
	rec = binary.LittleEndian.AppendUint64(rec, uint64(os.Getpid()))
	rec = append(rec, procToken[:]...)
	rec = binary.LittleEndian.AppendUint32(rec, uint32(ord))
	rec = append(rec, uuid[:]...)
	rec = binary.LittleEndian.AppendUint64(rec, uint64(d.base))
	rec = binary.LittleEndian.AppendUint64(rec, cfg.HeapSize)
	rec = binary.LittleEndian.AppendUint32(rec, uint32(len(handle)))
	rec = append(rec, handle...)
	all, err := cfg.Allgather(ctx, rec)
	if err != nil {
		return d, fmt.Errorf("cuda: exchanging device heaps: %w", err)
	}
	if len(all) != cfg.NPEs {
		return d, fmt.Errorf("cuda: %d heap records for %d PEs", len(all), cfg.NPEs)
	}
	d.peers = make([]cudadrv.DevPtr, cfg.NPEs)
	d.peerOrd = make([]int, cfg.NPEs)
	d.opened = make([]bool, cfg.NPEs)
	for pe, r := range all {
		d.peerOrd[pe] = -1
		if pe == cfg.Rank {
			d.peers[pe], d.peerOrd[pe] = d.base, ord
			continue
		}
		if err := d.mapPeer(pe, r, n); err != nil {
			return d, err
		}
	}
	if d.table, err = d.ctx.MemAlloc(uint64(8 * cfg.NPEs)); err != nil {
		return d, err
	}
	tb := make([]byte, 8*cfg.NPEs)
	for pe, p := range d.peers {
		binary.LittleEndian.PutUint64(tb[8*pe:], uint64(p))
	}
	if err = d.ctx.CopyHtoD(d.table, tb); err != nil {
		return d, err
	}
	d.state = devstate.State{
		MyPE: int32(cfg.Rank), NPEs: int32(cfg.NPEs),
		HeapBase: uint64(d.base), HeapSize: cfg.HeapSize,
		PeerBase: uint64(d.table), CtrlSize: cfg.CtrlSize,
	}.Encode()
	if _, err = d.BindState(d.mod); err != nil {
		return d, err
	}
	return d, nil
}

func (d *Domain) logf(format string, args ...any) {
	if d.cfg.Logf != nil {
		d.cfg.Logf(format, args...)
	}
}

// mapPeer maps PE pe's heap from its record.
func (d *Domain) mapPeer(pe int, r []byte, ndev int) error {
	if len(r) < 72 || binary.LittleEndian.Uint32(r) != recMagic {
		return fmt.Errorf("cuda: PE %d sent a malformed heap record (is it built with -tags cuda and GSHMEM_HEAP=device?)", pe)
	}
	var tok [16]byte
	copy(tok[:], r[12:28])
	peerOrd := int(binary.LittleEndian.Uint32(r[28:]))
	var uuid [16]byte
	copy(uuid[:], r[32:48])
	base := cudadrv.DevPtr(binary.LittleEndian.Uint64(r[48:]))
	size := binary.LittleEndian.Uint64(r[56:])
	hlen := int(binary.LittleEndian.Uint32(r[64:]))
	if size != d.cfg.HeapSize {
		return fmt.Errorf("cuda: PE %d's device heap is %d bytes, ours is %d (GSHMEM_SYMMETRIC_SIZE differs)", pe, size, d.cfg.HeapSize)
	}
	if tok == procToken {
		// A PE of this process: the pointer is valid here (unified
		// addressing); another GPU needs peer access.
		if peerOrd != d.ord {
			ok, _ := cudadrv.CanAccessPeer(d.ord, peerOrd)
			if !ok {
				d.logf("PE %d is on GPU %d, which GPU %d cannot access: not mapped", pe, peerOrd, d.ord)
				return nil
			}
			pctx, err := cudadrv.RetainPrimary(peerOrd)
			if err != nil {
				return fmt.Errorf("cuda: GPU %d for PE %d: %w", peerOrd, pe, err)
			}
			d.retain = append(d.retain, peerOrd)
			if err := d.ctx.EnablePeerAccess(pctx); err != nil {
				return fmt.Errorf("cuda: peer access from GPU %d to GPU %d: %w", d.ord, peerOrd, err)
			}
		}
		d.peers[pe], d.peerOrd[pe] = base, peerOrd
		return nil
	}
	// Another process: map its heap by CUDA IPC if its GPU is visible here.
	local := -1
	for o := range ndev {
		if u, err := cudadrv.DeviceUUID(o); err == nil && u == uuid {
			local = o
			break
		}
	}
	if local < 0 || hlen != cudadrv.IPCHandleSize || len(r) < 68+hlen {
		d.logf("PE %d's GPU is not visible here or sent no IPC handle: not mapped", pe)
		return nil
	}
	if local != d.ord {
		if ok, _ := cudadrv.CanAccessPeer(d.ord, local); !ok {
			d.logf("PE %d is on GPU %d, which GPU %d cannot access: not mapped", pe, local, d.ord)
			return nil
		}
	}
	p, err := d.ctx.IPCOpen(r[68 : 68+hlen])
	if err != nil {
		return fmt.Errorf("cuda: mapping PE %d's heap (GPU %d) by CUDA IPC: %w", pe, local, err)
	}
	d.peers[pe], d.peerOrd[pe], d.opened[pe] = p, local, true
	return nil
}

func (d *Domain) loadBuiltin() error {
	var err error
	if d.mod, err = d.ctx.LoadModule(devstate.BuiltinPTX); err != nil {
		return fmt.Errorf("cuda: loading the built-in kernels on GPU %d: %w", d.ord, err)
	}
	for _, f := range []struct {
		fn   *cudadrv.Function
		name string
	}{
		{&d.fn.amo, "gshmemi_amo"}, {&d.fn.barrier, "gshmemi_barrier_all"}, {&d.fn.sync, "gshmemi_sync_all"},
		{&d.fn.wait, "gshmemi_wait_until_u64"}, {&d.fn.signalAdd, "gshmemi_signal_add"}, {&d.fn.putNBI, "gshmemi_put_nbi"},
		{&d.fn.putBlock, "gshmemi_bench_put_block"}, {&d.fn.copy, "gshmemi_bench_copy"},
		{&d.fn.pingpong, "gshmemi_bench_pingpong"}, {&d.fn.fill, "gshmemi_fill_u32"}, {&d.fn.check, "gshmemi_check_u32"},
		{&d.fn.collSync, "gshmemi_coll_sync"}, {&d.fn.collReduce, "gshmemi_coll_reduce"},
		{&d.fn.collReduceSmall, "gshmemi_coll_reduce_small"}, {&d.fn.collPull, "gshmemi_coll_pull"},
		{&d.fn.collReduceLL, "gshmemi_coll_reduce_ll"},
	} {
		if *f.fn, err = d.ctx.Function(d.mod, f.name); err != nil {
			return fmt.Errorf("cuda: built-in kernels: %w", err)
		}
	}
	return nil
}

// BindState writes this PE's state table into m's gshmemi_state, if m has
// one, and reports whether it had.
func (d *Domain) BindState(m cudadrv.Module) (bool, error) {
	p, sz, err := d.ctx.Global(m, devstate.StateSymbol)
	if err != nil {
		return false, nil // a module that does not include gshmem.cuh
	}
	if sz != devstate.StateSize {
		return false, fmt.Errorf("cuda: the module's %s is %d bytes, this runtime's is %d (rebuild it with this gshmem.cuh)",
			devstate.StateSymbol, sz, devstate.StateSize)
	}
	return true, d.ctx.CopyHtoD(p, d.state)
}

// Ordinal returns the GPU.
func (d *Domain) Ordinal() int { return d.ord }

// Context returns the PE's CUDA context (the GPU's primary context).
func (d *Domain) Context() cudadrv.Context { return d.ctx }

// Stream returns the stream that orders the PE's host-initiated operations.
func (d *Domain) Stream() cudadrv.Stream { return d.stream }

// State returns the encoded state table.
func (d *Domain) State() []byte { return d.state }

// Base returns pe's heap as mapped here, 0 if unreachable.
func (d *Domain) Base(pe int) cudadrv.DevPtr { return d.peers[pe] }

// PeerOrdinal returns the GPU that holds pe's heap (-1 if unknown).
func (d *Domain) PeerOrdinal(pe int) int { return d.peerOrd[pe] }

// MemOps reports whether the stream memory operations are used.
func (d *Domain) MemOps() bool { return d.memops }

// ErrUnreachable reports a PE whose heap is not mapped in this context.
var ErrUnreachable = errors.New("cuda: the PE's device heap is not mapped here")

// Addr returns the device address of off in pe's heap.
func (d *Domain) Addr(pe int, off uint64) (cudadrv.DevPtr, error) {
	b := d.peers[pe]
	if b == 0 {
		return 0, fmt.Errorf("%w (PE %d)", ErrUnreachable, pe)
	}
	return b + cudadrv.DevPtr(off), nil
}

func (d *Domain) release() {
	c := d.ctx
	if c.IsZero() {
		return
	}
	_ = c.Synchronize()
	d.releaseGraphs()
	if d.mod != (cudadrv.Module{}) {
		_ = c.UnloadModule(d.mod)
	}
	for pe, o := range d.opened {
		if o {
			_ = c.IPCClose(d.peers[pe])
		}
	}
	if d.table != 0 {
		_ = c.MemFree(d.table)
	}
	if d.base != 0 {
		_ = c.MemFree(d.base)
	}
	if d.pinned != nil {
		_ = c.MemFreeHost(d.pinned)
	}
	if d.legacy != (cudadrv.Event{}) {
		_ = c.DestroyEvent(d.legacy)
	}
	if d.stream != (cudadrv.Stream{}) {
		_ = c.DestroyStream(d.stream)
	}
	for _, o := range d.retain {
		_ = cudadrv.ReleasePrimary(o)
	}
	_ = cudadrv.ReleasePrimary(d.ord)
}

// Close waits for the PE's work and releases the heap and mappings.
func (d *Domain) Close() error {
	if d.closed.Swap(true) {
		return nil
	}
	err := d.ctx.StreamSynchronize(d.stream)
	d.release()
	return err
}
