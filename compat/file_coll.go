package compat

import (
	"cmp"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"slices"
	"sort"

	"golang.org/x/sys/unix"

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
// Called with f.mu held.
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
// its own access.
func (f *File) collective(a *access, c *Comm) (int64, error) {
	ps := a.v.pieces(a.s, int64(len(a.data)))
	mine := spanWords(ps)
	all := make([]int64, 4*c.Size())
	if err := Allgather(c, mine, 4, Int64, all, 4, Int64); err != nil {
		return 0, err
	}
	glo, ghi, two := decide(all, a.op.Write, a.h)
	if !two {
		return f.access(a.op.Write, &a.v, a.h, a.atomic, a.s, a.data)
	}
	return f.twoPhase(a.op.Write, ps, a.data, glo, ghi, a.h, a.aggs)
}

// spanWords is what a member tells the others of its pieces: their span,
// their number, and whether they are monotone (a read-only view with
// overlapping entries is not: the rounds, made for monotone views, leave
// such accesses to independent access on every member).
func spanWords(ps []piece) []int64 {
	lo, hi := piecesSpan(ps)
	if len(ps) == 0 {
		lo, hi = -1, -1
	}
	mono := int64(1)
	if !monotone(ps) {
		mono = 0
	}
	return []int64{lo, hi, int64(len(ps)), mono}
}

// decide reads every member's spanWords and returns the access's file
// range and whether collective buffering runs it (else each member makes
// its part independently).
func decide(all []int64, write bool, h fileHints) (glo, ghi int64, two bool) {
	mode := h.cbRead
	if write {
		mode = h.cbWrite
	}
	glo, ghi = -1, -1
	many, overlaps := false, false
	for r := 0; r < len(all)/4; r++ {
		l, u, k := all[4*r], all[4*r+1], all[4*r+2]
		overlaps = overlaps || all[4*r+3] == 0
		if k == 0 {
			continue
		}
		many = many || k > 1
		if glo < 0 || l < glo {
			glo = l
		}
		ghi = max(ghi, u)
	}
	two = !(mode == "disable" || glo < 0 || overlaps || (mode == "automatic" && !many))
	return glo, ghi, two
}

// twoPhase runs the rounds of a collective access over [glo, ghi). A
// member's pieces in one aggregator's window are one contiguous range of
// its data (views are monotone), so data moves without packing: a round
// exchanges the pieces' lists (an Alltoall of their sizes, an Alltoallv of
// offsets and lengths), then the bytes straight from the writers' data or
// into the readers' (an Alltoallv over data itself); an aggregator writes
// or reads its window with one vectored call over the pieces it holds.
func (f *File) twoPhase(write bool, ps []piece, data []byte, glo, ghi int64, h fileHints, aggs []int) (int64, error) {
	c := f.comm
	cb := int64(h.cbBufferSize)
	dom, rounds := domains(glo, ghi, h, len(aggs))
	me, n := c.Rank(), c.Size()
	myAgg := -1
	for i, a := range aggs {
		if a == me {
			myAgg = i
		}
	}
	cursor := make([]int, len(aggs)) // per aggregator: my first piece not wholly before its window
	var firstErr error
	var pending chan error // writes: the aggregator's write in flight
	var held []heldRun     // reads: my runs and how much of each the file held
	for k := int64(0); k < rounds; k++ {
		// My pieces in each aggregator's window this round.
		send := make([][]piece, n)
		for i, a := range aggs {
			wlo := dom[i][0] + k*cb
			whi := min(wlo+cb, dom[i][1])
			if wlo >= whi {
				continue
			}
			send[a] = window(ps, &cursor[i], wlo, whi)
		}
		// The lists, to the aggregators.
		hbuf, hcounts, hdispls := encodeLists(send)
		rh := make([]int, n)
		if err := Alltoall(c, hcounts, 1, Int64, rh, 1, Int64); err != nil {
			return 0, err
		}
		rhd, rht := displsOf(rh)
		rhbuf := make([]byte, rht)
		if err := Alltoallv(c, hbuf, hcounts, hdispls, Byte, rhbuf, rh, rhd, Byte); err != nil {
			return 0, err
		}
		var lists [][]piece // at an aggregator: each member's pieces, at from its run's start
		if myAgg >= 0 {
			var err error
			if lists, err = decodeLists(rhbuf, rh, rhd, n); err != nil {
				return 0, err
			}
		}
		// My runs of data: for aggregator r, send[r]'s bytes.
		dcounts, ddispls := make([]int, n), make([]int, n)
		for r, l := range send {
			if len(l) > 0 {
				ddispls[r] = int(l[0].at)
				dcounts[r] = int(l[len(l)-1].at + l[len(l)-1].n - l[0].at)
			}
		}
		acounts := make([]int, n) // at an aggregator: each member's bytes
		for r, l := range lists {
			for _, p := range l {
				acounts[r] += int(p.n)
			}
		}
		adispls, atotal := displsOf(acounts)
		abuf := make([]byte, atotal)
		if write {
			if err := Alltoallv(c, data, dcounts, ddispls, Byte, abuf, acounts, adispls, Byte); err != nil {
				return 0, err
			}
			if myAgg >= 0 {
				// The window's write runs while the next round's bytes
				// arrive: one write in flight, each into its own buffer.
				if pending != nil {
					if err := <-pending; err != nil && firstErr == nil {
						firstErr = err
					}
				}
				pending = make(chan error, 1)
				go func(ch chan<- error, lists [][]piece, buf []byte, displs []int) {
					ch <- f.aggregateWrite(lists, buf, displs)
				}(pending, lists, abuf, adispls)
			}
			continue
		}
		// Reads: the aggregator reads into each member's run, then says
		// how much of it the file held, and the runs go straight into the
		// members' data.
		valid := make([]int64, n)
		if myAgg >= 0 {
			var err error
			if valid, err = f.aggregateRead(lists, abuf, adispls); err != nil && firstErr == nil {
				firstErr = err
			}
		}
		mine := make([]int64, n)
		if err := Alltoall(c, valid, 1, Int64, mine, 1, Int64); err != nil {
			return 0, err
		}
		if err := Alltoallv(c, abuf, acounts, adispls, Byte, data, dcounts, ddispls, Byte); err != nil {
			return 0, err
		}
		for r := range send {
			if dcounts[r] > 0 {
				held = append(held, heldRun{int64(ddispls[r]), int64(dcounts[r]), mine[r]})
			}
		}
	}
	if pending != nil {
		if err := <-pending; err != nil && firstErr == nil {
			firstErr = err
		}
	}
	if err := agree(c, firstErr, "collective access of %q", f.path); err != nil {
		return 0, err
	}
	if write {
		return int64(len(data)), nil
	}
	return heldPrefix(held), nil
}

// heldRun is a run of a member's data in one round of a collective read:
// where it lies in the data, its length, and how much of it the file held.
type heldRun struct{ at, n, valid int64 }

// heldPrefix is how much of a member's data, from its start, the file held:
// its runs in data order up to the first short one. (Rounds do not take
// the data in order: with several aggregators, each round takes a run in
// each aggregator's domain.)
func heldPrefix(runs []heldRun) int64 {
	slices.SortFunc(runs, func(x, y heldRun) int { return cmp.Compare(x.at, y.at) })
	got := int64(0)
	for _, r := range runs {
		if r.at != got {
			break
		}
		got += r.valid
		if r.valid < r.n {
			break
		}
	}
	return got
}

// domains splits [glo, ghi) into one file domain per aggregator, cut at
// stripe boundaries so that no two aggregators write one stripe, and
// returns them with the number of rounds of cb_buffer_size the largest
// takes.
func domains(glo, ghi int64, h fileHints, naggs int) ([][2]int64, int64) {
	cb := int64(h.cbBufferSize)
	align := max(int64(h.stripingUnit), 1)
	per := (ghi - glo + int64(naggs) - 1) / int64(naggs)
	per = (per + align - 1) / align * align
	dom := make([][2]int64, naggs)
	rounds := int64(0)
	for i := range dom {
		dlo := glo + int64(i)*per
		dhi := min(dlo+per, ghi)
		dom[i] = [2]int64{min(dlo, ghi), max(min(dlo, ghi), dhi)}
		rounds = max(rounds, (dom[i][1]-dom[i][0]+cb-1)/cb)
	}
	return dom, rounds
}

// window returns the pieces of ps in [wlo, whi), clipped, starting the
// search at *cursor (ps's first piece not wholly before the window), which
// it moves on: windows come in increasing order.
func window(ps []piece, cursor *int, wlo, whi int64) []piece {
	for *cursor < len(ps) && ps[*cursor].off+ps[*cursor].n <= wlo {
		*cursor++
	}
	var out []piece
	for _, p := range ps[*cursor:] {
		if p.off >= whi {
			break
		}
		l, u := max(p.off, wlo), min(p.off+p.n, whi)
		if l < u {
			out = append(out, piece{l, p.at + (l - p.off), u - l})
		}
	}
	return out
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

// encodeLists lays out one list per member: each piece's file offset and
// length.
func encodeLists(send [][]piece) ([]byte, []int, []int) {
	counts := make([]int, len(send))
	for r, l := range send {
		counts[r] = 16 * len(l)
	}
	displs, total := displsOf(counts)
	buf := make([]byte, total)
	for r, l := range send {
		b := buf[displs[r]:]
		for i, p := range l {
			binary.LittleEndian.PutUint64(b[16*i:], uint64(p.off))
			binary.LittleEndian.PutUint64(b[16*i+8:], uint64(p.n))
		}
	}
	return buf, counts, displs
}

// decodeLists reads every member's list; a piece's at counts from the
// start of that member's run.
func decodeLists(buf []byte, counts, displs []int, n int) ([][]piece, error) {
	lists := make([][]piece, n)
	for r := range counts {
		if counts[r]%16 != 0 {
			return nil, errorf(ClassOther, "collective I/O: a malformed list from rank %d", r)
		}
		b := buf[displs[r] : displs[r]+counts[r]]
		at := int64(0)
		for i := 0; i < len(b); i += 16 {
			p := piece{off: int64(binary.LittleEndian.Uint64(b[i:])), n: int64(binary.LittleEndian.Uint64(b[i+8:])), at: at}
			at += p.n
			lists[r] = append(lists[r], p)
		}
	}
	return lists, nil
}

// slot is a piece an aggregator holds: its file range and its bytes.
type slot struct {
	off int64
	b   []byte
}

// slots lists the pieces of every member, sorted by file offset, with
// their bytes in buf (member r's run at displs[r]).
func slots(lists [][]piece, buf []byte, displs []int) []slot {
	var s []slot
	for r, l := range lists {
		for _, p := range l {
			o := int64(displs[r]) + p.at
			s = append(s, slot{p.off, buf[o : o+p.n]})
		}
	}
	sort.Slice(s, func(i, j int) bool { return s[i].off < s[j].off })
	return s
}

// aggregateWrite writes an aggregator's window: with one vectored write
// when the pieces leave no hole, else by reading the window first (so
// that the bytes between the pieces are kept), patching and writing it.
func (f *File) aggregateWrite(lists [][]piece, buf []byte, displs []int) error {
	s := slots(lists, buf, displs)
	if len(s) == 0 {
		return nil
	}
	lo, hi, holes := s[0].off, s[0].off, false
	for _, x := range s {
		holes = holes || x.off > hi
		hi = max(hi, x.off+int64(len(x.b)))
	}
	if !holes {
		return ioError(vectored(f.fd, s, true), "collective write of %q", f.path)
	}
	if f.noRead {
		// A write-only descriptor cannot read the holes: write the
		// pieces one by one instead.
		for _, x := range s {
			if _, err := f.fd.WriteAt(x.b, x.off); err != nil {
				return ioError(err, "collective write of %q", f.path)
			}
		}
		return nil
	}
	w := make([]byte, hi-lo)
	if _, err := f.fd.ReadAt(w, lo); err != nil && !errors.Is(err, io.EOF) {
		return ioError(err, "collective write of %q", f.path)
	}
	for _, x := range s {
		copy(w[x.off-lo:], x.b)
	}
	_, err := f.fd.WriteAt(w, lo)
	return ioError(err, "collective write of %q", f.path)
}

// aggregateRead reads an aggregator's window into the members' runs and
// returns, per member, how many bytes of its run the file held.
func (f *File) aggregateRead(lists [][]piece, buf []byte, displs []int) ([]int64, error) {
	valid := make([]int64, len(lists))
	s := slots(lists, buf, displs)
	if len(s) == 0 {
		return valid, nil
	}
	// One vectored read over the window, holes into a scratch buffer.
	var err error
	end := int64(-1) // the file's end, when the window reaches it
	size, serr := f.fd.Stat()
	if serr != nil {
		return valid, ioError(serr, "collective read of %q", f.path)
	}
	end = size.Size()
	if err = vectored(f.fd, s, false); err != nil {
		return valid, ioError(err, "collective read of %q", f.path)
	}
	for r, l := range lists {
		for _, p := range l {
			v := min(max(end-p.off, 0), p.n)
			valid[r] += v
			if v < p.n {
				break
			}
		}
	}
	return valid, nil
}

// vectored writes (or reads) the slots, sorted by offset, in runs of
// touching file ranges, IOV_MAX buffers per call; reads past the end of
// the file leave the rest of their buffers as they were, holes between
// slots are read into scratch.
func vectored(fd *os.File, s []slot, write bool) error {
	const iovMax = 1024
	var scratch []byte
	for i := 0; i < len(s); {
		off := s[i].off
		var iov [][]byte
		at := off
		j := i
		for j < len(s) && len(iov) < iovMax-1 {
			x := s[j]
			if x.off < at { // overlapping pieces (reads of one byte twice): a new run
				break
			}
			if x.off > at {
				if write {
					break
				}
				gap := x.off - at
				if gap > 1<<20 {
					break
				}
				if int64(len(scratch)) < gap {
					scratch = make([]byte, gap)
				}
				iov = append(iov, scratch[:gap])
				at = x.off
			}
			iov = append(iov, x.b)
			at += int64(len(x.b))
			j++
		}
		var n int
		var err error
		if write {
			n, err = unix.Pwritev(int(fd.Fd()), iov, off)
		} else {
			n, err = unix.Preadv(int(fd.Fd()), iov, off)
		}
		if err != nil {
			return err
		}
		if n < int(at-off) {
			if !write { // the end of the file: this run is short, later ones may overlap it
				i = j
				continue
			}
			// A short write: finish this run plainly.
			rest := n
			for _, b := range iov {
				if rest >= len(b) {
					rest -= len(b)
					off += int64(len(b))
					continue
				}
				if _, err := fd.WriteAt(b[rest:], off+int64(rest)); err != nil {
					return err
				}
				off += int64(len(b))
				rest = 0
			}
		}
		i = j
	}
	return nil
}
