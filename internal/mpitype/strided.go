package mpitype

import "unsafe"

// The packing loops. A vector (one run per tile, tiles rstride bytes
// apart) whose run is 4 or 8 bytes, or 16 to maxMoveN (a strided vector
// of ints, doubles or complex numbers, or of blocks of them: the most
// common derived types) moves through the amd64 kernels
// (gather_amd64.s); elsewhere (and with the purego tag) a vector of runs
// of 4 or 8 to 64 bytes moves one fixed-size word per run, not by a copy
// call, which costs more than the bytes it moves; other runs, and the
// runs of any other map, move by size class (move).

// useGather is haveGather; tests turn it off to compare the gather
// kernels with the Go loops.
var useGather = haveGather

// strided moves count instances of m between its layout in lay and the
// packed bytes in pk (pack: lay to pk), as far as pk reaches, and returns
// the bytes moved.
func (m *Map) strided(pk, lay []byte, count int, pack bool) int {
	r := m.runs[0]
	if useGather && (r.n == 4 || r.n == 8 || r.n >= 16 && r.n <= maxMoveN) {
		return m.gathered(pk, lay, count, pack)
	}
	switch r.n {
	case 4:
		return stridedWords[uint32](m, pk, lay, count, pack)
	case 8:
		return stridedWords[uint64](m, pk, lay, count, pack)
	case 16:
		return stridedWords[[2]uint64](m, pk, lay, count, pack)
	case 24:
		return stridedWords[[3]uint64](m, pk, lay, count, pack)
	case 32:
		return stridedWords[[4]uint64](m, pk, lay, count, pack)
	case 40:
		return stridedWords[[5]uint64](m, pk, lay, count, pack)
	case 48:
		return stridedWords[[6]uint64](m, pk, lay, count, pack)
	case 56:
		return stridedWords[[7]uint64](m, pk, lay, count, pack)
	case 64:
		return stridedWords[[8]uint64](m, pk, lay, count, pack)
	}
	k := 0
	for i := range count {
		base := i*m.extent + r.off
		for t := range m.reps {
			off := base + t*m.rstride
			n := min(r.n, len(pk)-k)
			if pack {
				move(pk[k:k+n], lay[off:off+n])
			} else {
				move(lay[off:off+n], pk[k:k+n])
			}
			if k += n; k == len(pk) {
				return k
			}
		}
	}
	return k
}

// move copies src into dst (of the same length) by size class: up to 16
// bytes as two loads and two stores that may overlap, up to 64 as 8-byte
// words and an overlapping last one, longer ones by copy.
func move(dst, src []byte) {
	n := len(src)
	if n > 64 || len(dst) != n {
		copy(dst, src)
		return
	}
	d, s := unsafe.Pointer(unsafe.SliceData(dst)), unsafe.Pointer(unsafe.SliceData(src))
	switch {
	case n >= 8:
		last := *(*uint64)(unsafe.Add(s, n-8)) // loaded first: src and dst may overlap
		for i := 0; i+8 < n; i += 8 {
			*(*uint64)(unsafe.Add(d, i)) = *(*uint64)(unsafe.Add(s, i))
		}
		*(*uint64)(unsafe.Add(d, n-8)) = last
	case n >= 4:
		a, b := *(*uint32)(s), *(*uint32)(unsafe.Add(s, n-4))
		*(*uint32)(d), *(*uint32)(unsafe.Add(d, n-4)) = a, b
	case n >= 2:
		a, b := *(*uint16)(s), *(*uint16)(unsafe.Add(s, n-2))
		*(*uint16)(d), *(*uint16)(unsafe.Add(d, n-2)) = a, b
	case n == 1:
		*(*byte)(d) = *(*byte)(s)
	}
}

