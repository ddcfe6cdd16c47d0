package mpitype

import (
	"fmt"
	"math/bits"
	"unsafe"
)

// Limits on type maps, which keep the offsets and extents the layers
// compute far from overflowing an int.
const (
	// MaxRuns bounds the contiguous pieces of one map, and a vector's
	// count, block length and stride.
	MaxRuns = 1 << 22
	// MaxBytes bounds the bytes a map spans, and a transfer's.
	MaxBytes = 1 << 48
)

// run is a contiguous stretch of a type map: off bytes from the start of
// an instance, n bytes long.
type run struct{ off, n int }

// Map is the type map of an MPI datatype built from one basic type: where
// the data bytes of one instance lie and how far apart instances are. The
// lower bound is always 0. A Map does not change once built, so a layer's
// datatype handles share theirs between goroutines without locks; the
// handle's own state (an error, MPI_Type_free) stays with the layer.
type Map struct {
	basic      Basic
	predefined bool
	overlap    bool  // some bytes appear twice (a stride shorter than its block)
	elems      int   // basic elements in one instance
	size       int   // data bytes in one instance: elems times the basic size
	extent     int   // bytes from one instance to the next
	ub         int   // end of the last byte of one instance
	runs       []run // in type-map order, adjacent runs merged
}

// BasicMap returns the map of the predefined datatype b: one element.
func BasicMap(b Basic) Map {
	sz := b.Size()
	return Map{basic: b, elems: 1, size: sz, extent: sz, ub: sz, runs: []run{{0, sz}}, predefined: true}
}

// Vector returns the map of count blocks of blocklen copies of old, the
// starts of consecutive blocks stride copies of old apart
// (MPI_Type_vector). Each layer first refuses, with its own messages, the
// arguments its rules forbid (compat overlapping entries, windows strides
// below 1); Vector expects count and blocklen not negative and, unless one
// is 0, count, blocklen and stride at most MaxRuns and the span of the
// copies of old at most MaxBytes. It refuses only a map of more than
// MaxRuns pieces.
func Vector(count, blocklen, stride int, old *Map) (Map, error) {
	m := Map{basic: old.basic, overlap: old.overlap || (count > 1 && stride < blocklen)}
	if count == 0 || blocklen == 0 || old.elems == 0 {
		return m, nil
	}
	reach := (count-1)*stride + blocklen // in copies of old
	m.elems = count * blocklen * old.elems
	m.size = count * blocklen * old.size
	m.extent = reach * old.extent
	m.ub = (reach-1)*old.extent + old.ub
	// Overflow-safe: with overlapping blocks count*blocklen copies of a map
	// of many runs can pass 1<<63 pieces while the span stays small.
	if !Fits(count*blocklen, len(old.runs), MaxRuns) {
		return Map{}, fmt.Errorf("datatype with more than %d contiguous pieces", MaxRuns)
	}
	for i := range count {
		for j := range blocklen {
			base := (i*stride + j) * old.extent
			for _, r := range old.runs {
				m.add(run{base + r.off, r.n})
			}
		}
	}
	// A check on the flags above: a run that reaches into the next overlaps.
	for k := 1; !m.overlap && k < len(m.runs); k++ {
		m.overlap = m.runs[k].off < m.runs[k-1].off+m.runs[k-1].n
	}
	return m, nil
}

func (m *Map) add(r run) {
	if k := len(m.runs); k > 0 && m.runs[k-1].off+m.runs[k-1].n == r.off {
		m.runs[k-1].n += r.n
		return
	}
	m.runs = append(m.runs, r)
}

// Basic returns the basic type the map is built from.
func (m *Map) Basic() Basic { return m.basic }

// Elems returns the number of basic elements in one instance.
func (m *Map) Elems() int { return m.elems }

// Size returns the bytes of data in one instance (MPI_Type_size).
func (m *Map) Size() int { return m.size }

// Extent returns the distance in bytes from one instance to the next.
func (m *Map) Extent() int { return m.extent }

// Predefined reports whether m is a basic type's own map, not one built
// by Vector.
func (m *Map) Predefined() bool { return m.predefined }

// Overlap reports whether some bytes of an instance appear in its type map
// twice: such a map may describe data read, never data written.
func (m *Map) Overlap() bool { return m.overlap }

// Pieces returns the number of contiguous runs in one instance.
func (m *Map) Pieces() int { return len(m.runs) }

// Contiguous reports whether instances are packed back to back, so that
// count of them are the first count*Size bytes of a buffer.
func (m *Map) Contiguous() bool {
	return m.predefined || len(m.runs) == 0 || (len(m.runs) == 1 && m.runs[0].off == 0 && m.runs[0].n == m.extent)
}

// Span returns the bytes count instances reach from their start.
func (m *Map) Span(count int) int {
	if count == 0 || m.elems == 0 {
		return 0
	}
	return (count-1)*m.extent + m.ub
}

// String describes the layout of a derived map; the layers name a
// predefined one themselves.
func (m *Map) String() string {
	return fmt.Sprintf("%d x %v in %d pieces over %d bytes", m.elems, m.basic, len(m.runs), m.extent)
}

// Pack copies count instances laid out in src into the contiguous dst and
// returns the bytes copied; it stops when dst is full.
func (m *Map) Pack(dst, src []byte, count int) int {
	n := 0
	for i := 0; i < count && n < len(dst); i++ {
		base := i * m.extent
		for _, r := range m.runs {
			n += copy(dst[n:], src[base+r.off:base+r.off+r.n])
			if n == len(dst) {
				return n
			}
		}
	}
	return n
}

// Unpack scatters the contiguous src into count instances laid out in dst,
// as far as src reaches.
func (m *Map) Unpack(dst, src []byte, count int) {
	n := 0
	for i := 0; i < count && n < len(src); i++ {
		base := i * m.extent
		for _, r := range m.runs {
			n += copy(dst[base+r.off:base+r.off+r.n], src[n:])
			if n == len(src) {
				return
			}
		}
	}
}

// Cursor walks the type map of count instances of a Map, in order.
type Cursor struct {
	m     *Map
	count int
	inst  int // current instance
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

// Next returns the offset and length of the next piece, at most max
// bytes; n is 0 at the end.
func (c *Cursor) Next(max int) (off, n int) {
	if c.inst >= c.count {
		return 0, 0
	}
	r := c.m.runs[c.r]
	off = c.inst*c.m.extent + r.off + c.pos
	n = min(r.n-c.pos, max)
	c.pos += n
	if c.pos == r.n {
		c.pos = 0
		c.r++
		if c.r == len(c.m.runs) {
			c.r = 0
			c.inst++
		}
	}
	return off, n
}

// Zip calls fn for matching pieces of two type maps with the same number
// of bytes, split where either side's pieces end.
func Zip(a, b Cursor, fn func(aOff, bOff, n int)) {
	for a.inst < a.count && b.inst < b.count {
		an := a.m.runs[a.r].n - a.pos
		bn := b.m.runs[b.r].n - b.pos
		k := min(an, bn)
		ao, _ := a.Next(k)
		bo, _ := b.Next(k)
		fn(ao, bo, k)
	}
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
