//go:build cuda

package gpu_test

import (
	"fmt"

	"github.com/gshmem/gshmem/compat"
)

// compat's rooted and v-collectives on device buffers (issue 22: the
// exchange through the device scratch, compat/coll_devv.go): Gather(v),
// Scatter(v), Allgatherv, Alltoallv and ReduceScatter(Block), in place too,
// with displacements backwards and gaps that must stay untouched, for
// every buffer kind of compatSuite and a host/device mix between members,
// checked element by element against values computed on the host. The
// suite's 64 KiB scratch makes the larger counts run in many rounds.

const sentinel = 0xdeadbeef

// vBack lays out member i's count+i elements backwards with a gap of one
// after each block; total is the elements the layout spans.
func vBack(n, count int) (counts, displs []int, total int) {
	counts, displs = make([]int, n), make([]int, n)
	for i := n - 1; i >= 0; i-- {
		counts[i], displs[i] = count+i, total
		total += count + i + 1
	}
	return counts, displs, total
}

// vcheck compares got and want element by element, reporting the first
// difference and how many there are.
func (x *compatCtx) vcheck(what string, got, want []uint32) {
	bad, first := 0, -1
	for i := range want {
		if i >= len(got) || got[i] != want[i] {
			if first < 0 {
				first = i
			}
			bad++
		}
	}
	if bad > 0 {
		g := "missing"
		if first < len(got) {
			g = fmt.Sprintf("%#x", got[first])
		}
		x.c.errs = append(x.c.errs, fmt.Sprintf("PE %d: %s %s: %d of %d elements differ, first at %d: got %s, want %#x",
			x.w.MyPE(), x.name, what, bad, len(want), first, g, want[first]))
	}
}

func filled(n int, v uint32) []uint32 {
	b := make([]uint32, n)
	for i := range b {
		b[i] = v
	}
	return b
}

