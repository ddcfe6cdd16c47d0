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
	// LLMaxPEs and LLMaxBytes bound the one-round reductions
	// (gshmem.cuh's GSHMEMI_LL_MAX_*).
	LLMaxPEs   = 8
	LLMaxBytes = 64
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
	// Handle is the team's descriptor for kernels (gshmem_team_t), or 0:
	// with it, the smallest reductions take one round.
	Handle uint64
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

// SameGPU reports whether every member's heap is on this PE's GPU (the
// collectives then synchronize at GPU scope).
func (d *Domain) SameGPU(members []int) bool {
	for _, pe := range members {
		if d.peerOrd[pe] != d.ord {
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
	b := make([]byte, 8*TeamMax+32) // gshmemi_team_t
	for i, pe := range t.Members {
		base, err := d.Addr(pe, 0)
		if err != nil {
			return nil, err
		}
		binary.LittleEndian.PutUint64(b[8*i:], uint64(base))
	}
	if !d.SameGPU(t.Members) {
		binary.LittleEndian.PutUint32(b[8*TeamMax+24:], 1)
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
	if !scatter && t.Handle != 0 && np <= LLMaxPEs && un*sz <= LLMaxBytes {
		var a cudadrv.Args
		a.U64(t.Handle).U64(uint64(d.base) + dstOff).U64(uint64(d.base) + srcOff).I32(int32(n)).I32(int32(typ)).I32(int32(op))
		return d.one(d.fn.collReduceLL, s, 64, 0, &a)
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
	return d.spread(s, t, typ, op, sz, dstOff, srcOff, lo, hi, shift, all, vec, -1, uint64(np))
}

// spread is a large collective's three launches: a barrier, the middle
// kernel on elements [lo, hi) of src (folded from every member, or copied
// from member from >= 0) moving about (hi-lo)*sz*reads bytes, a barrier.
func (d *Domain) spread(s cudadrv.Stream, t Team, typ, op int, sz, dstOff, srcOff, lo, hi, shift uint64,
	all, vec int32, from int, reads uint64) error {
	if err := d.SyncOnStream(s, t); err != nil {
		return err
	}
	ta, err := d.teamArg(t, 0)
	if err != nil {
		return err
	}
	var a cudadrv.Args
	a.Bytes(ta, 8).U64(dstOff).U64(srcOff).U64(lo).U64(hi).U64(shift).I32(int32(typ)).I32(int32(op)).I32(all).I32(vec).I32(int32(from))
	if hi > lo {
		if err := d.ctx.Launch(d.fn.collReduce, d.grid((hi-lo)*sz*reads), cudadrv.Dim3{X: 512}, 0, s, &a, false); err != nil {
			return err
		}
	}
	return d.SyncOnStream(s, t)
}

// Broadcast copies nb bytes at srcOff of member root into dstOff of every
// member, on s. Up to SmallCopy bytes every member pulls them in one
// launch; larger ones are cut into one 64-byte-aligned slice per member,
// which it reads once from the root and writes into every member's dst (the
// root's bytes are read once in all).
func (d *Domain) Broadcast(s cudadrv.Stream, t Team, root int, dstOff, srcOff, nb uint64) error {
	if root < 0 || root >= len(t.Members) {
		return fmt.Errorf("cuda: broadcast root %d of %d members", root, len(t.Members))
	}
	if nb <= SmallCopy {
		var ps []Piece
		if t.Me != root || dstOff != srcOff {
			ps = []Piece{{Peer: root, Src: srcOff, Dst: dstOff, Len: nb}}
		}
		return d.Pull(s, t, ps)
	}
	np := uint64(len(t.Members))
	per := ((nb+np-1)/np + 63) &^ 63
	lo := min(nb, uint64(t.Me)*per)
	hi := min(nb, lo+per)
	return d.spread(s, t, TypeU8, 0, 1, dstOff, srcOff, lo, hi, 0, 1, vecOK(dstOff, srcOff), root, 1)
}

// FCollect puts every member's nb bytes at srcOff into dstOff + i*nb of
// every member (i the source's index), on s: pulled in one launch up to
// SmallCopy bytes in all, else each member writes its own block into every
// member's dst (each source read once).
func (d *Domain) FCollect(s cudadrv.Stream, t Team, dstOff, srcOff, nb uint64) error {
	np := len(t.Members)
	if nb*uint64(np) <= SmallCopy {
		ps := make([]Piece, 0, np)
		for i := 1; i <= np; i++ {
			p := (t.Me + i) % np
			ps = append(ps, Piece{Peer: p, Src: srcOff, Dst: dstOff + uint64(p)*nb, Len: nb})
		}
		return d.Pull(s, t, ps)
	}
	to := dstOff + uint64(t.Me)*nb
	return d.spread(s, t, TypeU8, 0, 1, to, srcOff, 0, nb, 0, 1, vecOK(to, srcOff), t.Me, 1)
}

func vecOK(a, b uint64) int32 {
	if a%16 == 0 && b%16 == 0 {
		return 1
	}
	return 0
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

// Rank returns this PE.
func (d *Domain) Rank() int { return d.cfg.Rank }
