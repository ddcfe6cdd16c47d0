package mpitype

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// ref is a reference type map written straight from MPI-4.1 5.1's
// definitions: every entry's displacement and size, in type-map order,
// and the bounds (explicit ones flagged), with none of the engine's tiles,
// merging or fast paths.
type ref struct {
	offs, sizes []int
	lb, ub      int
	mlb, mub    bool
	align       int
}

func refBasic(b Basic) ref {
	return ref{offs: []int{0}, sizes: []int{b.Size()}, ub: b.Size(), align: b.Align()}
}

func (r ref) extent() int { return r.ub - r.lb }

// refPlace lays out n copies of each part's type at disp, step apart.
func refPlace(parts []struct {
	disp, n, step int
	t             ref
}, pad bool) ref {
	var out ref
	lbSet, ubSet, mlbSet, mubSet := false, false, false, false
	var dlb, dub, mlb, mub int
	out.align = 1
	for _, p := range parts {
		if p.n == 0 || (len(p.t.offs) == 0 && !p.t.mlb && !p.t.mub) {
			continue
		}
		if len(p.t.offs) > 0 {
			out.align = max(out.align, p.t.align)
		}
		for j := range p.n {
			base := p.disp + j*p.step
			for k := range p.t.offs {
				out.offs = append(out.offs, base+p.t.offs[k])
				out.sizes = append(out.sizes, p.t.sizes[k])
			}
			lo, hi := base+p.t.lb, base+p.t.ub
			if p.t.mlb {
				if !mlbSet || lo < mlb {
					mlbSet, mlb = true, lo
				}
			} else if !lbSet || lo < dlb {
				lbSet, dlb = true, lo
			}
			if p.t.mub {
				if !mubSet || hi > mub {
					mubSet, mub = true, hi
				}
			} else if !ubSet || hi > dub {
				ubSet, dub = true, hi
			}
		}
	}
	switch {
	case mlbSet:
		out.lb, out.mlb = mlb, true
	case lbSet:
		out.lb = dlb
	}
	out.ub = out.lb
	switch {
	case mubSet:
		out.ub, out.mub = mub, true
	case ubSet:
		out.ub = dub
	}
	if pad && !out.mlb && !out.mub && out.ub > out.lb {
		if r := (out.ub - out.lb) % out.align; r != 0 {
			out.ub += out.align - r
		}
	}
	return out
}

type part = struct {
	disp, n, step int
	t             ref
}

// randomType builds a random datatype and its reference map together.
func randomType(rng *rand.Rand, depth int) (Datatype, ref) {
	basics := []Basic{BasicInt8, BasicInt32, BasicFloat64, BasicInt16, BasicComplex64}
	if depth == 0 || rng.Intn(4) == 0 {
		b := basics[rng.Intn(len(basics))]
		return Predefined(b), refBasic(b)
	}
	old, r := randomType(rng, depth-1)
	ext := r.extent()
	switch rng.Intn(6) {
	case 0:
		n := rng.Intn(4)
		return Contiguous(n, old), refPlace([]part{{0, n, ext, r}}, false)
	case 1, 2:
		count, bl, stride := rng.Intn(4), rng.Intn(3), rng.Intn(9)-4
		if rng.Intn(2) == 0 { // hvector, bytes
			var ps []part
			for i := range count {
				ps = append(ps, part{i * stride * 3, bl, ext, r})
			}
			rf := refPlace(ps, false)
			rf.align = max(rf.align, r.align) // an empty vector keeps its old type's alignment
			return HVectorOf(count, bl, stride*3, old), rf
		}
		var ps []part
		for i := range count {
			ps = append(ps, part{i * stride * ext, bl, ext, r})
		}
		rf := refPlace(ps, false)
		rf.align = max(rf.align, r.align)
		return VectorOf(count, bl, stride, old), rf
	case 3:
		n := rng.Intn(4)
		var bs []Block
		var ps []part
		for range n {
			d, c := rng.Intn(41)-20, rng.Intn(3)
			bs = append(bs, Block{d, c, old})
			ps = append(ps, part{d, c, ext, r})
		}
		return BlocksOf(bs), refPlace(ps, false)
	case 4:
		o2, r2 := randomType(rng, depth-1)
		d := rng.Intn(33)
		return StructOf([]Block{{0, 1, old}, {d, 2, o2}}), refPlace([]part{{0, 1, ext, r}, {d, 2, r2.extent(), r2}}, true)
	default:
		lb, e := rng.Intn(17)-8, rng.Intn(24)+1
		rr := r
		rr.lb, rr.ub, rr.mlb, rr.mub = lb, lb+e, true, true
		return ResizedOf(old, lb, e), rr
	}
}

