//go:build ucx && cgo

package transport

// The C side of the UCX transport: thin wrappers that fill UCP's parameter
// structs (unions and field masks are awkward from Go), and the two
// callbacks UCP calls during progress. The callbacks never call into Go:
// they append events to a queue that the Go side drains after each
// ucp_worker_progress, under the same lock, so no cgo callback (and no Go
// pointer) is ever held by UCX.

/*
#cgo pkg-config: ucx
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <ucp/api/ucp.h>

enum { GS_AM_ID = 0x6773 };

// Event types: the first four are messages from peers (the AM header's
// type), GS_EV_ERR is UCP's endpoint error callback.
enum { GS_EV_RING = 1, GS_EV_PING = 2, GS_EV_BYE = 3, GS_EV_LOST = 4, GS_EV_ERR = 5 };

typedef struct {
	uint32_t type;
	uint32_t from;
	uint64_t arg;
} gs_event;

typedef struct {
	ucp_context_h ctx;
	ucp_worker_h worker;
	pthread_mutex_t mu; // guards the queue: an error callback may come from UCX's async thread
	gs_event *ev;
	size_t nev, cap;
	uint64_t dropped;
} gs_t;

typedef struct {
	gs_t *g;
	uint32_t pe;
} gs_epctx;

static void gs_push(gs_t *g, uint32_t type, uint32_t from, uint64_t arg) {
	pthread_mutex_lock(&g->mu);
	if (g->nev == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 64;
		gs_event *ev = realloc(g->ev, cap * sizeof(*ev));
		if (ev == NULL) {
			g->dropped++;
			pthread_mutex_unlock(&g->mu);
			return;
		}
		g->ev = ev;
		g->cap = cap;
	}
	g->ev[g->nev].type = type;
	g->ev[g->nev].from = from;
	g->ev[g->nev].arg = arg;
	g->nev++;
	pthread_mutex_unlock(&g->mu);
}

// gs_drain copies up to max queued events into out and returns how many.
static size_t gs_drain(gs_t *g, gs_event *out, size_t max) {
	pthread_mutex_lock(&g->mu);
	size_t k = g->nev < max ? g->nev : max;
	memcpy(out, g->ev, k * sizeof(*out));
	memmove(g->ev, g->ev + k, (g->nev - k) * sizeof(*out));
	g->nev -= k;
	pthread_mutex_unlock(&g->mu);
	return k;
}

static ucs_status_t gs_am_cb(void *arg, const void *header, size_t header_length, void *data,
                             size_t length, const ucp_am_recv_param_t *param) {
	gs_t *g = arg;
	(void)header; (void)header_length;
	if ((param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) || length != 16) {
		return UCS_OK; // not ours: our messages are 16 bytes, always eager
	}
	uint32_t type, from;
	uint64_t a;
	memcpy(&type, data, 4);
	memcpy(&from, (char *)data + 4, 4);
	memcpy(&a, (char *)data + 8, 8);
	if (type >= GS_EV_RING && type <= GS_EV_LOST) {
		gs_push(g, type, from, a);
	}
	return UCS_OK;
}

static void gs_err_cb(void *arg, ucp_ep_h ep, ucs_status_t status) {
	gs_epctx *c = arg;
	(void)ep;
	gs_push(c->g, GS_EV_ERR, c->pe, (uint64_t)(int64_t)status);
}

static ucs_status_t gs_open(gs_t **out, const char *name) {
	ucp_config_t *cfg;
	ucs_status_t st = ucp_config_read(NULL, NULL, &cfg);
	if (st != UCS_OK) {
		return st;
	}
	// Remote atomics must be atomic with the CPU atomics of the PEs on the
	// target's node (and of the target itself): NIC atomics are not.
	st = ucp_config_modify(cfg, "ATOMIC_MODE", "cpu");
	if (st != UCS_OK) {
		ucp_config_release(cfg);
		return st;
	}
	gs_t *g = calloc(1, sizeof(*g));
	if (g == NULL) {
		ucp_config_release(cfg);
		return UCS_ERR_NO_MEMORY;
	}
	pthread_mutex_init(&g->mu, NULL);
	ucp_params_t p;
	memset(&p, 0, sizeof(p));
	p.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_NAME;
	p.features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 | UCP_FEATURE_AM | UCP_FEATURE_WAKEUP;
	p.name = name;
	st = ucp_init(&p, cfg, &g->ctx);
	ucp_config_release(cfg);
	if (st != UCS_OK) {
		free(g);
		return st;
	}
	ucp_worker_params_t wp;
	memset(&wp, 0, sizeof(wp));
	wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
	wp.thread_mode = UCS_THREAD_MODE_SERIALIZED; // the Go side holds a lock around every call
	st = ucp_worker_create(g->ctx, &wp, &g->worker);
	if (st != UCS_OK) {
		ucp_cleanup(g->ctx);
		free(g);
		return st;
	}
	ucp_am_handler_param_t ap;
	memset(&ap, 0, sizeof(ap));
	ap.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB | UCP_AM_HANDLER_PARAM_FIELD_ARG;
	ap.id = GS_AM_ID;
	ap.cb = gs_am_cb;
	ap.arg = g;
	st = ucp_worker_set_am_recv_handler(g->worker, &ap);
	if (st != UCS_OK) {
		ucp_worker_destroy(g->worker);
		ucp_cleanup(g->ctx);
		free(g);
		return st;
	}
	*out = g;
	return UCS_OK;
}

static void gs_close(gs_t *g) {
	ucp_worker_destroy(g->worker);
	ucp_cleanup(g->ctx);
	pthread_mutex_destroy(&g->mu);
	free(g->ev);
	free(g);
}

static ucs_status_t gs_mem_map(gs_t *g, void *addr, size_t len, ucp_mem_h *memh) {
	ucp_mem_map_params_t mp;
	memset(&mp, 0, sizeof(mp));
	mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
	mp.address = addr;
	mp.length = len;
	return ucp_mem_map(g->ctx, &mp, memh);
}

static ucs_status_t gs_ep_create(gs_t *g, const void *addr, uint32_t pe, ucp_ep_h *ep, gs_epctx **ctxp) {
	gs_epctx *c = malloc(sizeof(*c));
	if (c == NULL) {
		return UCS_ERR_NO_MEMORY;
	}
	c->g = g;
	c->pe = pe;
	ucp_ep_params_t ep_params;
	memset(&ep_params, 0, sizeof(ep_params));
	ep_params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
	                       UCP_EP_PARAM_FIELD_ERR_HANDLER;
	ep_params.address = addr;
	ep_params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
	ep_params.err_handler.cb = gs_err_cb;
	ep_params.err_handler.arg = c;
	ucs_status_t st = ucp_ep_create(g->worker, &ep_params, ep);
	if (st != UCS_OK) {
		free(c);
		return st;
	}
	*ctxp = c;
	return UCS_OK;
}

// Results of a non-blocking call: a request to poll, or a final status.
typedef struct {
	void *req;
	ucs_status_t st;
} gs_res;

static gs_res gs_result(ucs_status_ptr_t p) {
	gs_res r = {NULL, UCS_OK};
	if (p == NULL) {
		return r;
	}
	if (UCS_PTR_IS_ERR(p)) {
		r.st = UCS_PTR_STATUS(p);
		return r;
	}
	r.req = p;
	r.st = UCS_INPROGRESS;
	return r;
}

// The local buffers of puts and gets come as integers: they are often
// views into Go objects that hold pointers elsewhere, which cgo's pointer
// check would refuse although UCP reads or writes only the bytes given.
// The Go side pins them until the request completes.
static gs_res gs_put(ucp_ep_h ep, uintptr_t buf, size_t len, uint64_t raddr, ucp_rkey_h rkey) {
	ucp_request_param_t p;
	memset(&p, 0, sizeof(p));
	return gs_result(ucp_put_nbx(ep, (const void *)buf, len, raddr, rkey, &p));
}

static gs_res gs_get(ucp_ep_h ep, uintptr_t buf, size_t len, uint64_t raddr, ucp_rkey_h rkey) {
	ucp_request_param_t p;
	memset(&p, 0, sizeof(p));
	return gs_result(ucp_get_nbx(ep, (void *)buf, len, raddr, rkey, &p));
}

// gs_atomic runs a fetching atomic: *val holds the operand (and, for
// CSWAP, *reply the compare value); *reply receives the old value.
static gs_res gs_atomic(ucp_ep_h ep, ucp_atomic_op_t op, const void *val, int width, void *reply,
                        uint64_t raddr, ucp_rkey_h rkey) {
	ucp_request_param_t p;
	memset(&p, 0, sizeof(p));
	p.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_REPLY_BUFFER;
	p.datatype = ucp_dt_make_contig(width);
	p.reply_buffer = reply;
	return gs_result(ucp_atomic_op_nbx(ep, op, val, 1, raddr, rkey, &p));
}

static gs_res gs_ep_flush(ucp_ep_h ep) {
	ucp_request_param_t p;
	memset(&p, 0, sizeof(p));
	return gs_result(ucp_ep_flush_nbx(ep, &p));
}

static gs_res gs_ep_close(ucp_ep_h ep) {
	ucp_request_param_t p;
	memset(&p, 0, sizeof(p));
	p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
	p.flags = UCP_EP_CLOSE_FLAG_FORCE;
	return gs_result(ucp_ep_close_nbx(ep, &p));
}

static void gs_am_sent(void *req, ucs_status_t st, void *user_data) {
	(void)req; (void)st;
	free(user_data);
}

// gs_am_send sends one 16-byte message and forgets it: the buffer is
// freed when UCP is done with it.
static ucs_status_t gs_am_send(ucp_ep_h ep, uint32_t type, uint32_t from, uint64_t arg) {
	char *buf = malloc(16);
	if (buf == NULL) {
		return UCS_ERR_NO_MEMORY;
	}
	memcpy(buf, &type, 4);
	memcpy(buf + 4, &from, 4);
	memcpy(buf + 8, &arg, 8);
	ucp_request_param_t p;
	memset(&p, 0, sizeof(p));
	p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
	p.cb.send = gs_am_sent;
	p.user_data = buf;
	p.flags = UCP_AM_SEND_FLAG_EAGER;
	ucs_status_ptr_t r = ucp_am_send_nbx(ep, GS_AM_ID, NULL, 0, buf, 16, &p);
	if (r == NULL) {
		free(buf);
		return UCS_OK;
	}
	if (UCS_PTR_IS_ERR(r)) {
		free(buf);
		return UCS_PTR_STATUS(r);
	}
	ucp_request_free(r); // the callback still runs, and frees buf
	return UCS_OK;
}

// gs_ep_info returns ucp_ep_print_info's text (malloc'ed; the caller frees).
static char *gs_ep_info(ucp_ep_h ep) {
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (f == NULL) {
		return NULL;
	}
	ucp_ep_print_info(ep, f);
	fclose(f);
	return text;
}
*/
import "C"

