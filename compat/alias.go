package compat

import (
	"unsafe"

	"github.com/gshmem/gshmem/internal/mpitype"
)

// overlaps reports whether the memory of a and b (their lengths, in bytes)
// overlaps. MPI forbids a send buffer that aliases the receive buffer of
// the same call; a code that reduces in place says so with InPlace.
func overlaps[S, R Elem](a []S, b []R) bool {
	na := uintptr(len(a)) * unsafe.Sizeof(*new(S))
	nb := uintptr(len(b)) * unsafe.Sizeof(*new(R))
	if na == 0 || nb == 0 {
		return false
	}
	pa, pb := uintptr(unsafe.Pointer(unsafe.SliceData(a))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return pa < pb+nb && pb < pa+na
}

// checkAlias fails with ErrBuffer when sbuf and rbuf overlap.
func checkAlias[S, R Elem](sbuf []S, rbuf []R, what string) error {
	if overlaps(sbuf, rbuf) {
		return errorf(ClassBuffer, "%s: the send buffer overlaps the receive buffer (pass InPlace as the send buffer to work in place)", what)
	}
	return nil
}

// checkTypedAlias is checkAlias for a call whose two buffers are described
// by datatypes (Sendrecv): MPI forbids the bytes the two type maps touch
// to overlap, not the slices, so a halo exchange within one array passes.
func checkTypedAlias[S, R Elem](sbuf []S, scount int, sdt Datatype, rbuf []R, rcount int, rdt Datatype, what string) error {
	if !overlaps(sbuf, rbuf) || sdt.Err() != nil || rdt.Err() != nil || scount < 0 || rcount < 0 {
		return nil // disjoint, or an argument error the call reports
	}
	sm, rm := mapOf(sdt), mapOf(rdt)
	if (scount > 1 && sm.Extent() < 0) || (rcount > 1 && rm.Extent() < 0) {
		return nil // the datatype checks report it
	}
	ps := uintptr(unsafe.Pointer(unsafe.SliceData(sbuf)))
	pr := uintptr(unsafe.Pointer(unsafe.SliceData(rbuf)))
	if mpitype.MapsOverlap(sm, scount, ps, rm, rcount, pr) {
		return errorf(ClassBuffer, "%s: the send buffer overlaps the receive buffer (pass InPlace as the send buffer to work in place)", what)
	}
	return nil
}
