package mpitype

import (
	"fmt"
	"math/bits"
	"sort"
	"unsafe"
)

// Limits on type maps, which keep the offsets and extents the layers
// compute far from overflowing an int.
const (
	// MaxRuns bounds the contiguous pieces of one tile of a map (a
	// vector's block, a struct's whole map): the memory a map takes.
	MaxRuns = 1 << 22
	// MaxBytes bounds the bytes a map spans, and a transfer's.
	MaxBytes = 1 << 48
)

// run is a contiguous stretch of a type map: off bytes from the map's
// true lower bound, n bytes long.
type run struct{ off, n int }

// Seg is a stretch of a type signature: N elements of basic type B, each
// Ext bytes in external32 (B's own Ext32, or less for C types that
// external32 narrows: MPI_LONG, MPI_WCHAR).
type Seg struct {
	B   Basic
	Ext uint8
	N   int
}

// Map is the type map of an MPI datatype (MPI-4.1 chapter 5): where the
// data bytes of one instance lie, of which basic types, and its bounds.
// Its data is one tile of runs repeated reps times, rstride bytes apart
// (a vector's block, or a contiguous type's old type): the contiguous and
// vector maps that most codes send stay a few runs however many elements
// they hold. Offsets of runs are from the true lower bound, and a buffer
// handed to Pack, Unpack or a Cursor starts there (a C buffer at its
// pointer plus TrueLB). A Map does not change once built, so datatype
// handles share theirs between goroutines without locks.
type Map struct {
	basic      Basic // the one basic type, BasicMixed for several
	predefined bool
	overlap    bool  // some bytes appear twice
	elems      int   // basic elements in one instance
	size       int   // data bytes in one instance
	extent     int   // ub - lb: bytes from one instance to the next
	trueExt    int   // bytes from the first data byte to the end of the last
	runs       []run // one tile, in type-map order, adjacent runs merged
	reps       int   // tiles in one instance
	rstride    int   // bytes from one tile to the next
	lb, tlb    int   // lower bound and true lower bound, from the origin
	mlb, mub   bool  // lb (ub) set explicitly (resized): sticky in structs
	align      int   // the largest C alignment of its basic types
	sig        []Seg // one tile's type signature, merged
}

// BasicMap returns the map of the predefined datatype b: one element.
func BasicMap(b Basic) Map { return ExtMap(b, b.Ext32()) }

// ExtMap is BasicMap of a C type whose external32 size is ext bytes (a
// C long, 8 bytes here, has 4 in external32).
func ExtMap(b Basic, ext int) Map {
	sz := b.Size()
	m := Map{basic: b, elems: 1, size: sz, extent: b.Extent(), trueExt: b.Span(), runs: []run{{0, sz}}, reps: 1,
		predefined: true, align: b.Align(), sig: []Seg{{b, uint8(ext), 1}}}
	if p := pairLayouts[b]; p.val != BasicInvalid && p.locOff != p.val.Size() {
		// Padding between the members (MPI_SHORT_INT): two runs.
		m.runs = []run{{0, p.val.Size()}, {p.locOff, p.loc.Size()}}
	}
	return m
}

// Basic returns the map's basic type, BasicMixed if it has several (or
// BasicInvalid for a map with no data that was built of none).
func (m *Map) Basic() Basic { return m.basic }

// Elems returns the number of basic elements in one instance.
func (m *Map) Elems() int { return m.elems }

// Size returns the bytes of data in one instance (MPI_Type_size).
func (m *Map) Size() int { return m.size }

// Extent returns ub - lb, the distance in bytes from one instance to the
// next (MPI_Type_get_extent).
func (m *Map) Extent() int { return m.extent }

// LB returns the lower bound (MPI_Type_get_extent's lb).
func (m *Map) LB() int { return m.lb }

// UB returns the upper bound, LB + Extent.
func (m *Map) UB() int { return m.lb + m.extent }