import (
	"fmt"
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
)

// ringAll in a RING message's argument asks the target to wake its
// runtime waiters too (after a runtime atomic).
const ringAll = 1

type ucxEvent struct {
	typ, from uint32
	arg       uint64
}

// drain returns the events the callbacks queued.
func (g *ucxLib) drain(buf []ucxEvent) []ucxEvent {
	var ev [64]C.gs_event
	for {
		k := int(C.gs_drain(g.g, &ev[0], C.size_t(len(ev))))
		for _, e := range ev[:k] {
			buf = append(buf, ucxEvent{typ: uint32(e._type), from: uint32(e.from), arg: uint64(e.arg)})
		}
		if k < len(ev) {
			return buf
		}
	}
}

// ucxLib is one PE's UCP context and worker.
type ucxLib struct {
	g *C.gs_t
}

func openUCX(name string) (*ucxLib, error) {
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	var g *C.gs_t
	if st := C.gs_open(&g, cn); st != C.UCS_OK {
		return nil, ucxError("initializing UCP (are UCX_TLS and UCX_NET_DEVICES right for this host?)", st)
	}
	return &ucxLib{g: g}, nil
}

func (g *ucxLib) close() { C.gs_close(g.g) }

func (g *ucxLib) progress() bool { return C.ucp_worker_progress(g.g.worker) != 0 }

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

