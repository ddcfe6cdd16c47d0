//go:build cuda

package cuda

import (
	"encoding/binary"
	"fmt"

	"github.com/gshmem/gshmem/internal/cudadrv"
)

// Team collectives on device heaps, as kernels of the built-in module
// (internal/devstate/coll.cuh) over the members' heaps as mapped here.

// TeamMax is the largest team the collective kernels take (their
// parameters carry every member's heap address).
const TeamMax = 64

// Element type codes of the reduction kernels.
const (
	TypeI8 = iota
	TypeI16
	TypeI32
	TypeI64
	TypeU8
	TypeU16
	TypeU32
	TypeU64
	TypeF32
	TypeF64
)

// Sizes of the collectives' two shapes.
const (
	// SmallReduce is the most bytes a reduction does in one one-block
	// launch (folded into dynamic shared memory).
	SmallReduce = 32 << 10
	// SmallCopy is the most bytes a gathering copy moves into a PE in one
	// one-block launch.
	SmallCopy = 64 << 10
)

// Team is a team as the kernels see it: world PEs of the members in team
// order, this PE's index, the offset of the team's device counters in
// every member's heap (one 8-byte word per member), and its barrier count,
// which every member advances identically.
type Team struct {
	Members []int
	Me      int
	SyncOff uint64
	Epoch   *uint64
}

// Reachable reports whether the kernels can run on a team with these
// members: at most TeamMax, every heap mapped here.
func (d *Domain) Reachable(members []int) bool {
	if len(members) > TeamMax || d.fn.collSync == (cudadrv.Function{}) {
		return false
	}
	for _, pe := range members {
		if pe < 0 || pe >= len(d.peers) || d.peers[pe] == 0 {
			return false
		}
	}
	return true
}

// teamArg encodes gshmemi_team_t for a launch whose first barrier is the
// team's next one, and advances the team's count by the launch's barriers.
func (d *Domain) teamArg(t Team, barriers uint64) ([]byte, error) {
	if len(t.Members) > TeamMax || t.Me < 0 || t.Me >= len(t.Members) {
		return nil, fmt.Errorf("cuda: team of %d members (this PE %d) for the collective kernels", len(t.Members), t.Me)
	}
	b := make([]byte, 8*TeamMax+24)
	for i, pe := range t.Members {
		base, err := d.Addr(pe, 0)
		if err != nil {
			return nil, err
		}
		binary.LittleEndian.PutUint64(b[8*i:], uint64(base))
	}
	binary.LittleEndian.PutUint64(b[8*TeamMax:], t.SyncOff)
	binary.LittleEndian.PutUint64(b[8*TeamMax+8:], *t.Epoch+1)
	binary.LittleEndian.PutUint32(b[8*TeamMax+16:], uint32(len(t.Members)))
	binary.LittleEndian.PutUint32(b[8*TeamMax+20:], uint32(t.Me))
	*t.Epoch += barriers
	return b, nil
}

func (d *Domain) one(f cudadrv.Function, s cudadrv.Stream, threads, shared int, a *cudadrv.Args) error {
	return d.ctx.Launch(f, cudadrv.Dim3{X: 1}, cudadrv.Dim3{X: threads}, shared, s, a, false)
}

// SyncOnStream runs a barrier of the team when s reaches it: afterwards
// every member's stream work before its barrier is visible.
func (d *Domain) SyncOnStream(s cudadrv.Stream, t Team) error {
	ta, err := d.teamArg(t, 1)
	if err != nil {
		return err
	}
	var a cudadrv.Args
	a.Bytes(ta, 8)
	return d.one(d.fn.collSync, s, 64, 0, &a)
}

// grid sizes a kernel that never waits for n bytes: 512 threads a block,
// each moving about 64 bytes a round, at most two blocks per SM.
func (d *Domain) grid(n uint64) cudadrv.Dim3 {
	b := (n + 512*64 - 1) / (512 * 64)
	return cudadrv.Dim3{X: int(max(1, min(b, uint64(2*d.sms))))}
}

