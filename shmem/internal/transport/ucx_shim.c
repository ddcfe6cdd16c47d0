//go:build ucx && cgo

// The C side of gshmem's UCX transport: see ucx_cgo.go.
#include "ucx_shim.h"

// gs_push queues an event; it takes data (malloc'ed, or NULL) and frees
// it when the event cannot be queued.
static void gs_push(gs_t *g, uint32_t type, uint32_t from, uint64_t arg, void *data, size_t len) {
	pthread_mutex_lock(&g->mu);
	if (g->nev == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 64;
		gs_event *ev = realloc(g->ev, cap * sizeof(*ev));
		if (ev == NULL) {
			g->dropped++;
			pthread_mutex_unlock(&g->mu);
			free(data);
			return;
		}
		g->ev = ev;
		g->cap = cap;
	}
	g->ev[g->nev].type = type;
	g->ev[g->nev].from = from;
	g->ev[g->nev].arg = arg;
	g->ev[g->nev].data = data;
	g->ev[g->nev].len = len;
	__atomic_store_n(&g->nev, g->nev + 1, __ATOMIC_RELEASE); // gs_spin reads it unlocked
	pthread_mutex_unlock(&g->mu);
}

// gs_drain copies up to max queued events into out and returns how many.
size_t gs_drain(gs_t *g, gs_event *out, size_t max) {
	pthread_mutex_lock(&g->mu);
	size_t k = g->nev < max ? g->nev : max;
	memcpy(out, g->ev, k * sizeof(*out));
	memmove(g->ev, g->ev + k, (g->nev - k) * sizeof(*out));
	__atomic_store_n(&g->nev, g->nev - k, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&g->mu);
	return k;
}

static void gs_am_sent(void *req, ucs_status_t st, void *user_data) {
	(void)req; (void)st;
	free(user_data);
}

static inline int64_t gs_now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

// gs_spin progresses g's worker until the Go side has something to do:
// events queued, req (when not NULL) complete, the awaited reply taken, another thread waiting for
// the worker (*want above 0), or work done while work_ends is set (others'
// requests may have completed) or *ring says that a waiter may need the
// heap's bell rung (progress may have applied a peer's put). Otherwise it
// returns (with GS_SPIN_IDLE) once progress found no work for idle_ns, or
// after max_ns in all. Polling here rather than from Go keeps the runtime
// out of the loop: each poll from Go is a cgo call and a turn of the Go
// side's bookkeeping, and the scheduler's monitor watches a thread in cgo
// calls every 20 us.
int gs_spin(gs_t *g, void *req, int64_t idle_ns, int64_t max_ns, const uint32_t *ring, const int32_t *want,
            int work_ends) {
	int64_t start = gs_now(), last = start;
	int r = 0;
	for (;;) {
		int did = ucp_worker_progress(g->worker) != 0;
		if (did) {
			r |= GS_SPIN_WORK;
		}
		if (__atomic_load_n(&g->nev, __ATOMIC_ACQUIRE) > 0) {
			r |= GS_SPIN_EVENTS;
		}
		if ((req != NULL && ucp_request_check_status(req) != UCS_INPROGRESS) || g->await_done) {
			r |= GS_SPIN_DONE;
		}
		if (__atomic_load_n(want, __ATOMIC_ACQUIRE) > 0) {
			r |= GS_SPIN_WANT;
		}
		if ((r & ~GS_SPIN_WORK) != 0) {
			return r;
		}
		if (did && (work_ends || (ring != NULL && __atomic_load_n(ring, __ATOMIC_ACQUIRE) != 0))) {
			return r;
		}
		int64_t now = gs_now();
		if (did) {
			last = now;
		} else if (now - last >= idle_ns) {
			return r | GS_SPIN_IDLE;
		}
		if (now - start >= max_ns) {
			return r;
		}
	}
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
		gs_push(g, type, from, a, NULL, 0);
	}
	return UCS_OK;
}

