package mpitype

import "unsafe"

// The packing loop of a vector: one run per tile, tiles rstride bytes
// apart. A run of 4, 8 or 16 bytes (a strided vector of ints or doubles,
// the most common derived type) is moved as one word per element, not by
// a copy call, which costs more than the bytes it moves.

// strided moves count instances of m between its layout in lay and the
// packed bytes in pk (pack: lay to pk), as far as pk reaches, and returns
// the bytes moved.
func (m *Map) strided(pk, lay []byte, count int, pack bool) int {
	r := m.runs[0]
	switch r.n {
	case 4:
		return stridedWords[uint32](m, pk, lay, count, pack)
	case 8:
		return stridedWords[uint64](m, pk, lay, count, pack)
	case 16:
		return stridedWords[[2]uint64](m, pk, lay, count, pack)
	}
	k := 0
	for i := range count {
		base := i*m.extent + r.off
		for t := range m.reps {
			off := base + t*m.rstride
			var n int
			if pack {
				n = copy(pk[k:], lay[off:off+r.n])
			} else {
				n = copy(lay[off:off+r.n], pk[k:])
			}
			if k += n; k == len(pk) {
				return k
			}
		}
	}
	return k
}

// word is a moved element: its size in bytes is n.
type word interface {
	uint32 | uint64 | [2]uint64
}

func stridedWords[W word](m *Map, pk, lay []byte, count int, pack bool) int {
	var w W
	n := int(unsafe.Sizeof(w))
	stride := m.rstride
	r := m.runs[0]
	k := 0
	for i := range count {
		base := i*m.extent + r.off
		reps := min(m.reps, (len(pk)-k)/n) // whole words that fit
		if reps > 0 {                      // bounds checked as a copy would check them
			last := base + (reps-1)*m.rstride
			_, _ = lay[base:base+n], lay[last:last+n]
		}
		// A pointer is advanced only to a word that is then moved, never
		// past the last one: a pointer a stride beyond the run may point
		// outside lay's allocation (or pk's), which -race's checkptr
		// rejects and the GC may misread. The branch is predicted.
		if reps > 0 {
			d := unsafe.Add(unsafe.Pointer(unsafe.SliceData(pk)), k)
			s := unsafe.Add(unsafe.Pointer(unsafe.SliceData(lay)), base)
			if pack {
				t := 0
				for ; t+4 <= reps; t += 4 { // four loads before the stores: they overlap
					a, b := *(*W)(s), *(*W)(unsafe.Add(s, stride))
					c, e := *(*W)(unsafe.Add(s, 2*stride)), *(*W)(unsafe.Add(s, 3*stride))
					*(*W)(d), *(*W)(unsafe.Add(d, n)), *(*W)(unsafe.Add(d, 2*n)), *(*W)(unsafe.Add(d, 3*n)) = a, b, c, e
					if t+4 < reps {
						d, s = unsafe.Add(d, 4*n), unsafe.Add(s, 4*stride)
					}
				}
				for ; t < reps; t++ {
					*(*W)(d) = *(*W)(s)
					if t+1 < reps {
						d, s = unsafe.Add(d, n), unsafe.Add(s, stride)
					}
				}
			} else {
				for t := range reps {
					*(*W)(s) = *(*W)(d)
					if t+1 < reps {
						d, s = unsafe.Add(d, n), unsafe.Add(s, stride)
					}
				}
			}
		}
		k += reps * n
		if reps < m.reps { // pk ends inside this instance: the partial word
			off := base + reps*m.rstride
			if pack {
				k += copy(pk[k:], lay[off:off+n])
			} else {
				k += copy(lay[off:off+n], pk[k:])
			}
			return k
		}
	}
	return k
}