// amoOp is a UCP atomic operation.
type amoOp = C.ucp_atomic_op_t

// The UCP atomic operations the transport uses.
const (
	amoAdd   = C.UCP_ATOMIC_OP_ADD
	amoSwap  = C.UCP_ATOMIC_OP_SWAP
	amoCswap = C.UCP_ATOMIC_OP_CSWAP
	amoAnd   = C.UCP_ATOMIC_OP_AND
	amoOr    = C.UCP_ATOMIC_OP_OR
	amoXor   = C.UCP_ATOMIC_OP_XOR
)

// amoBuf is C memory for an atomic's operand and reply, which UCP may use
// after the call returns.
type amoBuf struct{ p *C.uint64_t }

func newAmoBuf() amoBuf { return amoBuf{p: (*C.uint64_t)(C.calloc(2, 8))} }

func (b amoBuf) free() { C.free(unsafe.Pointer(b.p)) }

func (b amoBuf) words() *[2]uint64 { return (*[2]uint64)(unsafe.Pointer(b.p)) }

// atomic starts op with operand v (the new value for CSWAP, which
// stores it where the word equals cmp); the old value lands in the
// buffer's second word.
func (g *ucxLib) atomic(e *ucxEp, op amoOp, width int, off uint64, b amoBuf, v, cmp uint64) res {
	if e.ep == nil {
		return closedRes
	}
	w := b.words()
	w[0], w[1] = v, cmp
	if op == amoCswap {
		// UCP compares the word with the operand buffer and swaps in the
		// reply buffer's value.
		w[0], w[1] = cmp, v
	}
	if width == 4 {
		// The operand and reply are 4-byte values at the words' starts
		// (little endian, so the low halves already are).
		w[0], w[1] = w[0]&0xffffffff, w[1]&0xffffffff
	}
	return mkres(C.gs_atomic(e.ep, op, unsafe.Pointer(&w[0]), C.int(width), unsafe.Pointer(&w[1]), C.uint64_t(e.base+off), e.rkey))
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