func compatV(x *compatCtx, kind bufKind, count int) {
	comm, w, c := x.comm, x.w, x.c
	me, n := comm.Rank(), comm.Size()
	gen := func(rank, i int) uint32 { return uint32(mix(comm.WorldRank(rank), i, count+7)) }
	b := &cbufs{w: w, kind: kind, arena: x.arena}
	defer b.free()
	// Sized by the world (every member allocates symmetric kinds alike,
	// whichever half of a split it is in).
	wn := w.NPEs()
	room := wn*count + wn*wn + wn
	s, r := cbuf[uint32](b, me, room), cbuf[uint32](b, me, room)
	root := (n + 1) / 3
	vc, vd, vtotal := vBack(n, count)
	u := compat.Uint32

	{ // Gather, and in place at the root
		mine := make([]uint32, count)
		all := make([]uint32, n*count)
		for i := range count {
			mine[i] = gen(me, i)
			for p := range n {
				all[p*count+i] = gen(p, i)
			}
		}
		write(w, s, mine)
		write(w, r, filled(room, sentinel))
		if c.ok(x.name+" Gather", compat.Gather(comm, s, count, u, r, count, u, root)) && me == root {
			x.vcheck("Gather", read(w, r)[:n*count], all)
		}
		if me == root {
			in := filled(n*count, sentinel)
			copy(in[me*count:], mine)
			write(w, r, in)
			c.ok(x.name+" Gather in place", compat.Gather(comm, compat.InPlace[uint32](), 0, u, r, count, u, root))
			x.vcheck("Gather in place", read(w, r)[:n*count], all)
		} else {
			c.ok(x.name+" Gather in place", compat.Gather(comm, s, count, u, r, count, u, root))
		}
	}
	{ // Gatherv: member i's count+i elements, backwards, gaps kept
		mine := make([]uint32, vc[me])
		for i := range mine {
			mine[i] = gen(me, i)
		}
		want := filled(vtotal, sentinel)
		for p := range n {
			for i := range vc[p] {
				want[vd[p]+i] = gen(p, i)
			}
		}
		write(w, s, mine)
		write(w, r, filled(room, sentinel))
		if c.ok(x.name+" Gatherv", compat.Gatherv(comm, s, vc[me], u, r, vc, vd, u, root)) && me == root {
			x.vcheck("Gatherv", read(w, r)[:vtotal], want)
		}
	}
	{ // Scatter, and in place at the root
		all := make([]uint32, n*count)
		for p := range n {
			for i := range count {
				all[p*count+i] = gen(p, i)
			}
		}
		write(w, s, all)
		write(w, r, filled(room, sentinel))
		if c.ok(x.name+" Scatter", compat.Scatter(comm, s, count, u, r, count, u, root)) {
			x.vcheck("Scatter", read(w, r)[:count+1], append(append([]uint32(nil), all[me*count:(me+1)*count]...), sentinel))
		}
		write(w, r, filled(room, sentinel))
		rb := r
		if me == root {
			rb = compat.InPlace[uint32]()
		}
		if c.ok(x.name+" Scatter in place", compat.Scatter(comm, s, count, u, rb, count, u, root)) {
			if me == root {
				x.vcheck("Scatter in place", read(w, s)[:n*count], all)
			} else {
				x.vcheck("Scatter in place", read(w, r)[:count], all[me*count:(me+1)*count])
			}
		}
	}
	{ // Scatterv from the backwards layout
		src := filled(vtotal, sentinel)
		for p := range n {
			for i := range vc[p] {
				src[vd[p]+i] = gen(p, i)
			}
		}
		write(w, s, src)
		write(w, r, filled(room, sentinel))
		want := make([]uint32, vc[me]+1)
		for i := range vc[me] {
			want[i] = gen(me, i)
		}
		want[vc[me]] = sentinel
		if c.ok(x.name+" Scatterv", compat.Scatterv(comm, s, vc, vd, u, r, vc[me], u, root)) {
			x.vcheck("Scatterv", read(w, r)[:vc[me]+1], want)
		}
	}
	{ // Allgatherv, and in place
		mine := make([]uint32, vc[me])
		for i := range mine {
			mine[i] = gen(me, i)
		}
		want := filled(vtotal, sentinel)
		for p := range n {
			for i := range vc[p] {
				want[vd[p]+i] = gen(p, i)
			}
		}
		write(w, s, mine)
		write(w, r, filled(room, sentinel))
		if c.ok(x.name+" Allgatherv", compat.Allgatherv(comm, s, vc[me], u, r, vc, vd, u)) {
			x.vcheck("Allgatherv", read(w, r)[:vtotal], want)
		}
		in := filled(room, sentinel)
		copy(in[vd[me]:], mine)
		write(w, r, in)
		if c.ok(x.name+" Allgatherv in place", compat.Allgatherv(comm, compat.InPlace[uint32](), 0, u, r, vc, vd, u)) {
			x.vcheck("Allgatherv in place", read(w, r)[:vtotal], want)
		}
	}
	{ // Alltoallv: p sends j count+(p+j)%3 elements; send backwards, receive forwards with gaps
		blk := func(p, j int) int { return count + (p+j)%3 }
		sc, sd, rc, rd := make([]int, n), make([]int, n), make([]int, n), make([]int, n)
		at := 0
		for j := n - 1; j >= 0; j-- {
			sc[j], sd[j] = blk(me, j), at
			at += sc[j]
		}
		at = 0
		for j := range n {
			rc[j], rd[j] = blk(j, me), at
			at += rc[j] + 1
		}
		rtotal := at
		val := func(p, j, i int) uint32 { return gen(p, j*1_000_003+i) }
		send := make([]uint32, room)
		for j := range n {
			for i := range sc[j] {
				send[sd[j]+i] = val(me, j, i)
			}
		}
		want := filled(rtotal, sentinel)
		for p := range n {
			for i := range rc[p] {
				want[rd[p]+i] = val(p, me, i)
			}
		}
		write(w, s, send)
		write(w, r, filled(room, sentinel))
		if c.ok(x.name+" Alltoallv", compat.Alltoallv(comm, s, sc, sd, u, r, rc, rd, u)) {
			x.vcheck("Alltoallv", read(w, r)[:rtotal], want)
		}
		// In place: block j of the receive layout holds what goes to j.
		in := filled(room, sentinel)
		for j := range n {
			for i := range rc[j] {
				in[rd[j]+i] = val(me, j, i)
			}
		}
		write(w, r, in)
		if c.ok(x.name+" Alltoallv in place", compat.Alltoallv(comm, compat.InPlace[uint32](), nil, nil, u, r, rc, rd, u)) {
			x.vcheck("Alltoallv in place", read(w, r)[:rtotal], want)
		}
	}
	{ // ReduceScatterBlock and ReduceScatter (sum of uint32, wrapping), in place too
		rcs := make([]int, n)
		total := 0
		for i := range n {
			rcs[i] = count + i
			total += rcs[i]
		}
		input := func(p int) []uint32 {
			v := make([]uint32, total)
			for i := range v {
				v[i] = gen(p, i)
			}
			return v
		}
		sum := make([]uint32, total)
		for p := range n {
			for i, v := range input(p) {
				sum[i] += v
			}
		}
		lo := 0
		for i := range me {
			lo += rcs[i]
		}
		write(w, s, input(me))
		write(w, r, filled(room, sentinel))
		if c.ok(x.name+" ReduceScatter", compat.ReduceScatter(comm, s, r, rcs, u, compat.OpSum)) {
			x.vcheck("ReduceScatter", read(w, r)[:rcs[me]+1], append(append([]uint32(nil), sum[lo:lo+rcs[me]]...), sentinel))
		}
		write(w, r, input(me))
		if c.ok(x.name+" ReduceScatter in place", compat.ReduceScatter(comm, compat.InPlace[uint32](), r, rcs, u, compat.OpSum)) {
			x.vcheck("ReduceScatter in place", read(w, r)[:rcs[me]], sum[lo:lo+rcs[me]])
		}
		bsum := make([]uint32, n*count)
		for p := range n {
			for i, v := range input(p)[:n*count] {
				bsum[i] += v
			}
		}
		write(w, s, input(me)[:n*count])
		write(w, r, filled(room, sentinel))
		if c.ok(x.name+" ReduceScatterBlock", compat.ReduceScatterBlock(comm, s, r, count, u, compat.OpSum)) {
			x.vcheck("ReduceScatterBlock", read(w, r)[:count+1], append(append([]uint32(nil), bsum[me*count:(me+1)*count]...), sentinel))
		}
		write(w, r, input(me)[:n*count])
		if c.ok(x.name+" ReduceScatterBlock in place", compat.ReduceScatterBlock(comm, compat.InPlace[uint32](), r, count, u, compat.OpSum)) {
			x.vcheck("ReduceScatterBlock in place", read(w, r)[:count], bsum[me*count:(me+1)*count])
		}
	}
}
