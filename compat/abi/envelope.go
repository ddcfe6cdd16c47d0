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
	counts   []int // large counts: a _c constructor's
	large    bool  // made by a _c constructor
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

func envelopeOf(h C.uintptr_t, call string) (envelope, bool, C.int) {
	o, ok := lookup(uintptr(h), C.ABI_KIND_DATATYPE)
	if !ok {
		return envelope{}, false, failCode(0, call, C.MPI_ERR_TYPE, "invalid datatype")
	}
	if t, ok := o.val.(*typeObj); ok {
		return t.env, true, C.MPI_SUCCESS
	}
	return envelope{combiner: C.MPI_COMBINER_NAMED}, false, C.MPI_SUCCESS
}

//export abigo_Type_get_envelope
func abigo_Type_get_envelope(h C.uintptr_t, ni, na, nd, combiner *C.int) C.int {
	const call = "MPI_Type_get_envelope"
	e, _, rc := envelopeOf(h, call)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if ni == nil || na == nil || nd == nil || combiner == nil {
		return failCode(0, call, C.MPI_ERR_ARG, "NULL argument")
	}
	if len(e.counts) > 0 {
		return failCode(0, call, C.MPI_ERR_TYPE, "a datatype made with large counts: use MPI_Type_get_envelope_c")
	}
	*ni, *na, *nd, *combiner = C.int(len(e.ints)), C.int(len(e.aints)), C.int(len(e.olds)), e.combiner
	return C.MPI_SUCCESS
}

//export abigo_Type_get_envelope_c
func abigo_Type_get_envelope_c(h C.uintptr_t, ni, na, nc, nd *C.MPI_Count, combiner *C.int) C.int {
	const call = "MPI_Type_get_envelope_c"
	e, _, rc := envelopeOf(h, call)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if ni == nil || na == nil || nc == nil || nd == nil || combiner == nil {
		return failCode(0, call, C.MPI_ERR_ARG, "NULL argument")
	}
	*ni, *na, *nc, *nd = C.MPI_Count(len(e.ints)), C.MPI_Count(len(e.aints)), C.MPI_Count(len(e.counts)), C.MPI_Count(len(e.olds))
	*combiner = e.combiner
	return C.MPI_SUCCESS
}

func contentsBody(call string, h C.uintptr_t, mi, ma, mc, md int, ints *C.int, aints *C.MPI_Aint, counts *C.MPI_Count, types *C.uintptr_t) C.int {
	e, user, rc := envelopeOf(h, call)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if !user {
		return failCode(0, call, C.MPI_ERR_TYPE, "a predefined datatype has no contents")
	}
	if mi < len(e.ints) || ma < len(e.aints) || mc < len(e.counts) || md < len(e.olds) ||
		(len(e.ints) > 0 && ints == nil) || (len(e.aints) > 0 && aints == nil) ||
		(len(e.counts) > 0 && counts == nil) || (len(e.olds) > 0 && types == nil) {
		return failCode(0, call, C.MPI_ERR_ARG, "arrays shorter than the envelope's counts")
	}
	putInts(ints, e.ints)
	if len(e.aints) > 0 {
		a := unsafe.Slice(aints, len(e.aints))
		for i, v := range e.aints {
			a[i] = C.MPI_Aint(v)
		}
	}
	if len(e.counts) > 0 {
		a := unsafe.Slice(counts, len(e.counts))
		for i, v := range e.counts {
			a[i] = C.MPI_Count(v)
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

//export abigo_Type_get_contents
func abigo_Type_get_contents(h C.uintptr_t, mi, ma, md C.int, ints *C.int, aints *C.MPI_Aint, types *C.uintptr_t) C.int {
	const call = "MPI_Type_get_contents"
	if e, _, _ := envelopeOf(h, call); len(e.counts) > 0 {
		return failCode(0, call, C.MPI_ERR_TYPE, "a datatype made with large counts: use MPI_Type_get_contents_c")
	}
	return contentsBody(call, h, int(mi), int(ma), 0, int(md), ints, aints, nil, types)
}

//export abigo_Type_get_contents_c
func abigo_Type_get_contents_c(h C.uintptr_t, mi, ma, mc, md C.MPI_Count, ints *C.int, aints *C.MPI_Aint, counts *C.MPI_Count, types *C.uintptr_t) C.int {
	return contentsBody("MPI_Type_get_contents_c", h, int(mi), int(ma), int(mc), int(md), ints, aints, counts, types)
}