// TestRandomTypeMaps checks the engine's bounds, size and packing of
// random type maps against the reference.
func TestRandomTypeMaps(t *testing.T) {
	rng := rand.New(rand.NewSource(35))
	for it := range 1000 {
		dt, r := randomType(rng, 3)
		require.NoError(t, dt.Err(), "iteration %d", it)
		m := MapOf(dt)
		size := 0
		for _, s := range r.sizes {
			size += s
		}
		require.Equal(t, size, m.Size(), "iteration %d: size", it)
		require.Equal(t, r.lb, m.LB(), "iteration %d: lb", it)
		require.Equal(t, r.extent(), m.Extent(), "iteration %d: extent %+v %+v", it, r, *m)
		if len(r.offs) == 0 {
			continue
		}
		tlb, tub := r.offs[0], r.offs[0]+r.sizes[0]
		for k := range r.offs {
			tlb, tub = min(tlb, r.offs[k]), max(tub, r.offs[k]+r.sizes[k])
		}
		require.Equal(t, tlb, m.TrueLB(), "iteration %d: true lb", it)
		require.Equal(t, tub-tlb, m.TrueExtent(), "iteration %d: true extent", it)
		// Pack two instances (when the extent allows) of a buffer whose
		// byte i holds i, from the true lower bound.
		count := 1
		if m.Extent() > 0 {
			count = 2
		}
		span := m.Span(count)
		src := make([]byte, span)
		for i := range src {
			src[i] = byte(i * 7)
		}
		got := make([]byte, count*size)
		require.Equal(t, count*size, m.Pack(got, src, count))
		var want []byte
		for i := range count {
			for k := range r.offs {
				at := i*m.Extent() + r.offs[k] - tlb
				want = append(want, src[at:at+r.sizes[k]]...)
			}
		}
		require.Equal(t, want, got, "iteration %d: packed bytes", it)
		if !m.Overlap() {
			back := make([]byte, span)
			m.Unpack(back, got, count)
			for i := range count {
				for k := range r.offs {
					at := i*m.Extent() + r.offs[k] - tlb
					require.Equal(t, src[at:at+r.sizes[k]], back[at:at+r.sizes[k]], "iteration %d: unpacked", it)
				}
			}
		}
		// The cursor walks the same bytes.
		var walked []byte
		c := m.Cursor(count)
		for {
			off, n := c.Next(1 + rng.Intn(8))
			if n == 0 {
				break
			}
			walked = append(walked, src[off:off+n]...)
		}
		require.Equal(t, want, walked, "iteration %d: cursor", it)
	}
}

