package mpitype

import (
	"errors"
	"fmt"
	"sort"
)

// Part is N copies of the map Old, the first at Disp bytes from the
// origin, each next one Step bytes after the one before (Old's extent for
// a block of an indexed type or a struct). Every constructor is a list of
// parts (Place) or one part repeated (Repeat).
type Part struct {
	Disp, N, Step int
	Old           *Map
}

// errPieces is the refusal of a map whose runs would not fit in memory
// bounds.
var errPieces = fmt.Errorf("datatype with more than %d contiguous pieces", MaxRuns)

// bounds accumulates the bounds of parts as MPI-4.1 5.1 defines them:
// the lower bound is the least explicit lower bound of the parts (a
// resized type's, sticky through the types built on it) if any part has
// one, else the least lower bound of the parts; the upper bound likewise;
// the true bounds are those of the data alone. Parts of no copies do not
// count, nor parts of an old type that has neither data nor explicit
// bounds.
type bounds struct {
	mlbSet, dlbSet, mubSet, dubSet, tSet bool
	mlb, dlb, mub, dub, tlb, tub         int
	align                                int
}

func (b *bounds) add(old *Map, disp, n, step int) {
	if n <= 0 {
		return
	}
	lo, hi := disp+min(0, (n-1)*step), disp+max(0, (n-1)*step)
	if old.elems == 0 && !old.mlb && !old.mub {
		return
	}
	if old.elems > 0 { // alignment is of the type map's entries
		b.align = max(b.align, old.Align())
	}
	setMin := func(set *bool, v *int, x int) {
		if !*set || x < *v {
			*set, *v = true, x
		}
	}
	setMax := func(set *bool, v *int, x int) {
		if !*set || x > *v {
			*set, *v = true, x
		}
	}
	if old.mlb {
		setMin(&b.mlbSet, &b.mlb, lo+old.lb)
	} else {
		setMin(&b.dlbSet, &b.dlb, lo+old.lb)
	}
	if old.mub {
		setMax(&b.mubSet, &b.mub, hi+old.UB())
	} else {
		setMax(&b.dubSet, &b.dub, hi+old.UB())
	}
	if old.elems > 0 {
		lo, hi := lo+old.tlb, hi+old.tlb+old.trueExt
		if !b.tSet {
			b.tSet, b.tlb, b.tub = true, lo, hi
		}
		b.tlb, b.tub = min(b.tlb, lo), max(b.tub, hi)
	}
}

// set writes the bounds into m; pad rounds an extent without explicit
// bounds up to a multiple of the largest alignment (a struct's epsilon).
func (b *bounds) set(m *Map, pad bool) {
	switch {
	case b.mlbSet:
		m.lb, m.mlb = b.mlb, true
	case b.dlbSet:
		m.lb = b.dlb
	}
	ub := m.lb
	switch {
	case b.mubSet:
		ub, m.mub = b.mub, true
	case b.dubSet:
		ub = b.dub
	}
	m.align = max(b.align, 1)
	if pad && !m.mlb && !m.mub && ub > m.lb {
		if r := (ub - m.lb) % m.align; r != 0 {
			ub += m.align - r
		}
	}
	m.extent = ub - m.lb
	if b.tSet {
		m.tlb, m.trueExt = b.tlb, b.tub-b.tlb
	}
}

// dense reports whether copies of m one extent apart are one run.
func (m *Map) dense() bool {
	return m.elems > 0 && m.reps == 1 && len(m.runs) == 1 && m.runs[0].off == 0 && m.runs[0].n == m.extent
}

// mergeBasic combines the basic types of two maps.
func mergeBasic(a, b Basic) Basic {
	switch {
	case a == BasicInvalid:
		return b
	case b == BasicInvalid || a == b:
		return a
	}
	return BasicMixed
}

