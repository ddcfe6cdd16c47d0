package main

/*
#include "abi.h"
*/
import "C"

import (
	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/mpierr"
	"github.com/gshmem/gshmem/internal/mpitype"
)

// External32 views (MPI-4.1 14.5.2): in a file of external32 data, a
// basic type takes its external32 size (a C long 4 bytes, MPI_DOUBLE_INT
// 12 with no padding), and a view's etype and filetype are read in those
// sizes: "for etypes and filetypes that are portable datatypes, MPI will
// scale any displacements in the datatypes to match the file data
// representation", while byte displacements (hvector, hindexed, struct,
// resized) are kept as given. The layout in the file of a datatype is
// therefore its construction replayed over basic types of the external32
// sizes, which the envelope each datatype keeps makes possible: that
// replay is the datatype's external twin, which compat's
// SetViewExternal lays the file out by.

// externalTwin returns the twin of datatype h (a handle of the C
// library) and the handles it made, which the caller releases once the
// twin's compat datatype is taken (the datatypes outlive the handles).
func externalTwin(h C.uintptr_t) (compat.Datatype, []C.uintptr_t, error) {
	var made []C.uintptr_t
	th, err := twinOf(refOf(h), &made)
	if err != nil {
		releaseAll(made)
		return compat.Datatype{}, nil, err
	}
	dt, _ := typeOf(th, false)
	return dt, made, nil
}

func releaseAll(hs []C.uintptr_t) {
	for _, h := range hs {
		release(uintptr(h))
	}
}

// twinOf returns a handle of r's twin, adding the handles it makes to
// made.
func twinOf(r typeRef, made *[]C.uintptr_t) (C.uintptr_t, error) {
	if r.user == nil || isNamed(r.user.env.combiner) {
		var dt compat.Datatype
		if r.user != nil {
			dt = r.user.dt
		} else if d, ok := typeOf(C.uintptr_t(r.predef), false); ok {
			dt = d
		} else {
			return 0, mpierr.Errorf(mpierr.ClassType, "invalid datatype")
		}
		m := mpitype.MapOf(dt)
		if sameLayout(m) {
			if r.user == nil {
				return C.uintptr_t(r.predef), nil
			}
			c := *r.user
			return keep(&c, made), nil
		}
		// A basic type of another size in the file: its external32
		// bytes, with no padding.
		return keep(&typeObj{dt: compat.Contiguous(m.ExternalSize(1), compat.Byte), committed: true}, made), nil
	}
	e := r.user.env
	olds := make([]C.uintptr_t, len(e.olds))
	for i, o := range e.olds {
		t, err := twinOf(o, made)
		if err != nil {
			return 0, err
		}
		olds[i] = t
	}
	var out C.uintptr_t
	rc := replay(e, olds, &out)
	if rc != C.MPI_SUCCESS {
		return 0, mpierr.Errorf(mpierr.ClassType, "the external32 layout of a datatype (combiner %d) could not be built", int(e.combiner))
	}
	*made = append(*made, out)
	return out, nil
}

func isNamed(comb C.int) bool {
	switch comb {
	case C.MPI_COMBINER_NAMED, C.MPI_COMBINER_F90_REAL, C.MPI_COMBINER_F90_COMPLEX, C.MPI_COMBINER_F90_INTEGER:
		return true
	}
	return false
}

// sameLayout reports whether every basic element of m takes its memory
// extent in external32.
func sameLayout(m *mpitype.Map) bool {
	same := true
	m.EachSeg(1, func(s mpitype.Seg) bool {
		bm := mpitype.BasicMap(s.B)
		same = int(s.Ext) == bm.Extent()
		return same
	})
	return same
}

func keep(t *typeObj, made *[]C.uintptr_t) C.uintptr_t {
	h, _ := newHandle(C.ABI_KIND_DATATYPE, t)
	*made = append(*made, C.uintptr_t(h))
	return C.uintptr_t(h)
}

// envArgs reads an envelope's arguments in the order its constructor
// filed them (construct.go's args): count-like values from ints (the int
// form) or the large counts, byte displacements from aints or the large
// counts, and the values that are int in both forms from ints.
type envArgs struct {
	e         envelope
	i, a, c   int
	large     bool
	exhausted bool
}

func (r *envArgs) next(from *[]int, at *int) int {
	if *at >= len(*from) {
		r.exhausted = true
		return 0
	}
	v := (*from)[*at]
	*at++
	return v
}

