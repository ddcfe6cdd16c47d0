package mpitype

import "sort"

// Block is count copies of a datatype placed disp bytes from the start of
// an instance: one block of MPI_Type_create_struct or of the indexed
// types (whose element displacements the caller turns into bytes).
type Block struct {
	Disp, Count int
	Old         Datatype
}

// BlocksOf is the datatype of blocks laid out in order
// (MPI_Type_create_struct, MPI_Type_indexed and the h- and block forms).
// Every map here is of one basic type with its lower bound at 0, so the
// blocks must share a basic type (a struct of an int and a double is
// refused) and start at non-negative displacements, one at 0 or beyond
// unless the datatype is used one instance at a time: the extent runs from
// 0 to the end of the last byte. Entries that overlap give a datatype only
// reads may use, as for vectors.
func BlocksOf(blocks []Block) Datatype {
	if len(blocks) > MaxRuns {
		return typeErr("%d blocks: at most %d", len(blocks), MaxRuns)
	}
	m := Map{basic: BasicInvalid}
	type span struct{ off, n int }
	var all []span
	for i, b := range blocks {
		o := b.Old.h
		switch {
		case o == nil:
			return typeErr("block %d: an invalid datatype", i)
		case o.err != nil:
			return b.Old
		case o.freed.Load():
			return typeErr("block %d: a freed datatype", i)
		case b.Count < 0 || b.Disp < 0:
			return typeErr("block %d: %d elements at displacement %d (counts and displacements must not be negative here)", i, b.Count, b.Disp)
		case b.Count > MaxRuns || b.Disp > MaxBytes:
			return typeErr("block %d: %d elements at displacement %d is too large", i, b.Count, b.Disp)
		}
		if b.Count == 0 || o.elems == 0 {
			continue
		}
		if m.basic == BasicInvalid {
			m.basic = o.basic
		} else if m.basic != o.basic {
			return typeErr("blocks of %v and %v: a datatype here is of one basic type", m.basic, o.basic)
		}
		if float64(b.Disp)+float64(b.Count)*float64(o.Extent()) > MaxBytes {
			return typeErr("block %d spans more than %d bytes", i, MaxBytes)
		}
		if !Fits(b.Count, len(o.runs), MaxRuns-len(m.runs)) {
			return typeErr("datatype with more than %d contiguous pieces", MaxRuns)
		}
		m.overlap = m.overlap || o.overlap
		m.elems += b.Count * o.elems
		m.size += b.Count * o.size
		m.ub = max(m.ub, b.Disp+(b.Count-1)*o.extent+o.ub)
		for j := range b.Count {
			base := b.Disp + j*o.extent
			for _, r := range o.runs {
				m.add(run{base + r.off, r.n})
				all = append(all, span{base + r.off, r.n})
			}
		}
	}
	if m.basic == BasicInvalid { // no data at all: bytes, as an empty vector is
		m.basic = BasicByte
		if len(blocks) > 0 && blocks[0].Old.h != nil {
			m.basic = blocks[0].Old.h.basic
		}
	}
	m.extent = m.ub
	sort.Slice(all, func(i, j int) bool { return all[i].off < all[j].off })
	for k := 1; !m.overlap && k < len(all); k++ {
		m.overlap = all[k].off < all[k-1].off+all[k-1].n
	}
	return Datatype{&handle{Map: m}}
}

// ResizedOf is old with its extent set to extent bytes
// (MPI_Type_create_resized). Maps have their lower bound at 0, so lb must
// be 0; extent must be positive. The data stays where it was: instances
// are extent bytes apart, and may interleave.
func ResizedOf(old Datatype, lb, extent int) Datatype {
	o := old.h
	switch {
	case o == nil:
		return typeErr("resized of an invalid datatype")
	case o.err != nil:
		return old
	case o.freed.Load():
		return typeErr("resized of a freed datatype")
	case lb != 0:
		return typeErr("resized with lower bound %d: only 0 is supported", lb)
	case extent <= 0 || extent > MaxBytes:
		return typeErr("resized to extent %d", extent)
	}
	m := o.Map
	m.predefined = false
	m.runs = append([]run(nil), o.runs...)
	m.extent = extent
	return Datatype{&handle{Map: m}}
}