// Place is the map of parts laid out in order (the indexed types, structs,
// subarrays and darrays); pad gives a struct's alignment padding.
func Place(parts []Part, pad bool) (Map, error) {
	var b bounds
	m := Map{reps: 1}
	pieces := 0
	for _, p := range parts {
		if p.N < 0 {
			return Map{}, fmt.Errorf("%d copies", p.N)
		}
		b.add(p.Old, p.Disp, p.N, p.Step)
		if p.N == 0 || p.Old.elems == 0 {
			if m.basic == BasicInvalid && p.Old.basic != BasicMixed {
				m.align = p.Old.Align()
			}
			continue
		}
		m.basic = mergeBasic(m.basic, p.Old.basic)
		if !p.Old.dense() || p.Step != p.Old.extent || len(p.Old.sig) != 1 {
			if !Fits(p.N, p.Old.Pieces(), MaxRuns-pieces) {
				return Map{}, errPieces
			}
			pieces += p.N * p.Old.Pieces()
		} else {
			pieces++
		}
		if pieces > MaxRuns {
			return Map{}, errPieces
		}
		if !Fits(p.N, p.Old.elems, MaxBytes) || !Fits(p.N, p.Old.size, MaxBytes-m.size) {
			return Map{}, errors.New("datatype of more than 2^48 bytes")
		}
		m.elems += p.N * p.Old.elems
		m.size += p.N * p.Old.size
		m.overlap = m.overlap || p.Old.overlap
	}
	b.set(&m, pad)
	if m.elems == 0 {
		if m.basic == BasicInvalid && len(parts) > 0 {
			m.basic = parts[0].Old.basic
		}
		return m, nil
	}
	m.runs = make([]run, 0, min(pieces, 1024))
	for _, p := range parts {
		o := p.Old
		if p.N == 0 || o.elems == 0 {
			continue
		}
		if o.dense() && p.Step == o.extent && len(o.sig) == 1 {
			m.add(run{p.Disp + o.tlb - m.tlb, p.N * o.size})
			m.sig = appendSeg(m.sig, Seg{o.sig[0].B, o.sig[0].Ext, p.N * o.elems})
			continue
		}
		for j := range p.N {
			base := p.Disp + j*p.Step + o.tlb - m.tlb
			for t := range o.reps {
				for _, r := range o.runs {
					m.add(run{base + t*o.rstride + r.off, r.n})
				}
				for _, s := range o.sig {
					m.sig = appendSeg(m.sig, s)
				}
			}
		}
	}
	m.overlap = m.overlap || overlapping(m.runs)
	return m, nil
}

func (m *Map) add(r run) {
	if r.n == 0 {
		return
	}
	if k := len(m.runs); k > 0 && m.runs[k-1].off+m.runs[k-1].n == r.off {
		m.runs[k-1].n += r.n
		return
	}
	m.runs = append(m.runs, r)
}

// overlapping reports whether two runs share a byte.
func overlapping(rs []run) bool {
	if len(rs) < 2 {
		return false
	}
	sorted := sort.SliceIsSorted(rs, func(i, j int) bool { return rs[i].off < rs[j].off })
	if !sorted {
		rs = append([]run(nil), rs...)
		sort.Slice(rs, func(i, j int) bool { return rs[i].off < rs[j].off })
	}
	for k := 1; k < len(rs); k++ {
		if rs[k].off < rs[k-1].off+rs[k-1].n {
			return true
		}
	}
	return false
}

// Repeat is the map of count copies of old, the origins of consecutive
// copies stride bytes apart (any sign): MPI_Type_contiguous with the old
// type's extent as stride, and the hvector of a vector's blocks. The old
// map becomes the tile of the new one, so a repeat of a contiguous block
// stays one run per copy however many copies there are.
func Repeat(count, stride int, old *Map) (Map, error) {
	if count < 0 {
		return Map{}, fmt.Errorf("%d copies", count)
	}
	var b bounds
	b.add(old, 0, count, stride)
	m := Map{basic: old.basic, reps: 1, overlap: old.overlap}
	b.set(&m, false)
	if count == 0 || old.elems == 0 {
		m.align = old.Align()
		return m, nil
	}
	if !Fits(count, old.size, MaxBytes) {
		return Map{}, errors.New("datatype of more than 2^48 bytes")
	}
	m.elems, m.size = count*old.elems, count*old.size
	shift := old.tlb - m.tlb // tile 0's data, from the new true lb
	switch {
	case old.dense() && stride == old.extent && len(old.sig) == 1:
		m.runs = []run{{shift, m.size}}
		m.sig = []Seg{{old.sig[0].B, old.sig[0].Ext, m.elems}}
		return m, nil
	case old.reps > 1 && stride == old.reps*old.rstride:
		// Copies of a regular map continue its tiling.
		m.reps, m.rstride = count*old.reps, old.rstride
	case old.reps > 1:
		if !Fits(old.reps, len(old.runs), MaxRuns) {
			return Map{}, errPieces
		}
		m.reps, m.rstride = count, stride
		flat := Map{}
		for t := range old.reps {
			for _, r := range old.runs {
				flat.add(run{t*old.rstride + r.off, r.n})
			}
		}
		shifted(&m, flat.runs, shift)
		for range old.reps {
			for _, s := range old.sig {
				m.sig = appendSeg(m.sig, s)
			}
		}
		m.overlap = m.overlap || tilesOverlap(&m)
		return m, nil
	default:
		m.reps, m.rstride = count, stride
	}
	shifted(&m, old.runs, shift)
	m.sig = old.sig
	if m.reps > 1 && len(m.runs) == 1 && m.runs[0].n == m.rstride && len(m.sig) == 1 {
		// Tiles that touch are one run.
		m.runs[0].n *= m.reps
		m.sig = []Seg{{m.sig[0].B, m.sig[0].Ext, m.elems}}
		m.reps, m.rstride = 1, 0
	}
	m.overlap = m.overlap || tilesOverlap(&m)
	return m, nil
}

