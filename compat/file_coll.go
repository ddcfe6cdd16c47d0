package compat

import (
	"encoding/binary"
	"errors"
	"io"
	"sort"

	"github.com/gshmem/gshmem/shmem"
)

// Collective data access by two-phase collective buffering: the members'
// spans together make the access's file range, split into one contiguous
// file domain per aggregator (one member per node by default, cb_nodes
// otherwise); in rounds of at most cb_buffer_size bytes per aggregator,
// members send the pieces of their data that fall in each aggregator's
// window (writes) or ask for them (reads), and each aggregator makes one
// large access for its window. A block-distributed array written through a
// subarray view thus becomes large contiguous writes instead of many small
// ones. Accesses that gain nothing from it (each member's data one
// contiguous range, romio_cb_write=disable) are made independently.

// aggregators returns the ranks that do a collective access's file I/O.
func (f *File) aggregators() []int {
	if f.aggs != nil {
		return f.aggs
	}
	// Group the members by node, in rank order.
	var order []int
	byNode := map[int64][]int{}
	for r, k := range f.nodes {
		if _, ok := byNode[k]; !ok {
			order = append(order, int(k))
		}
		byNode[k] = append(byNode[k], r)
	}
	want := f.hints.cbNodes
	if want <= 0 {
		want = len(order)
	}
	want = min(want, len(f.nodes))
	// Take members round-robin over nodes: the first of each node first.
	var aggs []int
	for i := 0; len(aggs) < want; i++ {
		for _, k := range order {
			if rs := byNode[int64(k)]; i < len(rs) && len(aggs) < want {
				aggs = append(aggs, rs[i])
			}
		}
	}
	sort.Ints(aggs)
	f.aggs = aggs
	return aggs
}

// learnNodes records which node each member is on (collective, at open).
func (f *File) learnNodes() error {
	w := f.comm.World()
	key := int64(w.MyPE())
	if t := w.TeamShared(); t != nil {
		key = int64(shmem.TranslatePE(t, 0, w.TeamWorld()))
	}
	f.nodes = make([]int64, f.comm.Size())
	return Allgather(f.comm, []int64{key}, 1, Int64, f.nodes, 1, Int64)
}

// collective is the collective form of access: every member calls it with
// its own stream offset and data.
func (f *File) collective(write bool, v *fileView, h fileHints, atomic bool, s int64, data []byte) (int64, error) {
	c := f.comm
	ps := v.pieces(s, int64(len(data)))
	lo, hi := piecesSpan(ps)
	if len(ps) == 0 {
		lo, hi = -1, -1
	}
	mine := []int64{lo, hi, int64(len(ps))}
	all := make([]int64, 3*c.Size())
	if err := Allgather(c, mine, 3, Int64, all, 3, Int64); err != nil {
		return 0, err
	}
	mode := h.cbRead
	if write {
		mode = h.cbWrite
	}
	glo, ghi, many := int64(-1), int64(-1), false
	for r := 0; r < c.Size(); r++ {
		l, u, k := all[3*r], all[3*r+1], all[3*r+2]
		if k == 0 {
			continue
		}
		many = many || k > 1
		if glo < 0 || l < glo {
			glo = l
		}
		ghi = max(ghi, u)
	}
	if mode == "disable" || glo < 0 || (mode == "automatic" && !many) {
		n, err := f.access(write, v, h, atomic, s, data)
		return n, err
	}
	return f.twoPhase(write, ps, data, glo, ghi, h)
}

