package main

/*
#include "abi.h"
*/
import "C"

import "unsafe"

// Datatype decoding (MPI_Type_get_envelope, MPI_Type_get_contents): each
// user datatype remembers the constructor that made it and its
// arguments. The old datatypes are kept as the predefined handle, or as a
// copy of the user datatype (the user may free the handle it passed);
// MPI_Type_get_contents returns a new handle for each of those, as MPI
// says.

type envelope struct {
	combiner C.int
	ints     []int
	aints    []int
	olds     []typeRef
}

// typeRef is an old datatype of a constructor.
type typeRef struct {
	predef uintptr  // a predefined handle, or 0
	user   *typeObj // a copy of a user datatype
}

func refOf(h C.uintptr_t) typeRef {
	if o, ok := lookup(uintptr(h), C.ABI_KIND_DATATYPE); ok {
		if t, ok := o.val.(*typeObj); ok {
			c := *t
			return typeRef{user: &c}
		}
	}
	return typeRef{predef: uintptr(h)}
}

// withEnvelope records e on the datatype a constructor returned.
func withEnvelope(rc C.int, out *C.uintptr_t, e envelope) C.int {
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if o, ok := lookup(uintptr(*out), C.ABI_KIND_DATATYPE); ok {
		o.val.(*typeObj).env = e
	}
	return rc
}

//export abigo_Type_get_envelope
func abigo_Type_get_envelope(h C.uintptr_t, ni, na, nd, combiner *C.int) C.int {
	o, ok := lookup(uintptr(h), C.ABI_KIND_DATATYPE)
	if !ok {
		return failCode(0, "MPI_Type_get_envelope", C.MPI_ERR_TYPE, "invalid datatype")
	}
	if ni == nil || na == nil || nd == nil || combiner == nil {
		return failCode(0, "MPI_Type_get_envelope", C.MPI_ERR_ARG, "NULL argument")
	}
	*ni, *na, *nd, *combiner = 0, 0, 0, C.MPI_COMBINER_NAMED
	if t, ok := o.val.(*typeObj); ok {
		*ni, *na, *nd = C.int(len(t.env.ints)), C.int(len(t.env.aints)), C.int(len(t.env.olds))
		*combiner = t.env.combiner
	}
	return C.MPI_SUCCESS
}

//export abigo_Type_get_contents
func abigo_Type_get_contents(h C.uintptr_t, mi, ma, md C.int, ints *C.int, aints *C.MPI_Aint, types *C.uintptr_t) C.int {
	const call = "MPI_Type_get_contents"
	o, ok := lookup(uintptr(h), C.ABI_KIND_DATATYPE)
	if !ok {
		return failCode(0, call, C.MPI_ERR_TYPE, "invalid datatype")
	}
	t, ok := o.val.(*typeObj)
	if !ok {
		return failCode(0, call, C.MPI_ERR_TYPE, "a predefined datatype has no contents")
	}
	e := t.env
	if int(mi) < len(e.ints) || int(ma) < len(e.aints) || int(md) < len(e.olds) ||
		(len(e.ints) > 0 && ints == nil) || (len(e.aints) > 0 && aints == nil) || (len(e.olds) > 0 && types == nil) {
		return failCode(0, call, C.MPI_ERR_ARG, "arrays shorter than the envelope's counts")
	}
	putInts(ints, e.ints)
	if len(e.aints) > 0 {
		a := unsafe.Slice(aints, len(e.aints))
		for i, v := range e.aints {
			a[i] = C.MPI_Aint(v)
		}
	}
	if len(e.olds) > 0 {
		ts := unsafe.Slice(types, len(e.olds))
		for i, r := range e.olds {
			if r.user == nil {
				ts[i] = C.uintptr_t(r.predef)
				continue
			}
			c := *r.user
			nh, _ := newHandle(C.ABI_KIND_DATATYPE, &c)
			ts[i] = C.uintptr_t(nh)
		}
	}
	return C.MPI_SUCCESS
}
