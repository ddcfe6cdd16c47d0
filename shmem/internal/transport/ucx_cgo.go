//go:build ucx && cgo

package transport

// The Go side of the UCX transport's C shim (ucx_shim.c): thin wrappers that
// fill UCP's parameter structs (unions and field masks are awkward from Go),
// and the callbacks UCP calls during progress. The callbacks never call into Go:
// they append events to a queue that the Go side drains after each
// ucp_worker_progress, under the same lock, so no cgo callback (and no Go
// pointer) is ever held by UCX.

/*
#cgo pkg-config: ucx
#include <stdlib.h>
#include "ucx_shim.h"
*/
import "C"

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// ucxError is a UCS status of a setup step as a Go error.
func ucxError(what string, st C.ucs_status_t) error {
	return fmt.Errorf("transport: ucx: %s: %s (%d)", what, statusString(int(st)), int(st))
}

func isPeerStatus(st int) bool {
	switch C.ucs_status_t(st) {
	case C.UCS_ERR_CONNECTION_RESET, C.UCS_ERR_ENDPOINT_TIMEOUT, C.UCS_ERR_UNREACHABLE, C.UCS_ERR_CANCELED,
		C.UCS_ERR_REJECTED, C.UCS_ERR_NOT_CONNECTED, C.UCS_ERR_TIMED_OUT, C.UCS_ERR_IO_ERROR:
		return true
	}
	// UCS's link and endpoint failure ranges.
	return st <= -40 && st >= -89
}

const (
	evRing = C.GS_EV_RING
	evPing = C.GS_EV_PING
	evBye  = C.GS_EV_BYE
	evLost = C.GS_EV_LOST
	evErr  = C.GS_EV_ERR
	evOp   = C.GS_EV_OP
	evRang = C.GS_EV_RANG
)

type ucxEvent struct {
	typ, from uint32
	arg       uint64
	data      []byte // an evOp message
}

// drain returns the events the callbacks queued.
func (g *ucxLib) drain(buf []ucxEvent) []ucxEvent {
	ev := unsafe.Slice(g.ev, drainBatch)
	for {
		k := int(C.gs_drain(g.g, g.ev, drainBatch))
		for _, e := range ev[:k] {
			x := ucxEvent{typ: uint32(e._type), from: uint32(e.from), arg: uint64(e.arg)}
			if e.data != nil {
				x.data = C.GoBytes(e.data, C.int(e.len))
				C.free(e.data)
			}
			buf = append(buf, x)
		}
		if k < drainBatch {
			return buf
		}
	}
}

// drainBatch is how many events one gs_drain call copies out, into C
// memory: a Go buffer of events, which hold pointers, would be walked by
// cgo's pointer check on every call (a tenth of a put stream's CPU).
const drainBatch = 64

// ucxLib is one PE's UCP context and worker.
type ucxLib struct {
	g  *C.gs_t
	ev *C.gs_event // drainBatch events
}

// ucxDefaults are UCX settings the transport changes unless the user set
// them. UCX's tcp transport moves data in 8 KiB segments by default: one
// system call per 8 KiB halves put bandwidth against 64 KiB ones (the
// figures: test/perf/ucx-2026-12-01.txt, which gives ucx_perftest the
// same). They go through the environment because UCP's config_modify does
// not reach its transports' settings in UCX 1.13.
var ucxDefaults = [][2]string{{"UCX_TCP_TX_SEG_SIZE", "64k"}, {"UCX_TCP_RX_SEG_SIZE", "64k"}}

// setUCXDefaults runs once, before the first UCP call of the process:
// setting the environment while UCX reads it would race.
var setUCXDefaults = sync.OnceFunc(func() {
	for _, kv := range ucxDefaults {
		if _, ok := os.LookupEnv(kv[0]); !ok {
			_ = os.Setenv(kv[0], kv[1])
		}
	}
})