// twoPhase runs the rounds of a collective access over [glo, ghi).
func (f *File) twoPhase(write bool, ps []piece, data []byte, glo, ghi int64, h fileHints) (int64, error) {
	c := f.comm
	aggs := f.aggregators()
	cb := int64(h.cbBufferSize)
	// File domains: [glo, ghi) in len(aggs) parts, cut at stripe
	// boundaries so that no two aggregators write one stripe.
	align := max(int64(h.stripingUnit), 1)
	per := (ghi - glo + int64(len(aggs)) - 1) / int64(len(aggs))
	per = (per + align - 1) / align * align
	dom := make([][2]int64, len(aggs))
	rounds := int64(0)
	for i := range aggs {
		dlo := glo + int64(i)*per
		if i > 0 {
			dlo = dlo / align * align
		}
		dhi := min(glo+int64(i+1)*per, ghi)
		if i+1 < len(aggs) {
			dhi = dhi / align * align
		}
		dom[i] = [2]int64{dlo, max(dlo, dhi)}
		rounds = max(rounds, (dom[i][1]-dom[i][0]+cb-1)/cb)
	}
	me := c.Rank()
	myAgg := -1
	for i, a := range aggs {
		if a == me {
			myAgg = i
		}
	}
	// results of my reads: per piece fragment, where it goes and how much
	// of it the file held.
	type frag struct{ at, n, valid int64 }
	var frags []frag
	cursor := make([]int, len(aggs)) // per aggregator: my first piece not wholly before its window
	var firstErr error
	n := c.Size()
	for k := int64(0); k < rounds; k++ {
		// My fragments in each aggregator's window this round.
		send := make([][]piece, n)
		for i, a := range aggs {
			wlo := dom[i][0] + k*cb
			whi := min(wlo+cb, dom[i][1])
			if wlo >= whi {
				continue
			}
			for cursor[i] < len(ps) && ps[cursor[i]].off+ps[cursor[i]].n <= wlo {
				cursor[i]++
			}
			for _, p := range ps[cursor[i]:] {
				if p.off >= whi {
					break
				}
				l, u := max(p.off, wlo), min(p.off+p.n, whi)
				if l < u {
					send[a] = append(send[a], piece{l, p.at + (l - p.off), u - l})
				}
			}
		}
		// Phase one: the requests (and a write's data) to the aggregators.
		sbuf, scounts, sdispls := encodePieces(send, data, write)
		rcounts := make([]int, n)
		if err := Alltoall(c, scounts, 1, Int64, rcounts, 1, Int64); err != nil {
			return 0, err
		}
		rdispls, rtotal := displsOf(rcounts)
		rbuf := make([]byte, rtotal)
		if err := Alltoallv(c, sbuf, scounts, sdispls, Byte, rbuf, rcounts, rdispls, Byte); err != nil {
			return 0, err
		}
		// Phase two: the aggregator's access of its window.
		var reply [][]byte
		if myAgg >= 0 {
			got, err := decodePieces(rbuf, rcounts, rdispls, write)
			if err == nil {
				reply, err = f.aggregate(write, got)
			}
			if err != nil {
				if firstErr == nil {
					firstErr = err
				}
				// The members wait for replies of the sizes they asked
				// for: send those, with nothing valid in them.
				reply = nil
				if !write {
					reply = make([][]byte, n)
					for _, p := range got {
						reply[p.from] = append(reply[p.from], make([]byte, 8+p.n)...)
					}
				}
			}
			if reply == nil && !write {
				reply = make([][]byte, n)
			}
		}
		if write {
			continue
		}
		// Reads: the aggregators' replies, per fragment its valid length
		// then its bytes.
		scounts2 := make([]int, n)
		for r := range reply {
			scounts2[r] = len(reply[r])
		}
		sdispls2, stotal := displsOf(scounts2)
		sbuf2 := make([]byte, 0, stotal)
		for r := range reply {
			sbuf2 = append(sbuf2, reply[r]...)
		}
		rcounts2 := make([]int, n)
		for r := range send {
			if len(send[r]) > 0 {
				rcounts2[r] = 8 * len(send[r])
				for _, p := range send[r] {
					rcounts2[r] += int(p.n)
				}
			}
		}
		rdispls2, rtotal2 := displsOf(rcounts2)
		rbuf2 := make([]byte, rtotal2)
		if err := Alltoallv(c, sbuf2, scounts2, sdispls2, Byte, rbuf2, rcounts2, rdispls2, Byte); err != nil {
			return 0, err
		}
		for r := range send {
			b := rbuf2[rdispls2[r] : rdispls2[r]+rcounts2[r]]
			if len(send[r]) == 0 {
				continue
			}
			hdr, body := b[:8*len(send[r])], b[8*len(send[r]):]
			for i, p := range send[r] {
				valid := int64(binary.LittleEndian.Uint64(hdr[8*i:]))
				copy(data[p.at:p.at+p.n], body[:p.n])
				body = body[p.n:]
				frags = append(frags, frag{p.at, p.n, valid})
			}
		}
	}
	if err := agree(c, firstErr, "collective access of %q", f.path); err != nil {
		return 0, err
	}
	if write {
		return int64(len(data)), nil
	}
	sort.Slice(frags, func(i, j int) bool { return frags[i].at < frags[j].at })
	var got int64
	for _, fr := range frags {
		if fr.at != got {
			break
		}
		got += fr.valid
		if fr.valid < fr.n {
			break
		}
	}
	return got, nil
}

func displsOf(counts []int) ([]int, int) {
	d := make([]int, len(counts))
	t := 0
	for i, c := range counts {
		d[i] = t
		t += c
	}
	return d, t
}