// TrueLB returns the displacement of the first data byte from the origin
// (MPI_Type_get_true_extent's lb; 0 for a map without data).
func (m *Map) TrueLB() int { return m.tlb }

// TrueExtent returns the bytes from the first data byte to the end of the
// last (MPI_Type_get_true_extent's extent).
func (m *Map) TrueExtent() int { return m.trueExt }

// Align returns the largest C alignment of the map's basic types.
func (m *Map) Align() int { return max(m.align, 1) }

// Predefined reports whether m is a basic type's own map.
func (m *Map) Predefined() bool { return m.predefined }

// Overlap reports whether some bytes of an instance appear in its type map
// twice: such a map may describe data read, never data written.
func (m *Map) Overlap() bool { return m.overlap }

// Pieces returns the number of contiguous runs in one instance.
func (m *Map) Pieces() int { return len(m.runs) * m.reps }

// Contiguous reports whether instances are packed back to back, so that
// count of them are the first count*Size bytes of a buffer.
func (m *Map) Contiguous() bool {
	return m.elems == 0 || (m.reps == 1 && len(m.runs) == 1 && m.runs[0].off == 0 && m.runs[0].n == m.extent)
}

// Span returns the bytes count instances reach from the first one's true
// lower bound (for an extent that is not negative).
func (m *Map) Span(count int) int {
	if count <= 0 || m.elems == 0 {
		return 0
	}
	return max((count-1)*m.extent+m.trueExt, m.trueExt)
}

// String describes the layout of a derived map; the layers name a
// predefined one themselves.
func (m *Map) String() string {
	return fmt.Sprintf("%d x %v in %d pieces over %d bytes", m.elems, m.basic, m.Pieces(), m.extent)
}

// each calls fn for every piece of count instances in type-map order,
// until fn returns false.
func (m *Map) each(count int, fn func(off, n int) bool) {
	if m.elems == 0 {
		return
	}
	for i := range count {
		for t := range m.reps {
			base := i*m.extent + t*m.rstride
			for _, r := range m.runs {
				if !fn(base+r.off, r.n) {
					return
				}
			}
		}
	}
}

// Pack copies count instances laid out in src into the contiguous dst and
// returns the bytes copied; it stops when dst is full.
func (m *Map) Pack(dst, src []byte, count int) int {
	if m.Contiguous() {
		return copy(dst, src[:min(len(src), count*m.size)])
	}
	if m.reps > 1 && len(m.runs) == 1 {
		return m.strided(dst, src, count, true)
	}
	// Other maps, run by run. (A loop of explicit small moves costs more
	// here than the closure and copy: callgrind, a struct of three
	// members.)
	n := 0
	m.each(count, func(off, k int) bool {
		n += copy(dst[n:], src[off:off+k])
		return n < len(dst)
	})
	return n
}

// Unpack scatters the contiguous src into count instances laid out in dst,
// as far as src reaches.
func (m *Map) Unpack(dst, src []byte, count int) {
	if m.Contiguous() {
		copy(dst[:min(len(dst), count*m.size)], src)
		return
	}
	if m.reps > 1 && len(m.runs) == 1 {
		m.strided(src, dst, count, false)
		return
	}
	n := 0
	m.each(count, func(off, k int) bool {
		n += copy(dst[off:off+k], src[n:])
		return n < len(src)
	})
}

// Tile calls fn for each run of one tile (its offset from the true lower
// bound and its length) and returns the tiles of one instance and their
// stride: the layout for a layer that packs in its own code (compat/abi's
// C fast path).
func (m *Map) Tile(fn func(off, n int)) (reps, rstride int) {
	for _, r := range m.runs {
		fn(r.off, r.n)
	}
	return m.reps, m.rstride
}

// Cursor walks the type map of count instances of a Map, in order.
type Cursor struct {
	m     *Map
	count int
	inst  int // current instance
	t     int // current tile
	r     int // current run
	pos   int // bytes consumed in the current run
}