// Reduce is an all-reduce (scatter false) or a reduce-scatter (scatter
// true) of the team on s, with elements of sz bytes and type code typ.
// All-reduce: the n elements at srcOff of every member are folded in team
// order into dstOff of every member; dst may be src. Reduce-scatter: member
// i's dstOff receives elements [i*n, (i+1)*n) of the fold.
//
// Up to SmallReduce bytes per PE, one one-block launch folds everything on
// every PE (the same fold in the same order: the same bits everywhere).
// Larger ones are a barrier, a kernel in which each PE folds its slice of
// the elements (cut at 64-byte boundaries) and stores it into every
// member's dst, and a barrier: every element is folded by one PE and
// copied, so every member gets its bits, and the PEs share the work.
func (d *Domain) Reduce(s cudadrv.Stream, t Team, typ, op int, sz, dstOff, srcOff uint64, n int, scatter bool) error {
	if n <= 0 {
		return nil
	}
	np := len(t.Members)
	un := uint64(n)
	lo, hi, shift := uint64(0), un, uint64(0)
	if scatter {
		lo, hi, shift = uint64(t.Me)*un, uint64(t.Me+1)*un, uint64(t.Me)*un
	}
	if (hi-lo)*sz <= SmallReduce {
		ta, err := d.teamArg(t, 2)
		if err != nil {
			return err
		}
		var a cudadrv.Args
		a.Bytes(ta, 8).U64(dstOff).U64(srcOff).U64(lo).U64(hi).I32(int32(typ)).I32(int32(op)).I32(int32(sz))
		return d.one(d.fn.collReduceSmall, s, 512, int((hi-lo)*sz+15)&^15, &a)
	}
	if !scatter {
		per := (un + uint64(np) - 1) / uint64(np)
		if line := 64 / sz; 64%sz == 0 {
			per = (per + line - 1) / line * line
		}
		lo = min(un, uint64(t.Me)*per)
		hi = min(un, lo+per)
	}
	vec := int32(0)
	if dstOff%16 == 0 && srcOff%16 == 0 && (lo*sz)%16 == 0 && ((lo-shift)*sz)%16 == 0 {
		vec = 1
	}
	all := int32(1)
	if scatter {
		all = 0
	}
	if err := d.SyncOnStream(s, t); err != nil {
		return err
	}
	ta, err := d.teamArg(t, 0)
	if err != nil {
		return err
	}
	var a cudadrv.Args
	a.Bytes(ta, 8).U64(dstOff).U64(srcOff).U64(lo).U64(hi).U64(shift).I32(int32(typ)).I32(int32(op)).I32(all).I32(vec)
	if hi > lo {
		bytes := (hi - lo) * sz * uint64(np)
		if err := d.ctx.Launch(d.fn.collReduce, d.grid(bytes), cudadrv.Dim3{X: 512}, 0, s, &a, false); err != nil {
			return err
		}
	}
	return d.SyncOnStream(s, t)
}

// Piece is one copy of a gathering collective: n bytes from team member
// Peer's heap at Src into this PE's heap at Dst.
type Piece struct {
	Peer          int
	Src, Dst, Len uint64
}

// Pull copies every piece into this PE's heap on s, between two team
// barriers (every member must call it, each with its own pieces): one
// one-block launch up to SmallCopy bytes in all, else a barrier, a copy
// kernel over the whole GPU and a barrier.
func (d *Domain) Pull(s cudadrv.Stream, t Team, ps []Piece) error {
	if len(ps) > TeamMax {
		return fmt.Errorf("cuda: %d pieces in a gathering collective (at most %d)", len(ps), TeamMax)
	}
	b := make([]byte, 28*TeamMax+8) // gshmemi_pieces_t, padded to its 8-byte alignment
	var total uint64
	for i, p := range ps {
		if p.Peer < 0 || p.Peer >= len(t.Members) {
			return fmt.Errorf("cuda: piece from team member %d of %d", p.Peer, len(t.Members))
		}
		binary.LittleEndian.PutUint64(b[8*i:], p.Src)
		binary.LittleEndian.PutUint64(b[8*TeamMax+8*i:], p.Dst)
		binary.LittleEndian.PutUint64(b[16*TeamMax+8*i:], p.Len)
		binary.LittleEndian.PutUint32(b[24*TeamMax+4*i:], uint32(p.Peer))
		total += p.Len
	}
	binary.LittleEndian.PutUint32(b[28*TeamMax:], uint32(len(ps)))
	if total <= SmallCopy {
		ta, err := d.teamArg(t, 2)
		if err != nil {
			return err
		}
		var a cudadrv.Args
		a.Bytes(ta, 8).Bytes(b, 8).I32(1)
		return d.one(d.fn.collPull, s, 1024, 0, &a)
	}
	if err := d.SyncOnStream(s, t); err != nil {
		return err
	}
	ta, err := d.teamArg(t, 0)
	if err != nil {
		return err
	}
	var a cudadrv.Args
	a.Bytes(ta, 8).Bytes(b, 8).I32(0)
	if err := d.ctx.Launch(d.fn.collPull, d.grid(total), cudadrv.Dim3{X: 512}, 0, s, &a, false); err != nil {
		return err
	}
	return d.SyncOnStream(s, t)
}

// SyncStream waits for s on the host.
func (d *Domain) SyncStream(s cudadrv.Stream) error { return d.ctx.StreamSynchronize(s) }
