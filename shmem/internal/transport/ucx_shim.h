//go:build ucx && cgo

// The C side of gshmem's UCX transport (ucx_cgo.go says why it exists).
#ifndef GSHMEM_UCX_SHIM_H
#define GSHMEM_UCX_SHIM_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
#include <ucp/api/ucp.h>

// GS_AM_ID carries the 16-byte notices (ring, ping, bye, lost); GS_AM_OP
// the operations a target executes (atomics, accumulates) and their
// replies, whose header the Go side reads (ucx_amo.go).
enum { GS_AM_ID = 0x6773, GS_AM_OP = 0x6774 };

// Event types: the first four are messages from peers (the AM header's
// type), GS_EV_ERR is UCP's endpoint error callback, GS_EV_OP a GS_AM_OP
// message (data, len: a malloc'ed copy the Go side frees).
// GS_EV_RANG: the callback applied an atomic while waiters were registered
// on the heap's bell (arg: 1 for a runtime atomic); the Go side rings it.
enum { GS_EV_RING = 1, GS_EV_PING = 2, GS_EV_BYE = 3, GS_EV_LOST = 4, GS_EV_ERR = 5, GS_EV_OP = 6, GS_EV_RANG = 7 };

// GS_OP_MIN is the shortest GS_AM_OP message: its fixed header (the Go
// side's opHeader, ucx_amo.go). GS_OP_AMO and GS_OP_REPLY are its kinds
// of an atomic and of a reply; GS_AMO_* the operations (atomicop.Op)
// and GS_AMO_RUNTIME the flag of the runtime's own (transport.OpRuntime).
enum { GS_OP_MIN = 64, GS_OP_AMO = 1, GS_OP_REPLY = 3 };
enum {
	GS_AMO_LOAD, GS_AMO_STORE, GS_AMO_SWAP, GS_AMO_CSWAP, GS_AMO_ADD, GS_AMO_AND, GS_AMO_OR, GS_AMO_XOR, GS_AMO_NOPS,
	GS_AMO_RUNTIME = 0x80
};

typedef struct {
	uint32_t type;
	uint32_t from;
	uint64_t arg;
	void *data;
	size_t len;
} gs_event;

typedef struct {
	ucp_context_h ctx;
	ucp_worker_h worker;
	pthread_mutex_t mu; // guards the queue: an error callback may come from UCX's async thread
	gs_event *ev;
	size_t nev, cap;
	uint64_t dropped;
	// The target's answer to the atomics it can apply in the AM callback
	// (gs_amo_fast), set by gs_fast_init and gs_set_ep under the Go side's
	// lock, as every call that progresses the worker runs.
	uint64_t token;
	char *heap;
	size_t heap_len;
	uint32_t me, npe;
	ucp_ep_h *eps; // by PE; NULL for PEs not reached over UCX
	uint64_t fast; // atomics answered in the callback
	// The reply an issuer polls for (gs_spin): set by the Go side, which
	// reads await_old once await_done is set. The reply then queues no
	// event.
	uint64_t await_id, await_old;
	uint32_t await_pe;
	int32_t await_done;
} gs_t;

typedef struct {
	gs_t *g;
	uint32_t pe;
} gs_epctx;

// Results of a non-blocking call: a request to poll, or a final status.
typedef struct {
	void *req;
	ucs_status_t st;
} gs_res;

size_t gs_drain(gs_t *g, gs_event *out, size_t max);

// gs_spin's reasons to return (a mask).
enum {
	GS_SPIN_WORK = 1,   // progress did work
	GS_SPIN_EVENTS = 2, // the callbacks queued events
	GS_SPIN_DONE = 4,   // req completed
	GS_SPIN_WANT = 8,   // another thread wants the worker
	GS_SPIN_IDLE = 16,  // no work for idle_ns
};
int gs_spin(gs_t *g, void *req, int64_t idle_ns, int64_t max_ns, const uint32_t *ring, const int32_t *want,
            int work_ends);
ucs_status_t gs_open(gs_t **out, const char *name);
void gs_close(gs_t *g);
ucs_status_t gs_fast_init(gs_t *g, uint32_t me, uint32_t npe, uint64_t token, void *heap, size_t len);
void gs_set_ep(gs_t *g, uint32_t pe, ucp_ep_h ep);
uint64_t gs_amo(void *p, int width, int op, uint64_t v, uint64_t cmp);
ucs_status_t gs_mem_map(gs_t *g, void *addr, size_t len, ucp_mem_h *memh);
ucs_status_t gs_ep_create(gs_t *g, const void *addr, uint32_t pe, ucp_ep_h *ep, gs_epctx **ctxp);
gs_res gs_put(ucp_ep_h ep, uintptr_t buf, size_t len, uint64_t raddr, ucp_rkey_h rkey);
gs_res gs_get(ucp_ep_h ep, uintptr_t buf, size_t len, uint64_t raddr, ucp_rkey_h rkey);
gs_res gs_ep_flush(ucp_ep_h ep);
gs_res gs_ep_close(ucp_ep_h ep);
ucs_status_t gs_am_send(ucp_ep_h ep, uint32_t type, uint32_t from, uint64_t arg);
ucs_status_t gs_op_send(ucp_ep_h ep, const void *hdr, size_t hlen, const void *data, size_t dlen);
ucs_status_t gs_amo_send(gs_t *g, ucp_ep_h ep, uint64_t id, uint64_t off, uint64_t a, uint64_t b, int op, int width);
char *gs_ep_info(ucp_ep_h ep);

#endif
