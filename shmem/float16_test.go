package shmem

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

// float2Ref is an independent rounding for a 2-byte float format: every
// finite value of the 65536 patterns (value of, via the format's own
// decoding of sign, exponent and mantissa by formula), sorted, and a
// float64 rounded to the nearest one, ties to the even pattern, beyond
// the largest by half an ulp to infinity.
type float2Ref struct {
	vals []float64
	pats []uint16
	max  float64 // the largest finite value plus half its ulp
}

func newFloat2Ref(expBits, manBits int) *float2Ref {
	r := &float2Ref{}
	bias := 1<<(expBits-1) - 1
	for p := 0; p < 1<<16; p++ {
		e, m := p>>manBits&(1<<expBits-1), p&(1<<manBits-1)
		if e == 1<<expBits-1 {
			continue
		}
		var v float64
		if e == 0 {
			v = math.Ldexp(float64(m), 1-bias-manBits)
		} else {
			v = math.Ldexp(float64(m|1<<manBits), e-bias-manBits)
		}
		if p&0x8000 != 0 {
			v = -v
		}
		if v == 0 && p != 0 && p != 0x8000 {
			panic("ref")
		}
		r.vals, r.pats = append(r.vals, v), append(r.pats, uint16(p))
	}
	idx := make([]int, len(r.vals))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return r.vals[idx[a]] < r.vals[idx[b]] })
	vs, ps := make([]float64, len(idx)), make([]uint16, len(idx))
	for i, j := range idx {
		vs[i], ps[i] = r.vals[j], r.pats[j]
	}
	r.vals, r.pats = vs, ps
	top := vs[len(vs)-1]
	r.max = top + (top-vs[len(vs)-2])/2
	return r
}

// round is v's pattern (v not a NaN).
func (r *float2Ref) round(v float64, inf uint16) uint16 {
	if math.Abs(v) >= r.max {
		if v < 0 {
			return inf | 0x8000
		}
		return inf
	}
	if v == 0 {
		if math.Signbit(v) {
			return 0x8000
		}
		return 0
	}
	i := sort.SearchFloat64s(r.vals, v) // first >= v
	switch {
	case i == 0:
		return r.pats[0]
	case i == len(r.vals):
		return r.pats[i-1]
	case r.vals[i] == v:
		return r.pats[i]
	}
	lo, hi := r.vals[i-1], r.vals[i]
	var p uint16
	switch {
	case v-lo < hi-v:
		p = r.pats[i-1]
	case hi-v < v-lo:
		p = r.pats[i]
	case r.pats[i-1]&1 == 0:
		p = r.pats[i-1]
	default:
		p = r.pats[i]
	}
	if p&0x7fff == 0 { // to zero: the zero of v's sign
		return uint16(cFlagSign(v))
	}
	return p
}

// TestFloat2Reduce checks the 2-byte floats' conversions and combine
// against float2Ref: every pattern round-trips through float32, float32
// values round as the reference rounds them, and sum, prod, min and max
// of random pairs (and of the awkward values) are the correctly rounded
// results of the exact (float64) ones.
func TestFloat2Reduce(t *testing.T) {
	for _, f := range []struct {
		name     string
		ref      *float2Ref
		inf, nan uint16
		wide     func(uint16) float32
		narrow   func(float32) uint16
		fold     func(op ReduceOp, a, b uint16) uint16
	}{
		{"half", newFloat2Ref(5, 10), 0x7c00, 0x7e00,
			func(p uint16) float32 { return Float16(p).Float32() }, func(v float32) uint16 { return uint16(Float16From(v)) },
			func(op ReduceOp, a, b uint16) uint16 {
				x, y := []Float16{Float16(a)}, []Float16{Float16(b)}
				combine(op, x, y)
				return uint16(x[0])
			}},
		{"bfloat16", newFloat2Ref(8, 7), 0x7f80, 0x7fc0,
			func(p uint16) float32 { return BFloat16(p).Float32() }, func(v float32) uint16 { return uint16(BFloat16From(v)) },
			func(op ReduceOp, a, b uint16) uint16 {
				x, y := []BFloat16{BFloat16(a)}, []BFloat16{BFloat16(b)}
				combine(op, x, y)
				return uint16(x[0])
			}},
	} {
		t.Run(f.name, func(t *testing.T) {
			isNaN := func(p uint16) bool { return p&0x7fff > f.inf }
			for p := 0; p < 1<<16; p++ {
				w := f.wide(uint16(p))
				if isNaN(uint16(p)) {
					require.True(t, w != w, "%#x", p)
					require.True(t, isNaN(f.narrow(w)), "%#x", p)
					continue
				}
				require.Equal(t, uint16(p), f.narrow(w), "round trip of %#x", p)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			for range 200000 {
				v := math.Float32frombits(rng.Uint32())
				if v != v {
					continue
				}
				require.Equal(t, f.ref.round(float64(v), f.inf), f.narrow(v), "rounding %g (%#x)", v, math.Float32bits(v))
			}
			special := []uint16{0, 0x8000, 1, 0x8001, f.inf, f.inf | 0x8000, f.inf - 1, 0x3c00, 0x3f80, 0x0400, 0x0080}
			for range 100000 {
				a, b := uint16(rng.Uint32()), uint16(rng.Uint32())
				if rng.IntN(8) == 0 {
					a = special[rng.IntN(len(special))]
				}
				if isNaN(a) || isNaN(b) {
					for _, op := range []ReduceOp{ReduceSum, ReduceProd, ReduceMin, ReduceMax} {
						require.True(t, isNaN(f.fold(op, a, b)), "%v of %#x %#x", op, a, b)
					}
					continue
				}
				x, y := float64(f.wide(a)), float64(f.wide(b))
				for _, c := range []struct {
					op   ReduceOp
					want float64
				}{{ReduceSum, x + y}, {ReduceProd, x * y}, {ReduceMin, min(x, y)}, {ReduceMax, max(x, y)}} {
					got := f.fold(c.op, a, b)
					if c.want != c.want { // inf - inf, 0 * inf
						require.True(t, isNaN(got), "%v of %#x %#x", c.op, a, b)
						continue
					}
					want := f.ref.round(c.want, f.inf)
					if math.IsInf(c.want, 0) {
						want = f.inf | uint16(cFlagSign(c.want))
					}
					require.Equal(t, want, got, "%v of %#x (%g) and %#x (%g)", c.op, a, x, b, y)
				}
			}
		})
	}
}

func cFlagSign(v float64) int {
	if math.Signbit(v) {
		return 0x8000
	}
	return 0
}