func TestExternal32(t *testing.T) {
	s := MapOf(StructOf([]Block{{0, 1, Predefined(BasicInt8)}, {8, 1, Predefined(BasicFloat64)}, {16, 3, Predefined(BasicInt32)}}))
	require.Equal(t, 21, s.ExternalSize(1))
	src := make([]byte, 32)
	src[0] = 'a'
	copy(src[8:], []byte{0, 0, 0, 0, 0, 0, 0xf8, 0x3f}) // 1.5
	src[16], src[20], src[24] = 1, 2, 3
	out := make([]byte, 21)
	s.PackExternal(out, src, 1)
	require.Equal(t, []byte{'a', 0x3f, 0xf8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3}, out)
	back := make([]byte, 32)
	s.UnpackExternal(back, out, 1)
	require.Equal(t, src[:28], back[:28])
	// A C long in 4 bytes, sign kept.
	l := ExtMap(BasicInt64, 4)
	v := []byte{0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff} // -2
	e := make([]byte, 4)
	l.PackExternal(e, v, 1)
	require.Equal(t, []byte{0xff, 0xff, 0xff, 0xfe}, e)
	got := make([]byte, 8)
	l.UnpackExternal(got, e, 1)
	require.Equal(t, v, got)
	// A long double: x87 1.5 is binary128 0x3fff8000...
	ld := BasicMap(BasicLongDouble)
	x := make([]byte, 16)
	x[7], x[8], x[9] = 0xc0, 0xff, 0x3f
	q := make([]byte, 16)
	ld.PackExternal(q, x, 1)
	require.Equal(t, []byte{0x3f, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, q)
	y := make([]byte, 16)
	ld.UnpackExternal(y, q, 1)
	require.Equal(t, x[:10], y[:10])
}

func TestLongDoubleOps(t *testing.T) {
	enc := func(mant uint64, se uint16) []byte {
		b := make([]byte, 16)
		for i := range 8 {
			b[i] = byte(mant >> (8 * i))
		}
		b[8], b[9] = byte(se), byte(se>>8)
		return b
	}
	one := enc(1<<63, 0x3fff)
	two := enc(1<<63, 0x4000)
	three := enc(3<<62, 0x4000)
	d := append([]byte(nil), one...)
	Reduce(BasicLongDouble, OpSum, d, two)
	require.Equal(t, three[:10], d[:10], "1 + 2")
	Reduce(BasicLongDouble, OpProd, d, two)
	require.Equal(t, enc(3<<62, 0x4001)[:10], d[:10], "3 * 2")
	Reduce(BasicLongDouble, OpMin, d, one)
	require.Equal(t, one[:10], d[:10])
	Reduce(BasicLongDouble, OpMax, d, three)
	require.Equal(t, three[:10], d[:10])
	// 1 + 2^-63 is exact in 64 bits; 1 + 2^-64 rounds to even (1).
	tiny := enc(1<<63, 0x3fff-63)
	d = append([]byte(nil), one...)
	Reduce(BasicLongDouble, OpSum, d, tiny)
	require.Equal(t, enc(1<<63|1, 0x3fff)[:10], d[:10])
	d = append([]byte(nil), one...)
	Reduce(BasicLongDouble, OpSum, d, enc(1<<63, 0x3fff-64))
	require.Equal(t, one[:10], d[:10])
	// inf + -inf is NaN.
	inf, ninf := enc(1<<63, 0x7fff), enc(1<<63, 0xffff)
	Reduce(BasicLongDouble, OpSum, inf, ninf)
	require.Equal(t, uint16(0x7fff), (uint16(inf[9])<<8|uint16(inf[8]))&0x7fff)
	require.NotEqual(t, uint64(1<<63), uint64(inf[7])<<56)
}

// A strided vector of 8-byte words packs and unpacks word by word, and
// stops inside an instance when the packed side ends.
func TestStridedWords(t *testing.T) {
	for _, b := range []Basic{BasicInt32, BasicFloat64, BasicComplex128, BasicInt16} {
		sz := b.Size()
		m, err := Vector(5, 1, 3, &[]Map{BasicMap(b)}[0])
		require.NoError(t, err)
		src := make([]byte, m.Span(2))
		for i := range src {
			src[i] = byte(i)
		}
		full := make([]byte, 10*sz)
		require.Equal(t, 10*sz, m.Pack(full, src, 2))
		for k := range 10 {
			inst, j := k/5, k%5
			at := inst*m.Extent() + j*3*sz
			require.Equal(t, src[at:at+sz], full[k*sz:(k+1)*sz], "%v element %d", b, k)
		}
		part := make([]byte, 7*sz+1)
		require.Equal(t, len(part), m.Pack(part, src, 2))
		require.Equal(t, full[:len(part)], part)
		back := make([]byte, len(src))
		m.Unpack(back, full, 2)
		for k := range 10 {
			inst, j := k/5, k%5
			at := inst*m.Extent() + j*3*sz
			require.Equal(t, src[at:at+sz], back[at:at+sz])
		}
	}
}

// ElementBytes is Elements' inverse on a mixed map.
func TestElementBytes(t *testing.T) {
	m := MapOf(StructOf([]Block{{0, 1, Predefined(BasicInt32)}, {8, 2, Predefined(BasicFloat64)}}))
	for n := range 10 {
		b := m.ElementBytes(n)
		require.Equal(t, n, m.Elements(b), "%d elements in %d bytes", n, b)
	}
	require.Equal(t, 20+4, m.ElementBytes(4))
}