// gs_amo applies atomic op (GS_AMO_*, without the runtime flag) to the
// 4- or 8-byte word at p and returns its old value (0 for a store): the
// semantics of the Go side's atomicop.Apply, whose sequentially consistent
// atomics these are on x86 and arm64 alike.
uint64_t gs_amo(void *p, int width, int op, uint64_t v, uint64_t cmp) {
	if (width == 8) {
		uint64_t *w = p, old = cmp;
		switch (op) {
		case GS_AMO_LOAD: return __atomic_load_n(w, __ATOMIC_SEQ_CST);
		case GS_AMO_STORE: __atomic_store_n(w, v, __ATOMIC_SEQ_CST); return 0;
		case GS_AMO_SWAP: return __atomic_exchange_n(w, v, __ATOMIC_SEQ_CST);
		case GS_AMO_CSWAP:
			__atomic_compare_exchange_n(w, &old, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
			return old;
		case GS_AMO_ADD: return __atomic_fetch_add(w, v, __ATOMIC_SEQ_CST);
		case GS_AMO_AND: return __atomic_fetch_and(w, v, __ATOMIC_SEQ_CST);
		case GS_AMO_OR: return __atomic_fetch_or(w, v, __ATOMIC_SEQ_CST);
		case GS_AMO_XOR: return __atomic_fetch_xor(w, v, __ATOMIC_SEQ_CST);
		}
		return 0;
	}
	uint32_t *w = p, x = (uint32_t)v, old = (uint32_t)cmp;
	switch (op) {
	case GS_AMO_LOAD: return __atomic_load_n(w, __ATOMIC_SEQ_CST);
	case GS_AMO_STORE: __atomic_store_n(w, x, __ATOMIC_SEQ_CST); return 0;
	case GS_AMO_SWAP: return __atomic_exchange_n(w, x, __ATOMIC_SEQ_CST);
	case GS_AMO_CSWAP:
		__atomic_compare_exchange_n(w, &old, x, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
		return old;
	case GS_AMO_ADD: return __atomic_fetch_add(w, x, __ATOMIC_SEQ_CST);
	case GS_AMO_AND: return __atomic_fetch_and(w, x, __ATOMIC_SEQ_CST);
	case GS_AMO_OR: return __atomic_fetch_or(w, x, __ATOMIC_SEQ_CST);
	case GS_AMO_XOR: return __atomic_fetch_xor(w, x, __ATOMIC_SEQ_CST);
	}
	return 0;
}

static ucs_status_t gs_send_owned(ucp_ep_h ep, uint16_t id, char *buf, size_t len);

// gs_op_new returns a malloc'ed GS_AM_OP header of g's (opHeader.encode's
// layout; the rest zero), or NULL.
static char *gs_op_new(const gs_t *g, uint32_t kind, uint64_t id, uint64_t off, uint64_t a, uint64_t b, int op,
                       int width) {
	char *m = calloc(1, GS_OP_MIN);
	if (m == NULL) {
		return NULL;
	}
	uint8_t o = (uint8_t)op, w = (uint8_t)width;
	memcpy(m, &kind, 4);
	memcpy(m + 4, &g->me, 4);
	memcpy(m + 8, &id, 8);
	memcpy(m + 16, &g->token, 8);
	memcpy(m + 24, &off, 8);
	memcpy(m + 32, &a, 8);
	memcpy(m + 40, &b, 8);
	memcpy(m + 48, &o, 1);
	memcpy(m + 49, &w, 1);
	return m;
}

// gs_amo_send sends an atomic's GS_AM_OP message (call id, no payload) to
// ep and forgets it, as gs_op_send does; the header is built here, so the
// issuer's path allocates nothing on the Go side.
ucs_status_t gs_amo_send(gs_t *g, ucp_ep_h ep, uint64_t id, uint64_t off, uint64_t a, uint64_t b, int op, int width) {
	char *m = gs_op_new(g, GS_OP_AMO, id, off, a, b, op, width);
	if (m == NULL) {
		return UCS_ERR_NO_MEMORY;
	}
	return gs_send_owned(ep, GS_AM_OP, m, GS_OP_MIN);
}

// gs_amo_fast answers an atomic message m (GS_OP_MIN bytes) in the
// callback, as UCP answers its own emulated atomics: applied, replied to
// and done without waiting for the Go side, which then only rings the
// heap's bell where waiters are registered (GS_EV_RANG). It returns 0 for
// what it leaves to the Go side: other kinds, the runtime's 1- and 2-byte
// atomics, and everything the Go side refuses (and logs).
static int gs_amo_fast(gs_t *g, const char *m) {
	uint32_t kind, from;
	uint64_t id, token, off, a, b;
	memcpy(&kind, m, 4);
	memcpy(&from, m + 4, 4);
	memcpy(&id, m + 8, 8);
	memcpy(&token, m + 16, 8);
	memcpy(&off, m + 24, 8);
	memcpy(&a, m + 32, 8);
	memcpy(&b, m + 40, 8);
	int op = (uint8_t)m[48], width = (uint8_t)m[49];
	int base = op & ~GS_AMO_RUNTIME;
	if (g->eps == NULL || kind != GS_OP_AMO || token != g->token || from >= g->npe || g->eps[from] == NULL ||
	    base >= GS_AMO_NOPS || (width != 4 && width != 8) || off % width != 0 || off > g->heap_len - width) {
		return 0;
	}
	uint64_t old = gs_amo(g->heap + off, width, base, a, b);
	char *r = gs_op_new(g, GS_OP_REPLY, id, old, 0, 0, 0, 0); // status (52) 0: done
	if (r != NULL) {
		(void)gs_send_owned(g->eps[from], GS_AM_OP, r, GS_OP_MIN); // a failed endpoint reports itself
	}
	g->fast++;
	if (base != GS_AMO_LOAD) {
		// The bell (doorbell.Bell): seq, then the user, runtime and lock
		// waiters' counts. A user atomic wakes user and lock waiters, a
		// runtime one all (ringAtomic in ucx_amo.go).
		const uint32_t *bell = (const uint32_t *)g->heap;
		uint32_t n = __atomic_load_n(&bell[1], __ATOMIC_SEQ_CST) + __atomic_load_n(&bell[3], __ATOMIC_SEQ_CST);
		if (op & GS_AMO_RUNTIME) {
			n += __atomic_load_n(&bell[2], __ATOMIC_SEQ_CST);
		}
		if (n != 0) {
			gs_push(g, GS_EV_RANG, from, (op & GS_AMO_RUNTIME) != 0, NULL, 0);
		}
	}
	return 1;
}

// gs_reply_fast takes the reply the issuer polls for (await_id, from
// await_pe, with the job's token, status 0 and no payload), for gs_spin
// to see; it returns 0 for any other message.
static int gs_reply_fast(gs_t *g, const char *m) {
	uint32_t kind, from;
	uint64_t id, token;
	int32_t status;
	memcpy(&kind, m, 4);
	memcpy(&from, m + 4, 4);
	memcpy(&id, m + 8, 8);
	memcpy(&token, m + 16, 8);
	memcpy(&status, m + 52, 4);
	if (kind != GS_OP_REPLY || g->await_id == 0 || id != g->await_id || from != g->await_pe || token != g->token ||
	    status != 0) {
		return 0;
	}
	memcpy(&g->await_old, m + 24, 8);
	g->await_done = 1;
	g->await_id = 0;
	return 1;
}

// gs_op_cb answers an atomic (gs_amo_fast) or queues a copy of an
// operation or reply message: the Go side executes it after the progress
// call returns, outside any UCX callback.
static ucs_status_t gs_op_cb(void *arg, const void *header, size_t header_length, void *data,
                             size_t length, const ucp_am_recv_param_t *param) {
	gs_t *g = arg;
	if ((param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) || header_length + length < GS_OP_MIN) {
		return UCS_OK; // not ours: ours are sent eager, with the full header
	}
	if (header_length == 0 && length == GS_OP_MIN && (gs_reply_fast(g, data) || gs_amo_fast(g, data))) {
		return UCS_OK;
	}
	char *copy = malloc(header_length + length);
	if (copy == NULL) {
		pthread_mutex_lock(&g->mu);
		g->dropped++;
		pthread_mutex_unlock(&g->mu);
		return UCS_OK;
	}
	if (header_length > 0) {
		memcpy(copy, header, header_length);
	}
	if (length > 0) {
		memcpy(copy + header_length, data, length);
	}
	uint32_t from;
	memcpy(&from, copy + 4, 4);
	gs_push(g, GS_EV_OP, from, 0, copy, header_length + length);
	return UCS_OK;
}

static void gs_err_cb(void *arg, ucp_ep_h ep, ucs_status_t status) {
	gs_epctx *c = arg;
	(void)ep;
	gs_push(c->g, GS_EV_ERR, c->pe, (uint64_t)(int64_t)status, NULL, 0);
}

ucs_status_t gs_open(gs_t **out, const char *name) {
	ucp_config_t *cfg;
	ucs_status_t st = ucp_config_read(NULL, NULL, &cfg);
	if (st != UCS_OK) {
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
	p.features = UCP_FEATURE_RMA | UCP_FEATURE_AM | UCP_FEATURE_WAKEUP;
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
	if (st == UCS_OK) {
		ap.id = GS_AM_OP;
		ap.cb = gs_op_cb;
		st = ucp_worker_set_am_recv_handler(g->worker, &ap);
	}
	if (st != UCS_OK) {
		ucp_worker_destroy(g->worker);
		ucp_cleanup(g->ctx);
		free(g);
		return st;
	}
	*out = g;
	return UCS_OK;
}

ucs_status_t gs_fast_init(gs_t *g, uint32_t me, uint32_t npe, uint64_t token, void *heap, size_t len) {
	g->me = me; // gs_amo_send's header, whatever follows
	g->token = token;
	if (len < GS_OP_MIN) {
		return UCS_ERR_INVALID_PARAM; // no bell: leave atomics to the Go side
	}
	g->eps = calloc(npe, sizeof(*g->eps));
	if (g->eps == NULL) {
		return UCS_ERR_NO_MEMORY;
	}
	g->npe = npe;
	g->heap = heap;
	g->heap_len = len;
	return UCS_OK;
}

void gs_set_ep(gs_t *g, uint32_t pe, ucp_ep_h ep) {
	if (g->eps != NULL && pe < g->npe) {
		g->eps[pe] = ep;
	}
}

void gs_close(gs_t *g) {
	free(g->eps);
	ucp_worker_destroy(g->worker);
	ucp_cleanup(g->ctx);
	pthread_mutex_destroy(&g->mu);
	for (size_t i = 0; i < g->nev; i++) {
		free(g->ev[i].data);
	}
	free(g->ev);
	free(g);
}

ucs_status_t gs_mem_map(gs_t *g, void *addr, size_t len, ucp_mem_h *memh) {
	ucp_mem_map_params_t mp;
	memset(&mp, 0, sizeof(mp));
	mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH | UCP_MEM_MAP_PARAM_FIELD_FLAGS;
	mp.address = addr;
	mp.length = len;
	// The heap is address space, touched on use: do not populate (or, where
	// the device can fault pages in, pin) all of it up front.
	mp.flags = UCP_MEM_MAP_NONBLOCK;
	return ucp_mem_map(g->ctx, &mp, memh);
}

ucs_status_t gs_ep_create(gs_t *g, const void *addr, uint32_t pe, ucp_ep_h *ep, gs_epctx **ctxp) {
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
gs_res gs_put(ucp_ep_h ep, uintptr_t buf, size_t len, uint64_t raddr, ucp_rkey_h rkey) {
	ucp_request_param_t p;
	memset(&p, 0, sizeof(p));
	return gs_result(ucp_put_nbx(ep, (const void *)buf, len, raddr, rkey, &p));
}

gs_res gs_get(ucp_ep_h ep, uintptr_t buf, size_t len, uint64_t raddr, ucp_rkey_h rkey) {
	ucp_request_param_t p;
	memset(&p, 0, sizeof(p));
	return gs_result(ucp_get_nbx(ep, (void *)buf, len, raddr, rkey, &p));
}

gs_res gs_ep_flush(ucp_ep_h ep) {
	ucp_request_param_t p;
	memset(&p, 0, sizeof(p));
	return gs_result(ucp_ep_flush_nbx(ep, &p));
}

gs_res gs_ep_close(ucp_ep_h ep) {
	ucp_request_param_t p;
	memset(&p, 0, sizeof(p));
	p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
	p.flags = UCP_EP_CLOSE_FLAG_FORCE;
	return gs_result(ucp_ep_close_nbx(ep, &p));
}

// gs_send_owned sends buf (malloc'ed) as active message id and forgets
// it: buf is freed when UCP is done with it.
static ucs_status_t gs_send_owned(ucp_ep_h ep, uint16_t id, char *buf, size_t len) {
	ucp_request_param_t p;
	memset(&p, 0, sizeof(p));
	p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
	p.cb.send = gs_am_sent;
	p.user_data = buf;
	p.flags = UCP_AM_SEND_FLAG_EAGER;
	ucs_status_ptr_t r = ucp_am_send_nbx(ep, id, NULL, 0, buf, len, &p);
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

// gs_am_send sends one 16-byte message and forgets it.
ucs_status_t gs_am_send(ucp_ep_h ep, uint32_t type, uint32_t from, uint64_t arg) {
	char *buf = malloc(16);
	if (buf == NULL) {
		return UCS_ERR_NO_MEMORY;
	}
	memcpy(buf, &type, 4);
	memcpy(buf + 4, &from, 4);
	memcpy(buf + 8, &arg, 8);
	return gs_send_owned(ep, GS_AM_ID, buf, 16);
}

// gs_op_send sends one GS_AM_OP message (hdr, then data) and forgets it,
// as gs_am_send does: both are copied into one buffer that UCP owns until
// the send completes. Eager, so that the target's callback sees it whole.
ucs_status_t gs_op_send(ucp_ep_h ep, const void *hdr, size_t hlen, const void *data, size_t dlen) {
	char *buf = malloc(hlen + dlen);
	if (buf == NULL) {
		return UCS_ERR_NO_MEMORY;
	}
	memcpy(buf, hdr, hlen);
	if (dlen > 0) {
		memcpy(buf + hlen, data, dlen);
	}
	return gs_send_owned(ep, GS_AM_OP, buf, hlen + dlen);
}

// gs_ep_info returns ucp_ep_print_info's text (malloc'ed; the caller frees).
char *gs_ep_info(ucp_ep_h ep) {
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
