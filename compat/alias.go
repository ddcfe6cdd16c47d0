package compat

import "unsafe"

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
