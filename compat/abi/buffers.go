package main

/*
#include "abi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/mpitype"
)

// Buffers and statuses at the C boundary.

// cptr turns an address C passed as a word into a pointer. The memory is
// the C program's, which Go never moves or frees; the reinterpretation
// (instead of a conversion from uintptr) says so to vet.
func cptr(u C.uintptr_t) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&u)) }

// minAddr is below any address C memory can have; the ABI's special
// buffer values (MPI_BOTTOM 0, MPI_IN_PLACE 1) are under it.
const minAddr = 4096

// cbuf is the n bytes at u; ok is false when n > 0 and u is not an
// address.
func cbuf(u C.uintptr_t, n int) ([]byte, bool) {
	if n <= 0 {
		return []byte{}, true
	}
	if u < minAddr {
		return nil, false
	}
	return unsafe.Slice((*byte)(cptr(u)), n), true
}

// tbuf is the buffer of count instances of dt at the user's pointer u:
// their data starts at u plus dt's true lower bound (before u for a
// negative one; at the absolute address itself for MPI_BOTTOM, 0, and
// addresses from MPI_Get_address) and spans their span.
func tbuf(u C.uintptr_t, dt compat.Datatype, count int) ([]byte, bool) {
	n := span(dt, count)
	if n <= 0 {
		return []byte{}, true
	}
	return cbuf(u+C.uintptr_t(trueLB(dt)), n)
}

// msgBuf checks a message buffer argument (buf, count, datatype) and
// returns the bytes count instances span.
func msgBuf(comm C.uintptr_t, call string, buf C.uintptr_t, count C.int, dtype C.uintptr_t) ([]byte, compat.Datatype, C.int) {
	dt, ok := typeOf(dtype, true)
	if !ok {
		return nil, dt, failCode(comm, call, C.MPI_ERR_TYPE, "invalid or uncommitted datatype")
	}
	if count < 0 {
		return nil, dt, failCode(comm, call, C.MPI_ERR_COUNT, "count %d", int(count))
	}
	b, ok := tbuf(buf, dt, int(count))
	if !ok {
		return nil, dt, failCode(comm, call, C.MPI_ERR_BUFFER, "buffer %#x for %d elements", uintptr(buf), int(count))
	}
	return b, dt, C.MPI_SUCCESS
}

// setStatus fills a C status from compat's: source and tag in the ABI's
// values, the byte count and the cancelled flag in the private words.
// MPI_ERROR is left alone: only the multiple-completion calls set it.
func setStatus(st *C.MPI_Status, s compat.Status) {
	if st == nil {
		return
	}
	if s.Cancelled() { // MPI defines only the flag of a cancelled operation's status
		st.MPI_internal[C.ABI_STATUS_COUNT_LO] = 0
		st.MPI_internal[C.ABI_STATUS_COUNT_HI] = 0
		st.MPI_internal[C.ABI_STATUS_CANCELLED] = 1
		return
	}
	st.MPI_SOURCE = rankOut(s.Source)
	st.MPI_TAG = tagOut(s.Tag)
	n := uint64(s.Bytes())
	st.MPI_internal[C.ABI_STATUS_COUNT_LO] = C.int(uint32(n))
	st.MPI_internal[C.ABI_STATUS_COUNT_HI] = C.int(uint32(n >> 32))
	st.MPI_internal[C.ABI_STATUS_CANCELLED] = 0
}

// setEmpty fills the empty status MPI gives for null or inactive
// requests.
func setEmpty(st *C.MPI_Status) {
	if st == nil {
		return
	}
	st.MPI_SOURCE = C.MPI_ANY_SOURCE
	st.MPI_TAG = C.MPI_ANY_TAG
	st.MPI_ERROR = C.MPI_SUCCESS
	for i := range st.MPI_internal {
		st.MPI_internal[i] = 0
	}
}

func statusBytes(st *C.MPI_Status) int64 {
	return int64(uint32(st.MPI_internal[C.ABI_STATUS_COUNT_LO])) | int64(st.MPI_internal[C.ABI_STATUS_COUNT_HI])<<32
}

// statusAt is the i-th of an array of statuses, nil for MPI_STATUSES_IGNORE.
func statusAt(sts *C.MPI_Status, i int) *C.MPI_Status {
	if sts == nil {
		return nil
	}
	return (*C.MPI_Status)(unsafe.Add(unsafe.Pointer(sts), uintptr(i)*unsafe.Sizeof(*sts)))
}

func setElementsBody(call string, st *C.MPI_Status, h C.uintptr_t, count int) C.int {
	dt, rc := typeArg(h, call)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if st == nil || count < 0 {
		return failCode(0, call, C.MPI_ERR_ARG, "NULL status or negative count")
	}
	n := uint64(mpitype.MapOf(dt).ElementBytes(count))
	st.MPI_internal[C.ABI_STATUS_COUNT_LO] = C.int(uint32(n))
	st.MPI_internal[C.ABI_STATUS_COUNT_HI] = C.int(uint32(n >> 32))
	return C.MPI_SUCCESS
}

//export abigo_Status_set_elements
func abigo_Status_set_elements(st *C.MPI_Status, h C.uintptr_t, count C.int) C.int {
	return setElementsBody("MPI_Status_set_elements", st, h, int(count))
}

//export abigo_Status_set_elements_c
func abigo_Status_set_elements_c(st *C.MPI_Status, h C.uintptr_t, count C.MPI_Count) C.int {
	return setElementsBody("MPI_Status_set_elements_c", st, h, int(count))
}

//export abigo_Status_set_elements_x
func abigo_Status_set_elements_x(st *C.MPI_Status, h C.uintptr_t, count C.MPI_Count) C.int {
	return setElementsBody("MPI_Status_set_elements_x", st, h, int(count))
}

// Device buffers where the ABI itself reads or writes a caller's buffer on
// the host (a matched probe's delivery, a buffered send's copy,
// MPI_Isendrecv_replace's copies): in a CUDA-aware job the buffer may be
// device memory, reached through copies. compat and windows tell device
// buffers apart on their own.

// onDevice reports whether b is device memory of a job whose heap is on
// the GPU (the only jobs where device buffers are supported).
func onDevice(b []byte) bool {
	e := env.e
	return e != nil && len(b) > 0 && e.World().HeapOnDevice() && e.World().IsDeviceMemory(uintptr(ptrOf(b)))
}

// hostView returns b's bytes where the host can read and write them: b
// itself, or for device memory a host copy (storeBack writes it back).
func hostView(b []byte) ([]byte, error) {
	if !onDevice(b) {
		return b, nil
	}
	w := env.e.World()
	h := make([]byte, len(b))
	if err := w.DeviceAfterDefaultStream(); err != nil {
		return nil, err
	}
	return h, w.CopyDeviceToHost(h, uintptr(ptrOf(b)))
}

// snapshot is a host copy of b, device memory or not.
func snapshot(b []byte) ([]byte, error) {
	if onDevice(b) {
		return hostView(b)
	}
	return append([]byte(nil), b...), nil
}

// storeBack copies h, from hostView(b), into b when b is device memory.
func storeBack(b, h []byte) error {
	if !onDevice(b) {
		return nil
	}
	return env.e.World().CopyHostToDevice(uintptr(ptrOf(b)), h)
}

// viaHost runs a host collective over s and r where either is device
// memory: over host copies of them, r's copied back after (its untouched
// parts too). For the blocking calls compat runs on the host only (Scan,
// Exscan, Reduce_local): a device buffer crosses the host there, as they
// have no direct path yet. The rooted and v-collectives and
// Reduce_scatter(_block) go to compat as they are (its coll_devv.go moves
// device buffers on the GPU); the nonblocking ones stage through their
// schedule (nbcdev.go).
func viaHost(s, r []byte, run func(s, r []byte) error) error {
	hs, err := hostView(s)
	if err != nil {
		return err
	}
	hr, err := hostView(r)
	if err != nil {
		return err
	}
	if err := run(hs, hr); err != nil {
		return err
	}
	return storeBack(r, hr)
}

// writeOut copies src, host bytes, over all of dst, device memory or not
// (nothing of dst is read first).
func writeOut(dst, src []byte) error {
	if onDevice(dst) {
		return env.e.World().CopyHostToDevice(uintptr(ptrOf(dst)), src)
	}
	copy(dst, src)
	return nil
}

// ptrOf is the address of a non-empty buffer's first byte.
func ptrOf(b []byte) unsafe.Pointer { return unsafe.Pointer(&b[0]) }