func openUCX(name string) (*ucxLib, error) {
	setUCXDefaults()
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	var g *C.gs_t
	if st := C.gs_open(&g, cn); st != C.UCS_OK {
		return nil, ucxError("initializing UCP (are UCX_TLS and UCX_NET_DEVICES right for this host?)", st)
	}
	return &ucxLib{g: g, ev: (*C.gs_event)(C.calloc(drainBatch, C.sizeof_gs_event))}, nil
}

// fastInit lets the AM callback answer atomics on heap (gs_amo_fast)
// from the peers whose endpoints setEp names, with the job's op token.
// heap is mapped memory (never Go's), which C keeps.
func (g *ucxLib) fastInit(me, n int, token uint64, heap []byte) error {
	if st := C.gs_fast_init(g.g, C.uint32_t(me), C.uint32_t(n), C.uint64_t(token),
		unsafe.Pointer(&heap[0]), C.size_t(len(heap))); st != C.UCS_OK {
		return ucxError("setting up the atomics' fast path", st)
	}
	return nil
}

// setEp names pe's endpoint to the AM callback (nil: none).
func (g *ucxLib) setEp(pe int, e *ucxEp) {
	var ep C.ucp_ep_h
	if e != nil {
		ep = e.ep
	}
	C.gs_set_ep(g.g, C.uint32_t(pe), ep)
}

// await names the reply the polling issuer waits for (call id from pe):
// the callback takes it without queueing an event (gs_reply_fast).
// Under the lock, as are awaited and unawait.
func (g *ucxLib) await(id uint64, pe int) {
	g.g.await_id, g.g.await_pe, g.g.await_done = C.uint64_t(id), C.uint32_t(pe), 0
}

// awaited returns the old value the awaited reply carried, and whether it
// came.
func (g *ucxLib) awaited() (uint64, bool) { return uint64(g.g.await_old), g.g.await_done != 0 }

// unawait forgets the awaited reply: a later one goes to the Go side.
func (g *ucxLib) unawait() { g.g.await_id, g.g.await_done = 0, 0 }

// fastAtomics counts the atomics the AM callback answered (under the
// lock).
func (g *ucxLib) fastAtomics() uint64 { return uint64(g.g.fast) }

func (g *ucxLib) close() {
	C.gs_close(g.g)
	C.free(unsafe.Pointer(g.ev))
}

// spin's reasons to return (gs_spin in ucx_shim.c).
const (
	spinWork   = C.GS_SPIN_WORK
	spinEvents = C.GS_SPIN_EVENTS
	spinDone   = C.GS_SPIN_DONE
	spinWant   = C.GS_SPIN_WANT
	spinIdle   = C.GS_SPIN_IDLE
)

// spin progresses the worker in C until the Go side has something to do
// (gs_spin says what), or progress found nothing to do for idle, or for
// at most max in all. ring is the heap's user waiter count (nil: do not
// stop for it), want the count of threads waiting for the worker's lock;
// workEnds stops it after any work. It returns gs_spin's mask.
func (g *ucxLib) spin(req unsafe.Pointer, idle, max time.Duration, ring *uint32, want *atomic.Int32, workEnds bool) int {
	we := C.int(0)
	if workEnds {
		we = 1
	}
	return int(C.gs_spin(g.g, req, C.int64_t(idle), C.int64_t(max), (*C.uint32_t)(unsafe.Pointer(ring)),
		(*C.int32_t)(unsafe.Pointer(want)), we))
}

// arm returns true when the worker's event fd will signal the next event,
// false when there is work to progress first.
func (g *ucxLib) arm() (bool, error) {
	switch st := C.ucp_worker_arm(g.g.worker); st {
	case C.UCS_OK:
		return true, nil
	case C.UCS_ERR_BUSY:
		return false, nil
	default:
		return false, ucxError("arming the worker", st)
	}
}