func shifted(m *Map, rs []run, shift int) {
	m.runs = make([]run, len(rs))
	for i, r := range rs {
		m.runs[i] = run{r.off + shift, r.n}
	}
}

// tilesOverlap reports whether two tiles of m share a byte. Tiles d apart
// can only meet while d*|rstride| is shorter than a tile's span, so each
// such distance is one merge of the sorted tile against itself shifted:
// exact for interleaved tiles (the columns of a transpose, one element
// apart, each a thousand rows long) up to overlapWork run comparisons,
// and true (as if they met) past that.
func tilesOverlap(m *Map) bool {
	if m.reps < 2 {
		return false
	}
	lo, hi := m.runs[0].off, 0
	for _, r := range m.runs {
		lo, hi = min(lo, r.off), max(hi, r.off+r.n)
	}
	s := max(m.rstride, -m.rstride)
	if s >= hi-lo {
		return false
	}
	if s == 0 {
		return true
	}
	near := min(m.reps-1, (hi-lo-1)/s) // the farthest tiles that can meet
	if !Fits(near, len(m.runs), overlapWork) {
		return true
	}
	tile := append([]run(nil), m.runs...)
	sort.Slice(tile, func(i, j int) bool { return tile[i].off < tile[j].off })
	for d := 1; d <= near; d++ {
		if shiftedMeet(tile, d*s) {
			return true
		}
	}
	return false
}

// overlapWork bounds the run comparisons of tilesOverlap.
const overlapWork = 1 << 26

// shiftedMeet reports whether the sorted, disjoint runs rs share a byte
// with themselves moved shift bytes up.
func shiftedMeet(rs []run, shift int) bool {
	for i, j := 0, 0; i < len(rs) && j < len(rs); {
		a, b := rs[i], run{rs[j].off + shift, rs[j].n}
		switch {
		case a.off+a.n <= b.off:
			i++
		case b.off+b.n <= a.off:
			j++
		default:
			return true
		}
	}
	return false
}

// Vector is count blocks of blocklen copies of old, the origins of
// consecutive blocks stride copies of old apart (MPI_Type_vector).
func Vector(count, blocklen, stride int, old *Map) (Map, error) {
	return HVector(count, blocklen, stride*old.extent, old)
}

// HVector is Vector with the stride in bytes (MPI_Type_create_hvector).
func HVector(count, blocklen, stride int, old *Map) (Map, error) {
	if count < 0 || blocklen < 0 {
		return Map{}, fmt.Errorf("vector of %d blocks of %d", count, blocklen)
	}
	block, err := Repeat(blocklen, old.extent, old)
	if err != nil {
		return Map{}, err
	}
	return Repeat(count, stride, &block)
}

// Resized is old with lower bound lb and extent extent
// (MPI_Type_create_resized): explicit bounds, which the types built on it
// keep. The data stays where it was.
func Resized(old *Map, lb, extent int) Map {
	m := *old
	m.predefined = false
	m.lb, m.extent, m.mlb, m.mub = lb, extent, true, true
	return m
}

// Dup is a copy of old's map as a derived type (MPI_Type_dup).
func Dup(old *Map) Map {
	m := *old
	m.predefined = false
	return m
}