// word is a moved element: its size in bytes is n.
type word interface {
	uint32 | uint64 | [2]uint64 | [3]uint64 | [4]uint64 | [5]uint64 | [6]uint64 | [7]uint64 | [8]uint64
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
				for ; n <= 8 && t+8 <= reps; t += 8 { // words: eight loads before the stores
					a0, a1 := *(*W)(s), *(*W)(unsafe.Add(s, stride))
					a2, a3 := *(*W)(unsafe.Add(s, 2*stride)), *(*W)(unsafe.Add(s, 3*stride))
					a4, a5 := *(*W)(unsafe.Add(s, 4*stride)), *(*W)(unsafe.Add(s, 5*stride))
					a6, a7 := *(*W)(unsafe.Add(s, 6*stride)), *(*W)(unsafe.Add(s, 7*stride))
					dw := (*[8]W)(d)
					dw[0], dw[1], dw[2], dw[3], dw[4], dw[5], dw[6], dw[7] = a0, a1, a2, a3, a4, a5, a6, a7
					if t+8 < reps {
						d, s = unsafe.Add(d, 8*n), unsafe.Add(s, 8*stride)
					}
				}
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
				t := 0
				for ; n <= 8 && t+8 <= reps; t += 8 {
					dw := (*[8]W)(d)
					a0, a1, a2, a3, a4, a5, a6, a7 := dw[0], dw[1], dw[2], dw[3], dw[4], dw[5], dw[6], dw[7]
					*(*W)(s), *(*W)(unsafe.Add(s, stride)) = a0, a1
					*(*W)(unsafe.Add(s, 2*stride)), *(*W)(unsafe.Add(s, 3*stride)) = a2, a3
					*(*W)(unsafe.Add(s, 4*stride)), *(*W)(unsafe.Add(s, 5*stride)) = a4, a5
					*(*W)(unsafe.Add(s, 6*stride)), *(*W)(unsafe.Add(s, 7*stride)) = a6, a7
					if t+8 < reps {
						d, s = unsafe.Add(d, 8*n), unsafe.Add(s, 8*stride)
					}
				}
				for ; t+4 <= reps; t += 4 {
					a, b := *(*W)(d), *(*W)(unsafe.Add(d, n))
					c, e := *(*W)(unsafe.Add(d, 2*n)), *(*W)(unsafe.Add(d, 3*n))
					*(*W)(s), *(*W)(unsafe.Add(s, stride)), *(*W)(unsafe.Add(s, 2*stride)), *(*W)(unsafe.Add(s, 3*stride)) = a, b, c, e
					if t+4 < reps {
						d, s = unsafe.Add(d, 4*n), unsafe.Add(s, 4*stride)
					}
				}
				for ; t < reps; t++ {
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

// maxMoveN is the longest run moveN moves: past it a copy call per run
// costs little beside its bytes.
const maxMoveN = 512

// gatherChunk bounds the elements of one gather call: a kernel cannot be
// preempted, and 32 Ki elements take some microseconds.
const gatherChunk = 1 << 15

// gathered is strided for a vector of runs of 4, 8 or 16 to maxMoveN
// bytes, through the kernels.
func (m *Map) gathered(pk, lay []byte, count int, pack bool) int {
	r := m.runs[0]
	n, stride := r.n, m.rstride
	reps, ext := m.reps, m.extent
	if ext == reps*stride && count > 1 {
		// Each instance continues the last one's stride (a vector of
		// count*reps elements): one run of kernel calls, not count.
		reps, ext, count = reps*count, reps*count*stride, 1
	}
	k := 0
	for i := range count {
		base := i*ext + r.off
		whole := min(reps, (len(pk)-k)/n) // whole elements that fit
		if whole > 0 {
			// Bounds checked as a copy would check them: the first and
			// last element (a stride may be negative) and the packed bytes.
			last := base + (whole-1)*stride
			_, _, _ = lay[base:base+n], lay[last:last+n], pk[k:k+whole*n]
			d := unsafe.Add(unsafe.Pointer(unsafe.SliceData(pk)), k)
			for at := 0; at < whole; at += gatherChunk {
				c := min(gatherChunk, whole-at)
				s := unsafe.Add(unsafe.Pointer(unsafe.SliceData(lay)), base+at*stride)
				dc := unsafe.Add(d, at*n)
				switch {
				case n == 16 && pack:
					move16(dc, s, c, 16, stride)
				case n == 16:
					move16(s, dc, c, stride, 16)
				case n > 16 && pack:
					moveN(dc, s, c, n, n, stride)
				case n > 16:
					moveN(s, dc, c, n, stride, n)
				case n == 8 && pack:
					gather8(dc, s, c, stride)
				case n == 8:
					scatter8(s, dc, c, stride)
				case !pack:
					scatter4(s, dc, c, stride)
				case stride == 8:
					// Every other int: 16-byte loads, each reading the
					// next element's bytes too, so the last is left to
					// gather4.
					g := (c - 1) &^ 7
					gather4x2(dc, s, g)
					gather4(unsafe.Add(dc, 4*g), unsafe.Add(s, 8*g), c-g, 8)
				default:
					gather4(dc, s, c, stride)
				}
			}
		}
		k += whole * n
		if whole < reps { // pk ends inside this instance: the partial element
			off := base + whole*stride
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