func (g *ucxLib) eventFd() (int, error) {
	var fd C.int
	if st := C.ucp_worker_get_efd(g.g.worker, &fd); st != C.UCS_OK {
		return -1, ucxError("getting the worker's event fd", st)
	}
	return int(fd), nil
}

func (g *ucxLib) address() ([]byte, error) {
	var a *C.ucp_address_t
	var n C.size_t
	if st := C.ucp_worker_get_address(g.g.worker, &a, &n); st != C.UCS_OK {
		return nil, ucxError("getting the worker address", st)
	}
	defer C.ucp_worker_release_address(g.g.worker, a)
	return C.GoBytes(unsafe.Pointer(a), C.int(n)), nil
}

type ucxMem struct{ h C.ucp_mem_h }

func (g *ucxLib) memMap(heap []byte) (ucxMem, error) {
	var h C.ucp_mem_h
	if st := C.gs_mem_map(g.g, unsafe.Pointer(&heap[0]), C.size_t(len(heap)), &h); st != C.UCS_OK {
		return ucxMem{}, ucxError(fmt.Sprintf("registering the %d-byte heap (ucp_mem_map)", len(heap)), st)
	}
	return ucxMem{h: h}, nil
}

func (g *ucxLib) memUnmap(m ucxMem) error {
	if st := C.ucp_mem_unmap(g.g.ctx, m.h); st != C.UCS_OK {
		return ucxError("ucp_mem_unmap", st)
	}
	return nil
}

func (g *ucxLib) rkeyPack(m ucxMem) ([]byte, error) {
	var buf unsafe.Pointer
	var n C.size_t
	if st := C.ucp_rkey_pack(g.g.ctx, m.h, &buf, &n); st != C.UCS_OK {
		return nil, ucxError("packing the heap's remote key", st)
	}
	defer C.ucp_rkey_buffer_release(buf)
	return C.GoBytes(buf, C.int(n)), nil
}

// ucxEp is an endpoint to one peer, with the peer's heap key.
type ucxEp struct {
	ep   C.ucp_ep_h
	ctx  *C.gs_epctx
	rkey C.ucp_rkey_h
	base uint64
}

func (g *ucxLib) connect(pe int, addr, rkey []byte, base uint64) (*ucxEp, error) {
	ca := C.CBytes(addr)
	defer C.free(ca)
	e := &ucxEp{base: base}
	if st := C.gs_ep_create(g.g, ca, C.uint32_t(pe), &e.ep, &e.ctx); st != C.UCS_OK {
		return nil, ucxError(fmt.Sprintf("creating the endpoint to PE %d (UCX_TLS needs a transport with peer failure handling: tcp, rc, ud or dc; UCX 1.13's shared-memory ones have none)", pe), st)
	}
	ck := C.CBytes(rkey)
	defer C.free(ck)
	if st := C.ucp_ep_rkey_unpack(e.ep, ck, &e.rkey); st != C.UCS_OK {
		g.release(e)
		return nil, ucxError(fmt.Sprintf("unpacking PE %d's remote key", pe), st)
	}
	return e, nil
}

// release force-closes e (its peer may be dead) and returns the request to
// wait for, if any. The endpoint's callback context is freed by forget,
// once no callback can come.
func (g *ucxLib) release(e *ucxEp) unsafe.Pointer {
	if e.rkey != nil {
		C.ucp_rkey_destroy(e.rkey)
		e.rkey = nil
	}
	if e.ep == nil {
		return nil
	}
	r := C.gs_ep_close(e.ep)
	e.ep = nil
	return r.req
}

func (g *ucxLib) forget(e *ucxEp) {
	if e.ctx != nil {
		C.free(unsafe.Pointer(e.ctx))
		e.ctx = nil
	}
}

// info is UCP's description of e's lanes.
func (g *ucxLib) info(e *ucxEp) string {
	if e.ep == nil {
		return ""
	}
	p := C.gs_ep_info(e.ep)
	if p == nil {
		return ""
	}
	defer C.free(unsafe.Pointer(p))
	return C.GoString(p)
}