// Cursor returns a cursor at the start of count instances of m.
func (m *Map) Cursor(count int) Cursor {
	c := Cursor{m: m, count: count}
	if m.elems == 0 {
		c.inst = count
	}
	return c
}

// left is the rest of the current run.
func (c *Cursor) left() int { return c.m.runs[c.r].n - c.pos }

// Next returns the offset and length of the next piece, at most max
// bytes; n is 0 at the end.
func (c *Cursor) Next(max int) (off, n int) {
	if c.inst >= c.count {
		return 0, 0
	}
	m := c.m
	r := m.runs[c.r]
	off = c.inst*m.extent + c.t*m.rstride + r.off + c.pos
	n = min(r.n-c.pos, max)
	c.pos += n
	if c.pos == r.n {
		c.pos = 0
		if c.r++; c.r == len(m.runs) {
			c.r = 0
			if c.t++; c.t == m.reps {
				c.t = 0
				c.inst++
			}
		}
	}
	return off, n
}

// Zip calls fn for matching pieces of two type maps with the same number
// of bytes, split where either side's pieces end.
func Zip(a, b Cursor, fn func(aOff, bOff, n int)) {
	for a.inst < a.count && b.inst < b.count {
		k := min(a.left(), b.left())
		ao, _ := a.Next(k)
		bo, _ := b.Next(k)
		fn(ao, bo, k)
	}
}

// EachSeg calls fn for the signature of count instances, in order, until
// fn returns false.
func (m *Map) EachSeg(count int, fn func(s Seg) bool) { m.eachSeg(count, fn) }

func (m *Map) eachSeg(count int, fn func(s Seg) bool) {
	if m.elems == 0 {
		return
	}
	for range count {
		for range m.reps {
			for _, s := range m.sig {
				if !fn(s) {
					return
				}
			}
		}
	}
}

// Signature returns the type signature of one instance, merged (at most
// limit segments; ok is false past that).
func (m *Map) Signature(limit int) (sig []Seg, ok bool) {
	ok = true
	m.eachSeg(1, func(s Seg) bool {
		sig = appendSeg(sig, s)
		if len(sig) > limit {
			ok = false
		}
		return ok
	})
	return sig, ok
}

func appendSeg(sig []Seg, s Seg) []Seg {
	if s.N == 0 {
		return sig
	}
	if k := len(sig); k > 0 && sig[k-1].B == s.B && sig[k-1].Ext == s.Ext {
		sig[k-1].N += s.N
		return sig
	}
	return append(sig, s)
}

// Elements returns the basic elements in the first bytes of the packed
// form of instances of m (MPI_Get_elements), or -1 when bytes end inside
// an element.
func (m *Map) Elements(bytes int) int {
	if m.size == 0 {
		if bytes == 0 {
			return 0
		}
		return -1
	}
	full, rest := bytes/m.size, bytes%m.size
	n := full * m.elements()
	m.eachSeg(1, func(s Seg) bool {
		sz := s.B.Size()
		if rest >= s.N*sz {
			n += s.N * s.B.Elements()
			rest -= s.N * sz
			return rest > 0
		}
		n += rest / sz * s.B.Elements()
		rest %= sz
		if v, _, ok := s.B.Pair(); ok && rest >= v.Size() { // a pair's value without its location
			n++
			rest -= v.Size()
		}
		return false
	})
	if rest != 0 {
		return -1
	}
	return n
}

// elements returns the basic elements of one instance as MPI counts them
// (a pair as two).
func (m *Map) elements() int {
	if _, _, ok := m.basic.Pair(); ok {
		return 2 * m.elems
	}
	if m.basic != BasicMixed {
		return m.elems
	}
	n := 0
	m.eachSeg(1, func(s Seg) bool { n += s.N * s.B.Elements(); return true })
	return n
}