// encodePieces lays out one message per member: the number of pieces, each
// piece's offset and length, and (writes) their bytes.
func encodePieces(send [][]piece, data []byte, write bool) ([]byte, []int, []int) {
	counts := make([]int, len(send))
	for r, ps := range send {
		if len(ps) == 0 {
			continue
		}
		counts[r] = 8 + 16*len(ps)
		if write {
			for _, p := range ps {
				counts[r] += int(p.n)
			}
		}
	}
	displs, total := displsOf(counts)
	buf := make([]byte, total)
	for r, ps := range send {
		if len(ps) == 0 {
			continue
		}
		b := buf[displs[r]:]
		binary.LittleEndian.PutUint64(b, uint64(len(ps)))
		for i, p := range ps {
			binary.LittleEndian.PutUint64(b[8+16*i:], uint64(p.off))
			binary.LittleEndian.PutUint64(b[16+16*i:], uint64(p.n))
		}
		if write {
			o := 8 + 16*len(ps)
			for _, p := range ps {
				o += copy(b[o:], data[p.at:p.at+p.n])
			}
		}
	}
	return buf, counts, displs
}

// recvd is a piece an aggregator got: its file range, the member, and a
// write's bytes.
type recvd struct {
	off, n int64
	from   int
	data   []byte
}

func decodePieces(buf []byte, counts, displs []int, write bool) ([]recvd, error) {
	var out []recvd
	for r := range counts {
		if counts[r] == 0 {
			continue
		}
		b := buf[displs[r] : displs[r]+counts[r]]
		k := int(binary.LittleEndian.Uint64(b))
		if 8+16*k > len(b) {
			return nil, errorf(ClassOther, "collective I/O: a malformed message from rank %d", r)
		}
		body := b[8+16*k:]
		for i := range k {
			p := recvd{off: int64(binary.LittleEndian.Uint64(b[8+16*i:])), n: int64(binary.LittleEndian.Uint64(b[16+16*i:])), from: r}
			if write {
				p.data, body = body[:p.n], body[p.n:]
			}
			out = append(out, p)
		}
	}
	return out, nil
}

// aggregate makes an aggregator's access of one window: a write of the
// pieces it got (reading first what lies between them, so that it is
// kept), or a read whose replies it returns per member.
func (f *File) aggregate(write bool, got []recvd) ([][]byte, error) {
	if len(got) == 0 {
		return nil, nil
	}
	lo, hi := got[0].off, got[0].off+got[0].n
	for _, p := range got {
		lo, hi = min(lo, p.off), max(hi, p.off+p.n)
	}
	buf := make([]byte, hi-lo)
	if write {
		if !covers(got, lo, hi) {
			if f.noRead {
				// A write-only descriptor cannot read the holes: write the
				// pieces one by one instead.
				for _, p := range got {
					if _, err := f.fd.WriteAt(p.data, p.off); err != nil {
						return nil, ioError(err, "collective write of %q", f.path)
					}
				}
				return nil, nil
			}
			if _, err := f.fd.ReadAt(buf, lo); err != nil && !errors.Is(err, io.EOF) {
				return nil, ioError(err, "collective write of %q", f.path)
			}
		}
		for _, p := range got {
			copy(buf[p.off-lo:], p.data)
		}
		if _, err := f.fd.WriteAt(buf, lo); err != nil {
			return nil, ioError(err, "collective write of %q", f.path)
		}
		return nil, nil
	}
	n, err := f.fd.ReadAt(buf, lo)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, ioError(err, "collective read of %q", f.path)
	}
	end := lo + int64(n)
	// Replies in the order each member listed its pieces.
	reply := make([][]byte, f.comm.Size())
	hdrs := map[int]int{}
	for _, p := range got {
		hdrs[p.from]++
	}
	for r, k := range hdrs {
		reply[r] = make([]byte, 8*k, 8*k+64)
	}
	idx := map[int]int{}
	for _, p := range got {
		valid := min(max(end-p.off, 0), p.n)
		binary.LittleEndian.PutUint64(reply[p.from][8*idx[p.from]:], uint64(valid))
		idx[p.from]++
		reply[p.from] = append(reply[p.from], buf[p.off-lo:p.off-lo+p.n]...)
	}
	return reply, nil
}

// covers reports whether the pieces leave no hole in [lo, hi).
func covers(got []recvd, lo, hi int64) bool {
	s := append([]recvd(nil), got...)
	sort.Slice(s, func(i, j int) bool { return s[i].off < s[j].off })
	at := lo
	for _, p := range s {
		if p.off > at {
			return false
		}
		at = max(at, p.off+p.n)
	}
	return at >= hi
}