// res is a started operation: req is nil when it finished at once (with
// st).
type res struct {
	req unsafe.Pointer
	st  int
}

func mkres(r C.gs_res) res { return res{req: r.req, st: int(r.st)} }

func (g *ucxLib) put(e *ucxEp, src unsafe.Pointer, n int, off uint64) res {
	if e.ep == nil {
		return closedRes
	}
	return mkres(C.gs_put(e.ep, C.uintptr_t(uintptr(src)), C.size_t(n), C.uint64_t(e.base+off), e.rkey))
}

func (g *ucxLib) get(e *ucxEp, dst unsafe.Pointer, n int, off uint64) res {
	if e.ep == nil {
		return closedRes
	}
	return mkres(C.gs_get(e.ep, C.uintptr_t(uintptr(dst)), C.size_t(n), C.uint64_t(e.base+off), e.rkey))
}

func (g *ucxLib) flush(e *ucxEp) res {
	if e.ep == nil {
		return closedRes
	}
	return mkres(C.gs_ep_flush(e.ep))
}

// closedRes is the result of an operation on a released endpoint.
var closedRes = res{st: int(C.UCS_ERR_NOT_CONNECTED)}

func (g *ucxLib) fence() error {
	if st := C.ucp_worker_fence(g.g.worker); st != C.UCS_OK {
		return ucxError("ucp_worker_fence", st)
	}
	return nil
}

func (g *ucxLib) send(e *ucxEp, typ uint32, from int, arg uint64) error {
	if e.ep == nil {
		return opError("sending a message", closedRes.st)
	}
	if st := C.gs_am_send(e.ep, C.uint32_t(typ), C.uint32_t(from), C.uint64_t(arg)); st != C.UCS_OK {
		return ucxError("sending a message", st)
	}
	return nil
}

// sendOp sends a GS_AM_OP message (header and payload in one buffer,
// which C copies before it returns).
func (g *ucxLib) sendOp(e *ucxEp, msg []byte) error {
	if e.ep == nil {
		return opError("sending an operation", closedRes.st)
	}
	if st := C.gs_op_send(e.ep, unsafe.Pointer(&msg[0]), C.size_t(len(msg)), nil, 0); st != C.UCS_OK {
		return opError("sending an operation", int(st))
	}
	return nil
}

// sendAMO sends an atomic's operation message, call id (the header
// built in C: gs_amo_send).
func (g *ucxLib) sendAMO(e *ucxEp, id uint64, h *opHeader) error {
	if e.ep == nil {
		return opError("sending an operation", closedRes.st)
	}
	if st := C.gs_amo_send(g.g, e.ep, C.uint64_t(id), C.uint64_t(h.off), C.uint64_t(h.a), C.uint64_t(h.b),
		C.int(h.op), C.int(h.width)); st != C.UCS_OK {
		return opError("sending an operation", int(st))
	}
	return nil
}

// status polls a request: C.UCS_INPROGRESS while it runs.
func status(req unsafe.Pointer) int { return int(C.ucp_request_check_status(req)) }

func freeReq(req unsafe.Pointer) { C.ucp_request_free(req) }

const (
	stOK         = C.UCS_OK
	stInProgress = C.UCS_INPROGRESS
	errCanceled  = C.UCS_ERR_CANCELED
)

func statusString(st int) string { return C.GoString(C.ucs_status_string(C.ucs_status_t(st))) }

// opError is the error of an operation that ended with status st: one
// that means the peer or the connection to it failed wraps ErrPeerLost.
func opError(what string, st int) error {
	if isPeerStatus(st) {
		return fmt.Errorf("%w: ucx: %s: %s", ErrPeerLost, what, statusString(st))
	}
	return ucxError(what, C.ucs_status_t(st))
}