// ElementBytes returns the bytes the first n basic elements of the packed
// form of instances of m take (MPI_Status_set_elements; Elements'
// inverse).
func (m *Map) ElementBytes(n int) int {
	e := m.elements()
	if e == 0 {
		return 0
	}
	full, rest := n/e, n%e
	b := full * m.size
	m.eachSeg(1, func(s Seg) bool {
		per := s.B.Elements()
		k := min(rest/per, s.N)
		b += k * s.B.Size()
		rest -= k * per
		if rest > 0 && k < s.N && per == 2 { // a pair's value alone
			v, _, _ := s.B.Pair()
			b += v.Size()
			rest = 0
		}
		return rest > 0
	})
	return b
}

// SameSignature reports whether ac instances of a and bc of b have the
// same sequence of basic types (MPI's type matching; MPI_BYTE and
// MPI_PACKED, both BasicByte, match anything of as many bytes).
func SameSignature(a *Map, ac int, b *Map, bc int) bool {
	if ac*a.size != bc*b.size {
		return false
	}
	if a.basic == BasicByte || b.basic == BasicByte || ac*a.size == 0 {
		return true
	}
	_, _, ap := a.basic.Pair()
	_, _, bp := b.basic.Pair()
	switch {
	case a.basic == b.basic && a.basic != BasicMixed:
		return ac*a.elems == bc*b.elems
	case a.basic != BasicMixed && !ap && b.basic != BasicMixed && !bp:
		return false
	}
	// Mixed maps, or a pair against a mixed map (MPI_DOUBLE_INT matches a
	// struct of a double and an int): compare their signatures, merged,
	// with pairs as their two members.
	flat := func(m *Map, c int) []Seg {
		var out []Seg
		m.eachSeg(c, func(s Seg) bool {
			v, l, ok := s.B.Pair()
			if !ok {
				out = appendSeg(out, Seg{B: s.B, N: s.N})
				return true
			}
			for range s.N {
				out = appendSeg(appendSeg(out, Seg{B: v, N: 1}), Seg{B: l, N: 1})
			}
			return true
		})
		return out
	}
	sa, sb := flat(a, ac), flat(b, bc)
	if len(sa) != len(sb) {
		return false
	}
	for i := range sa {
		if sa[i] != sb[i] {
			return false
		}
	}
	return true
}

// AsBytes views a slice of plain elements as bytes.
func AsBytes[T Elem](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}

// Fits reports whether n items of size bytes (n, size >= 0) fit in avail
// bytes, without overflowing.
func Fits(n, size, avail int) bool {
	hi, lo := bits.Mul64(uint64(n), uint64(size))
	return hi == 0 && lo <= uint64(avail)
}

// MapsOverlap reports whether ac instances of a whose buffer starts at
// address pa and bc instances of b at pb share a byte: exactly for maps of
// up to 1<<20 pieces in all, and true (as if they did) past that.
func MapsOverlap(a *Map, ac int, pa uintptr, b *Map, bc int, pb uintptr) bool {
	if !Fits(ac, a.Pieces(), 1<<19) || !Fits(bc, b.Pieces(), 1<<19) {
		return true
	}
	type span struct{ lo, hi uintptr }
	var all []span
	a.each(ac, func(off, n int) bool { all = append(all, span{pa + uintptr(off), pa + uintptr(off+n)}); return true })
	na := len(all)
	b.each(bc, func(off, n int) bool { all = append(all, span{pb + uintptr(off), pb + uintptr(off+n)}); return true })
	as, bs := all[:na], all[na:]
	sort.Slice(as, func(i, j int) bool { return as[i].lo < as[j].lo })
	sort.Slice(bs, func(i, j int) bool { return bs[i].lo < bs[j].lo })
	for i, j := 0, 0; i < len(as) && j < len(bs); {
		if as[i].lo < bs[j].hi && bs[j].lo < as[i].hi {
			return true
		}
		if as[i].hi <= bs[j].hi {
			i++
		} else {
			j++
		}
	}
	return false
}