func (r *envArgs) count() int {
	if r.large {
		return r.next(&r.e.counts, &r.c)
	}
	return r.next(&r.e.ints, &r.i)
}

func (r *envArgs) addr() int {
	if r.large {
		return r.next(&r.e.counts, &r.c)
	}
	return r.next(&r.e.aints, &r.a)
}

func (r *envArgs) int() int { return r.next(&r.e.ints, &r.i) }

func (r *envArgs) counts(n int) []int {
	out := make([]int, max(n, 0))
	for i := range out {
		out[i] = r.count()
	}
	return out
}

func (r *envArgs) addrs(n int) []int {
	out := make([]int, max(n, 0))
	for i := range out {
		out[i] = r.addr()
	}
	return out
}

func (r *envArgs) ints(n int) []int {
	out := make([]int, max(n, 0))
	for i := range out {
		out[i] = r.int()
	}
	return out
}

// replay calls e's constructor again over olds (the twins of its old
// datatypes), with e's own arguments.
func replay(e envelope, olds []C.uintptr_t, out *C.uintptr_t) C.int {
	r := &envArgs{e: e, large: e.large}
	old := C.uintptr_t(0)
	if len(olds) > 0 {
		old = olds[0]
	}
	rc := C.int(C.MPI_ERR_TYPE)
	switch e.combiner {
	case C.MPI_COMBINER_DUP:
		rc = abigo_Type_dup(old, out)
	case C.MPI_COMBINER_CONTIGUOUS:
		rc = contiguousBody(true, r.count(), old, out)
	case C.MPI_COMBINER_VECTOR:
		n, bl, st := r.count(), r.count(), r.count()
		rc = vectorBody(true, false, n, bl, st, old, out)
	case C.MPI_COMBINER_HVECTOR:
		n, bl := r.count(), r.count()
		rc = vectorBody(true, true, n, bl, r.addr(), old, out)
	case C.MPI_COMBINER_INDEXED:
		n := r.count()
		lens := r.counts(n)
		rc = indexedBody(true, false, n, 0, lens, r.counts(n), old, out)
	case C.MPI_COMBINER_HINDEXED:
		n := r.count()
		lens := r.counts(n)
		rc = indexedBody(true, true, n, 0, lens, r.addrs(n), old, out)
	case C.MPI_COMBINER_INDEXED_BLOCK:
		n, bl := r.count(), r.count()
		rc = indexedBody(true, false, n, bl, nil, r.counts(n), old, out)
	case C.MPI_COMBINER_HINDEXED_BLOCK:
		n, bl := r.count(), r.count()
		rc = indexedBody(true, true, n, bl, nil, r.addrs(n), old, out)
	case C.MPI_COMBINER_STRUCT:
		n := r.count()
		lens := r.counts(n)
		displs := r.addrs(n)
		if len(olds) != n {
			return C.MPI_ERR_TYPE
		}
		var p *C.uintptr_t
		if n > 0 {
			p = &olds[0]
		}
		rc = structBody(true, n, lens, displs, p, out)
	case C.MPI_COMBINER_SUBARRAY:
		nd := r.int()
		var sizes, subs, starts []int
		var order int
		if e.large { // ints: ndims, order; large counts: the arrays
			order = r.int()
			sizes, subs, starts = r.counts(nd), r.counts(nd), r.counts(nd)
		} else {
			sizes, subs, starts = r.ints(nd), r.ints(nd), r.ints(nd)
			order = r.int()
		}
		rc = subarrayBody(true, nd, sizes, subs, starts, order, old, out)
	case C.MPI_COMBINER_DARRAY:
		size, rank, nd := r.int(), r.int(), r.int()
		gsizes := r.counts(nd) // large counts in the _c form, ints in the other
		distribs, dargs, psizes := r.ints(nd), r.ints(nd), r.ints(nd)
		rc = darrayBody(true, size, rank, nd, gsizes, distribs, dargs, psizes, r.int(), old, out)
	case C.MPI_COMBINER_RESIZED:
		lb, ext := r.addr(), r.addr()
		rc = resizedBody(true, old, lb, ext, out)
	}
	if r.exhausted && rc == C.MPI_SUCCESS {
		release(uintptr(*out))
		return C.MPI_ERR_TYPE
	}
	if rc == C.MPI_SUCCESS {
		// Twins are built from committed parts and used at once.
		if o, ok := lookup(uintptr(*out), C.ABI_KIND_DATATYPE); ok {
			o.val.(*typeObj).committed = true
		}
	}
	return rc
}
