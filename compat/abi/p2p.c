//go:build cgo

/* The eager fast path of MPI_Send and MPI_Recv: a message of up to the
 * eager limit goes straight into a mapped peer's ring, and a blocking
 * receive takes it from this process's ring, without a call into Go (a
 * C->Go call costs about 50 ns, half of a whole 8-byte message between
 * two cores). Both read and advance compat's engine state as compat
 * publishes it (state.h: abi_p2p, abi_p2p_peer) and write messages in
 * compat's ring format, so the Go engine and this path share the rings:
 * the Go engine reads what C sent and C reads what Go sent.
 *
 * This path does only what cannot change the order in which messages
 * match. A send goes into the ring only when no earlier message to that
 * peer waits in the Go engine's queue. A receive takes the message at the
 * head of a ring only when the Go engine has no posted receive (which
 * would have matched first) and no unexpected message (which might match
 * first), and only an eager message of the receive's communicator and tag
 * that fits the buffer. Anything else (a wildcard that meets a control
 * message, a rendezvous, a full ring, a derived datatype that Go did not
 * publish (dtfast.go) or past the eager limit, an error, a
 * receive that waits longer than its spin) goes to the Go call, which
 * starts over. One of the two runs at a time: below MPI_THREAD_MULTIPLE
 * calls never overlap and the Go engine makes no progress outside a call;
 * at MULTIPLE the fast paths hold the engine's lock (multiple() below).
 * A small message of a published derived datatype is packed on the stack
 * and sent as the contiguous message the Go engine would send (its packed
 * bytes); a receive scatters it straight from the ring cells.
 *
 * MPI_Barrier and the small MPI_Allreduce run over the same rings, in the
 * communicator's collective context (at the end of this file). */

#include <math.h>
#include <sched.h>
#include <string.h>
#include "abi.h"
#include "bell.h"
#include "_cgo_export.h"

int32_t abi_type_size[ABI_TYPE_TABLE];
uint8_t abi_type_red[ABI_TYPE_TABLE];

/* How many sends and receives this path completed: diagnostics, which the
 * tests read through gshmem_abi_fast_counts to know that the path ran
 * (testdata/p2pfast.c). */
static uint64_t fast_sends, fast_recvs;

/* Their payload bytes, for the MPI_T performance variables with the
 * counts: plain increments, as the library gives MPI_THREAD_SERIALIZED. */
static uint64_t fast_send_bytes, fast_recv_bytes;

void gshmem_abi_fast_counts(uint64_t *sends, uint64_t *recvs)
{
    *sends = fast_sends;
    *recvs = fast_recvs;
}

void abi_t_fast_counts(uint64_t out[5])
{
    out[0] = fast_sends;
    out[1] = fast_send_bytes;
    out[2] = fast_recvs;
    out[3] = fast_recv_bytes;
    out[4] = abi_rma_fast_ops;
}

/* The polls of a receive before it leaves the wait to the Go engine's
 * (which polls on, then sleeps): some tens of microseconds, so that a
 * message that is on its way is taken here, while any longer wait is the
 * engine's, and so is a wait during which another peer's message
 * arrives. */
enum { RECV_SPIN = 1 << 14 };

/* The communicator behind a handle when the fast path may serve it. */
static inline abi_comm *fast_comm(MPI_Comm comm)
{
    abi_comm *c;
    if (comm == MPI_COMM_WORLD)
        c = abi_global.comm_world;
    else if (comm == MPI_COMM_SELF)
        c = abi_global.comm_self;
    else if ((uintptr_t)comm < ABI_ID_BASE || !abi_live((uintptr_t)comm))
        return NULL; /* Go reports a handle that is no communicator */
    else {
        c = (abi_comm *)comm;
        if (c->hdr.magic != ABI_MAGIC || c->hdr.kind != ABI_KIND_COMM)
            return NULL;
    }
    if (c == NULL || c->p2p == NULL || abi_global.finalized)
        return NULL;
    return c;
}

static inline abi_p2p_peer *peer_of(abi_p2p *e, int pe)
{
    return (abi_p2p_peer *)(e + 1) + pe;
}

/* The bytes of count instances of a predefined contiguous datatype, or -1
 * when the fast path cannot send them. */
static inline int64_t fast_bytes(MPI_Datatype dt, int count)
{
    uintptr_t h = (uintptr_t)dt;
    if (h >= ABI_TYPE_TABLE || count < 0 || abi_type_size[h] <= 0)
        return -1;
    return (int64_t)count * abi_type_size[h];
}

/* The largest derived-datatype message the fast path packs: on the stack
 * (with the eager limit, when that is smaller). */
enum { DT_STACK = 16384 };

/* The published layout of a committed derived datatype (dtfast.go), or
 * NULL when its messages take the Go path. */
static inline const abi_dtype *fast_dtype(MPI_Datatype dt)
{
    uintptr_t h = (uintptr_t)dt;
    if (h < ABI_ID_BASE || !abi_live(h))
        return NULL;
    const abi_dtype *d = (const abi_dtype *)h;
    if (d->hdr.magic != ABI_MAGIC || d->hdr.kind != ABI_KIND_DATATYPE || d->nruns == 0)
        return NULL;
    return d;
}

/* The largest message of d that the fast path packs: a strided vector's
 * (one run a tile, many tiles) only up to DT_STRIDED, past which the Go
 * engine's vector gather into the ring wins (dtype-perf.sh: 2 KiB
 * vectors were slower packed here). */
enum { DT_STRIDED = 1024 };
static inline int64_t dt_limit(const abi_dtype *d)
{
    return d->nruns == 1 && d->reps > 1 ? DT_STRIDED : DT_STACK;
}

/* Moves n bytes, with the short lengths of basic types as single moves. */
static inline void move(uint8_t *dst, const uint8_t *src, int64_t n)
{
    switch (n) {
    case 1: *dst = *src; break;
    case 2: memcpy(dst, src, 2); break;
    case 4: memcpy(dst, src, 4); break;
    case 8: memcpy(dst, src, 8); break;
    case 16: memcpy(dst, src, 16); break;
    default: memcpy(dst, src, (size_t)n);
    }
}

/* Packs count instances of d at buf (its pointer, as the program passes
 * it) into dst, in type-map order, as mpitype.Map.Pack. */
static void dt_pack(uint8_t *dst, const uint8_t *buf, const abi_dtype *d, int count)
{
    const uint8_t *base = buf + d->tlb;
    int nr = d->nruns;
    for (int i = 0; i < count; i++, base += d->extent) {
        const uint8_t *t = base;
        for (int k = 0; k < d->reps; k++, t += d->rstride)
            for (int r = 0; r < nr; r++) {
                int64_t n = d->run[r][1];
                move(dst, t + d->run[r][0], n);
                dst += n;
            }
    }
}

/* Scatters plen packed bytes into count instances of d at buf, as far as
 * they reach (a shorter message fills the first elements), as
 * mpitype.Map.Unpack. */
static void dt_unpack(uint8_t *buf, const uint8_t *src, uint64_t plen, const abi_dtype *d, int count)
{
    uint8_t *base = buf + d->tlb;
    int nr = d->nruns;
    int64_t left = (int64_t)plen;
    for (int i = 0; i < count && left > 0; i++, base += d->extent) {
        uint8_t *t = base;
        for (int k = 0; k < d->reps && left > 0; k++, t += d->rstride)
            for (int r = 0; r < nr && left > 0; r++) {
                int64_t n = d->run[r][1] < left ? d->run[r][1] : left;
                move(t + d->run[r][0], src, n);
                src += n;
                left -= n;
            }
    }
}

static inline uint64_t cells_of(uint64_t plen)
{
    return (ABI_P2P_HDR + plen + ABI_P2P_CELL - 1) / ABI_P2P_CELL;
}

/* Stores v into a word of a mapped heap and wakes the heap's sleeping
 * waiters, as the Go side's store-and-wake (shmem.Mapped.StoreUint64):
 * the heap starts with its doorbell, a sequence word then the count of
 * user waiters; the sequentially consistent store orders every earlier
 * store (the message) before the load of that count. */
static inline void store_wake(uint64_t *word, uint64_t v, uint32_t *bell)
{
    __atomic_store_n(word, v, __ATOMIC_SEQ_CST);
    bell_ring(bell, BELL_USER);
}

/* MPI_THREAD_MULTIPLE: the fast paths may run beside compat's engine on
 * other threads, so they touch its state only while holding its lock
 * (abi_p2p.lock, the word of compat's engineMutex, the same futex-mutex
 * protocol: 0 free, 1 held, 2 held with sleepers; a compare-and-swap from
 * 0 to 1 takes it, a swap of 0 lets it go and wakes a sleeper when it took
 * a 2). The fast paths never sleep on it: a take that keeps failing goes
 * to Go, whose lock sleeps. At the lower levels calls never overlap and
 * the fast paths take no lock: they pay nothing. */
static inline int multiple(void)
{
    return abi_global.thread_level == MPI_THREAD_MULTIPLE;
}

/* engine_trylock takes the lock if it is free. */
static inline int engine_trylock(abi_p2p *e)
{
    uint32_t z = 0;
    return __atomic_load_n(&e->lock, __ATOMIC_RELAXED) == 0 &&
           __atomic_compare_exchange_n(&e->lock, &z, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

/* engine_lock takes the lock within a bounded number of tries, yielding
 * the CPU between them, and reports whether it did: a send that finds the
 * engine busy that long goes to Go, whose lock waits. */
static inline int engine_lock(abi_p2p *e)
{
    for (int i = 0; i < 1024; i++) {
        if (engine_trylock(e))
            return 1;
        if (i >= 64)
            sched_yield();
    }
    return 0;
}

/* engine_unlock lets the lock go and reports whether a thread slept on it
 * (then woken): a poller that retook the lock at once would keep that
 * thread out. */
static inline int engine_unlock(abi_p2p *e)
{
    if (__atomic_exchange_n(&e->lock, 0, __ATOMIC_RELEASE) != 2)
        return 0;
    syscall(SYS_futex, &e->lock, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    return 1;
}

/* Writes an eager message into PE pe's ring when it goes there now: no
 * earlier message to pe waits in the Go engine's queue, pe's heap is
 * mapped and its ring has room. */
static int ring_put(abi_p2p *e, int pe, uint32_t ctx, int tag, const void *buf, uint64_t plen)
{
    abi_p2p_peer *p = peer_of(e, pe);
    if (p->queued != 0 || p->ring_out == NULL)
        return 0;
    uint64_t cells = cells_of(plen), ncells = e->ring_cells;
    if (p->wpos + cells - p->credit > ncells) {
        p->credit = __atomic_load_n(&e->ctrl_mine[ABI_P2P_CREDIT_BASE + pe], __ATOMIC_ACQUIRE);
        if (p->wpos + cells - p->credit > ncells)
            return 0; /* the engine queues it and waits for credit */
    }
    uint64_t pos = p->wpos;
    size_t off = (size_t)(pos & (ncells - 1)) * ABI_P2P_CELL;
    size_t room = (size_t)ncells * ABI_P2P_CELL - off - ABI_P2P_HDR;
    uint8_t *ring = p->ring_out;
    uint64_t *h = (uint64_t *)(ring + off);
    h[1] = ABI_P2P_EAGER | plen << 8;
    h[2] = (uint64_t)(uint32_t)tag | (uint64_t)ctx << 32;
    h[3] = 0;
    if (plen <= room) {
        if (plen > 0)
            memcpy(ring + off + ABI_P2P_HDR, buf, plen);
    } else {
        memcpy(ring + off + ABI_P2P_HDR, buf, room);
        memcpy(ring, (const uint8_t *)buf + room, plen - room);
    }
    store_wake(&h[0], pos + 1, p->heap_peer);
    p->wpos = pos + cells;
    fast_sends++; /* statistics (tests, MPI_T): approximate at MULTIPLE */
    fast_send_bytes += plen;
    return 1;
}

/* Sends an eager message now when the fast path may (ring_put), taking
 * the engine's lock at MPI_THREAD_MULTIPLE. */
static inline int put_now(abi_p2p *e, int pe, uint32_t ctx, int tag, const void *src, uint64_t plen)
{
    if (!multiple())
        return ring_put(e, pe, ctx, tag, src, plen);
    if (!engine_lock(e))
        return 0;
    int ok = ring_put(e, pe, ctx, tag, src, plen);
    engine_unlock(e);
    return ok;
}

/* Sends count instances of a published derived datatype packed on the
 * stack, when they fit the eager limit. */
static int send_packed(abi_comm *c, abi_p2p *e, const void *buf, int count, const abi_dtype *dt, int dest, int tag)
{
    if (count > dt_limit(dt) / dt->size)
        return 0;
    int64_t plen = (int64_t)count * dt->size;
    if ((uint64_t)plen > e->eager_limit)
        return 0;
    uint8_t packed[DT_STACK];
    dt_pack(packed, buf, dt, count);
    return put_now(e, c->pes[dest], c->ctx, tag, packed, (uint64_t)plen);
}

int abic_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    abi_comm *c = fast_comm(comm);
    if (c == NULL || dest < 0 || dest >= c->size || tag < 0)
        goto slow;
    abi_p2p *e = c->p2p;
    int64_t plen = fast_bytes(datatype, count);
    if (plen < 0) {
        const abi_dtype *dt;
        if ((uintptr_t)datatype >= ABI_TYPE_TABLE && count >= 0 && (uintptr_t)buf >= 4096 &&
            (dt = fast_dtype(datatype)) != NULL && send_packed(c, e, buf, count, dt, dest, tag))
            return MPI_SUCCESS;
        goto slow;
    }
    if ((uint64_t)plen > e->eager_limit || (plen > 0 && (uintptr_t)buf < 4096))
        goto slow;
    if (put_now(e, c->pes[dest], c->ctx, tag, buf, (uint64_t)plen))
        return MPI_SUCCESS;
slow:
    return abigo_Send((uintptr_t)buf, count, (uintptr_t)datatype, dest, tag, (uintptr_t)comm);
}

/* What try_take found at the head of a ring. */
enum { EMPTY, TAKEN, OTHER };

/* Takes the message at the head of PE pe's ring into buf when it is an
 * eager message of c's context ctx (its point-to-point or collective one)
 * that tag (or MPI_ANY_TAG) matches and cap bytes hold. */
static inline int try_take(abi_comm *c, abi_p2p *e, int pe, uint32_t ctx, int tag, void *buf, uint64_t cap, MPI_Status *st,
                           const abi_dtype *dt, int count)
{
    abi_p2p_peer *p = peer_of(e, pe);
    uint64_t ncells = e->ring_cells, mask = ncells - 1, pos = p->rpos;
    size_t rbytes = (size_t)ncells * ABI_P2P_CELL;
    uint8_t *ring = e->ring_mine + (size_t)pe * rbytes;
    size_t off = (size_t)(pos & mask) * ABI_P2P_CELL;
    uint64_t *h = (uint64_t *)(ring + off);
    if (__atomic_load_n(&h[0], __ATOMIC_ACQUIRE) != pos + 1)
        return EMPTY;
    uint64_t w1 = h[1], w2 = h[2], plen = w1 >> 8;
    int mtag = (int32_t)(uint32_t)w2;
    if ((w1 & 0xff) != ABI_P2P_EAGER || (uint32_t)(w2 >> 32) != ctx || (tag != MPI_ANY_TAG && mtag != tag) ||
        plen > cap || p->ctrl_peer == NULL || c->ranks[pe] < 0)
        return OTHER;
    size_t room = rbytes - off - ABI_P2P_HDR;
    if (dt != NULL) {
        /* A derived datatype: scattered from the ring cells, or from a
         * copy of a message that wraps at the ring's end. */
        const uint8_t *src = ring + off + ABI_P2P_HDR;
        uint8_t tmp[plen > room ? plen : 1];
        if (plen > room) {
            memcpy(tmp, src, room);
            memcpy(tmp + room, ring, plen - room);
            src = tmp;
        }
        dt_unpack(buf, src, plen, dt, count);
    } else if (plen <= room) {
        if (plen > 0)
            memcpy(buf, ring + off + ABI_P2P_HDR, plen);
    } else {
        memcpy(buf, ring + off + ABI_P2P_HDR, room);
        memcpy((uint8_t *)buf + room, ring, plen - room);
    }
    /* As the engine's drain: clear each payload cell's first word, so no
     * stale payload passes for a header (a stale header's stamp never
     * matches), then move on and return credit every quarter ring. */
    uint64_t cells = cells_of(plen);
    for (uint64_t k = 1; k < cells; k++)
        *(uint64_t *)(ring + (size_t)((pos + k) & mask) * ABI_P2P_CELL) = 0;
    p->rpos = pos + cells;
    if (p->rpos - p->returned >= ncells / 4) {
        p->returned = p->rpos;
        store_wake(&p->ctrl_peer[ABI_P2P_CREDIT_BASE + e->me], p->rpos, p->heap_peer);
    }
    if (st != MPI_STATUS_IGNORE) {
        st->MPI_SOURCE = c->ranks[pe];
        st->MPI_TAG = mtag;
        st->MPI_internal[ABI_STATUS_COUNT_LO] = (int)(uint32_t)plen;
        st->MPI_internal[ABI_STATUS_COUNT_HI] = (int)(uint32_t)(plen >> 32);
        st->MPI_internal[ABI_STATUS_CANCELLED] = 0;
    }
    fast_recvs++;
    fast_recv_bytes += plen;
    return TAKEN;
}

/* Whether a message from a PE other than pe waits in this PE's rings: a
 * receive from pe then leaves its wait to the Go engine, which takes it
 * (a peer may wait for that: a rendezvous's next step, the credit of a
 * full ring). */
static int others_arrived(abi_p2p *e, int pe)
{
    uint64_t ncells = e->ring_cells;
    size_t rbytes = (size_t)ncells * ABI_P2P_CELL;
    for (int q = 0; q < e->n; q++) {
        uint64_t pos = peer_of(e, q)->rpos;
        uint64_t *h = (uint64_t *)(e->ring_mine + (size_t)q * rbytes + (size_t)(pos & (ncells - 1)) * ABI_P2P_CELL);
        if (q != pe && __atomic_load_n(&h[0], __ATOMIC_ACQUIRE) == pos + 1)
            return 1;
    }
    return 0;
}

/* recv_locked is MPI_Recv's fast path at MPI_THREAD_MULTIPLE: each poll
 * takes the lock, checks that the engine's queues are empty (so the take
 * cannot change which receive a message matches), takes the head of the
 * ring(s) and counts the take in abi_p2p.taken, which compat's idle
 * waiters watch since it moves the ring positions they poll. */
static int recv_locked(abi_comm *c, abi_p2p *e, void *buf, int64_t cap, const abi_dtype *dt, int count, MPI_Datatype datatype,
                       int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    int lo = 0, hi = e->n;
    if (source != MPI_ANY_SOURCE) {
        lo = c->pes[source];
        hi = lo + 1;
    }
    for (int i = 0; i < RECV_SPIN; i++) {
        if (!engine_trylock(e))
            continue;
        int r = EMPTY;
        if (e->posted != 0 || e->unexpected != 0 || e->queued != 0)
            r = OTHER;
        for (int pe = lo; pe < hi && r == EMPTY; pe++)
            r = try_take(c, e, pe, c->ctx, tag, buf, (uint64_t)cap, status, dt, count);
        if (r == TAKEN)
            __atomic_store_n(&e->taken, e->taken + 1, __ATOMIC_RELEASE);
        if (r == EMPTY && source != MPI_ANY_SOURCE && (i & 63) == 63 && others_arrived(e, lo))
            r = OTHER;
        int slept = engine_unlock(e);
        if (r == TAKEN)
            return MPI_SUCCESS;
        if (r == OTHER || slept)
            break; /* Go's receive waits without holding the lock */
    }
    return abigo_Recv((uintptr_t)buf, count, (uintptr_t)datatype, source, tag, (uintptr_t)comm, status);
}

int abic_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    abi_comm *c = fast_comm(comm);
    if (c == NULL || (tag < 0 && tag != MPI_ANY_TAG) || (source != MPI_ANY_SOURCE && (source < 0 || source >= c->size)))
        goto slow;
    abi_p2p *e = c->p2p;
    int64_t cap = fast_bytes(datatype, count);
    const abi_dtype *dt = NULL;
    if (cap < 0) {
        /* A derived datatype the fast path scatters: of a message up to
         * the eager limit, which is all that it takes from a ring. */
        if ((uintptr_t)datatype < ABI_TYPE_TABLE || count < 0 || (dt = fast_dtype(datatype)) == NULL)
            goto slow;
        int64_t lim = dt_limit(dt);
        cap = count <= lim / dt->size ? (int64_t)count * dt->size : lim;
    }
    if (cap > 0 && (uintptr_t)buf < 4096)
        goto slow;
    if (multiple())
        return recv_locked(c, e, buf, cap, dt, count, datatype, source, tag, comm, status);
    if (e->posted != 0 || e->unexpected != 0 || e->queued != 0)
        goto slow;
    if (source != MPI_ANY_SOURCE) {
        int pe = c->pes[source];
        for (int i = 0; i < RECV_SPIN; i++) {
            int r = try_take(c, e, pe, c->ctx, tag, buf, (uint64_t)cap, status, dt, count);
            if (r == TAKEN)
                return MPI_SUCCESS;
            if (r == OTHER || ((i & 63) == 63 && others_arrived(e, pe)))
                break;
        }
        goto slow;
    }
    for (int i = 0; i < RECV_SPIN; i++) {
        for (int pe = 0; pe < e->n; pe++) {
            int r = try_take(c, e, pe, c->ctx, tag, buf, (uint64_t)cap, status, dt, count);
            if (r == TAKEN)
                return MPI_SUCCESS;
            if (r == OTHER)
                goto slow;
        }
    }
slow:
    return abigo_Recv((uintptr_t)buf, count, (uintptr_t)datatype, source, tag, (uintptr_t)comm, status);
}

/* MPI_Barrier: compat's point-to-point barrier (Comm.BarrierP2P), every
 * round in C where the fast path serves it: round d sends an empty
 * message to rank+d and takes one from rank-d, in the collective context
 * with the barrier's tag. A round's half that the fast path cannot serve
 * goes to Go (abiint_barrier_send, abiint_barrier_recv), which sends and
 * receives the same messages, so every PE runs the same protocol. */
int abic_Barrier(MPI_Comm comm)
{
    abi_comm *c = fast_comm(comm);
    if (c == NULL || multiple())
        return abigo_Barrier((uintptr_t)comm);
    abi_p2p *e = c->p2p;
    int n = c->size, me = c->rank, rc;
    uint32_t ctx = c->ctx | ABI_P2P_COLL_BIT;
    for (int d = 1; d < n; d <<= 1) {
        int to = (me + d) % n, from = (me - d + n) % n;
        if (!ring_put(e, c->pes[to], ctx, ABI_P2P_TAG_BARRIER, NULL, 0) &&
            (rc = abiint_barrier_send((uintptr_t)comm, to)) != MPI_SUCCESS)
            return rc;
        int r = OTHER, pe = c->pes[from];
        if (e->posted == 0 && e->unexpected == 0 && e->queued == 0) {
            for (int i = 0; i < RECV_SPIN; i++) {
                r = try_take(c, e, pe, ctx, ABI_P2P_TAG_BARRIER, NULL, 0, MPI_STATUS_IGNORE, NULL, 0);
                if (r != EMPTY || ((i & 63) == 63 && others_arrived(e, pe)))
                    break;
            }
        }
        if (r != TAKEN && (rc = abiint_barrier_recv((uintptr_t)comm, from)) != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* The folds of the small MPI_Allreduce. Integers wrap (as Go's); float
 * MIN and MAX are Go's min and max (a NaN wins; -0 is below +0), so that
 * the result is compat's for every op. Both PEs of a pair compute lower
 * op upper, so every PE ends with bitwise the same result. */
#define FOLD_INT(T, U)                                                                     \
    do {                                                                                   \
        T *o = (T *)out;                                                                   \
        const T *a = (const T *)lower, *b = (const T *)upper;                              \
        switch ((int)op) {                                                                 \
        case 0x21: for (int i = 0; i < n; i++) o[i] = (T)((U)a[i] + (U)b[i]); return 1;    \
        case 0x24: for (int i = 0; i < n; i++) o[i] = (T)((U)a[i] * (U)b[i]); return 1;    \
        case 0x22: for (int i = 0; i < n; i++) o[i] = a[i] < b[i] ? a[i] : b[i]; return 1; \
        case 0x23: for (int i = 0; i < n; i++) o[i] = a[i] > b[i] ? a[i] : b[i]; return 1; \
        case 0x28: for (int i = 0; i < n; i++) o[i] = a[i] & b[i]; return 1;               \
        case 0x29: for (int i = 0; i < n; i++) o[i] = a[i] | b[i]; return 1;               \
        case 0x2a: for (int i = 0; i < n; i++) o[i] = a[i] ^ b[i]; return 1;               \
        }                                                                                  \
        return 0;                                                                          \
    } while (0)

#define FOLD_FLOAT(T)                                                                      \
    do {                                                                                   \
        T *o = (T *)out;                                                                   \
        const T *a = (const T *)lower, *b = (const T *)upper;                              \
        switch ((int)op) {                                                                 \
        case 0x21: for (int i = 0; i < n; i++) o[i] = a[i] + b[i]; return 1;               \
        case 0x24: for (int i = 0; i < n; i++) o[i] = a[i] * b[i]; return 1;               \
        case 0x22:                                                                         \
            for (int i = 0; i < n; i++)                                                    \
                o[i] = isnan(a[i]) ? a[i] : isnan(b[i]) ? b[i] : a[i] < b[i] ? a[i]        \
                     : b[i] < a[i] ? b[i] : signbit(a[i]) ? a[i] : b[i];                   \
            return 1;                                                                      \
        case 0x23:                                                                         \
            for (int i = 0; i < n; i++)                                                    \
                o[i] = isnan(a[i]) ? a[i] : isnan(b[i]) ? b[i] : a[i] > b[i] ? a[i]        \
                     : b[i] > a[i] ? b[i] : signbit(a[i]) ? b[i] : a[i];                   \
            return 1;                                                                      \
        }                                                                                  \
        return 0;                                                                          \
    } while (0)

int abi_fold(int t, uintptr_t op, void *out, const void *lower, const void *upper, int n)
{
    switch (t) {
    case ABI_RED_I8: FOLD_INT(int8_t, uint8_t);
    case ABI_RED_I16: FOLD_INT(int16_t, uint16_t);
    case ABI_RED_I32: FOLD_INT(int32_t, uint32_t);
    case ABI_RED_I64: FOLD_INT(int64_t, uint64_t);
    case ABI_RED_U8: FOLD_INT(uint8_t, uint8_t);
    case ABI_RED_U16: FOLD_INT(uint16_t, uint16_t);
    case ABI_RED_U32: FOLD_INT(uint32_t, uint32_t);
    case ABI_RED_U64: FOLD_INT(uint64_t, uint64_t);
    case ABI_RED_F32: FOLD_FLOAT(float);
    case ABI_RED_F64: FOLD_FLOAT(double);
    }
    return 0;
}

/* The bytes of the largest allreduce that runs as recursive doubling. */
static inline uint64_t allreduce_max(abi_p2p *e)
{
    return e->eager_limit < ABI_ALLREDUCE_MAX ? e->eager_limit : ABI_ALLREDUCE_MAX;
}

/* MPI_Allreduce of up to ABI_ALLREDUCE_MAX bytes of one integer or float
 * type with SUM, PROD, MIN, MAX or a bitwise op, on a communicator whose
 * size is a power of two: recursive doubling over the rings, in C. In
 * round k each PE sends what it has to rank ^ 2^k and folds what comes
 * back, the lower rank's part first. Whether an allreduce runs so depends
 * only on what MPI makes every member pass alike (the communicator, the
 * op, the element type and count), and the Go side (allreduceRD in
 * coll.go) runs the same rounds for what the C side hands it: a derived
 * datatype, or a round's half the fast path cannot serve. */
int abic_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    abi_comm *c = fast_comm(comm);
    uintptr_t h = (uintptr_t)datatype;
    if (c == NULL || multiple() || c->size < 2 || (c->size & (c->size - 1)) != 0 || h >= ABI_TYPE_TABLE || abi_type_red[h] == ABI_RED_NONE)
        goto slow;
    abi_p2p *e = c->p2p;
    int64_t plen = fast_bytes(datatype, count);
    int t = abi_type_red[h];
    unsigned char tmp[ABI_ALLREDUCE_MAX];
    if (plen <= 0 || (uint64_t)plen > allreduce_max(e) || (uintptr_t)recvbuf < 4096 ||
        (sendbuf != MPI_IN_PLACE && ((uintptr_t)sendbuf < 4096 || sendbuf == recvbuf)) ||
        !abi_fold(t, (uintptr_t)op, NULL, NULL, NULL, 0))
        goto slow;
    if (sendbuf != MPI_IN_PLACE)
        memmove(recvbuf, sendbuf, (size_t)plen);
    int n = c->size, me = c->rank, rc;
    uint32_t ctx = c->ctx | ABI_P2P_COLL_BIT;
    for (int mask = 1; mask < n; mask <<= 1) {
        int partner = me ^ mask, pe = c->pes[partner];
        if (!ring_put(e, pe, ctx, ABI_P2P_TAG_ALLREDUCE, recvbuf, (uint64_t)plen) &&
            (rc = abiint_allreduce_send((uintptr_t)comm, partner, (uintptr_t)recvbuf, (int)plen)) != MPI_SUCCESS)
            return rc;
        int r = OTHER;
        MPI_Status st;
        if (e->posted == 0 && e->unexpected == 0 && e->queued == 0) {
            for (int i = 0; i < RECV_SPIN; i++) {
                r = try_take(c, e, pe, ctx, ABI_P2P_TAG_ALLREDUCE, tmp, (uint64_t)plen, &st, NULL, 0);
                if (r != EMPTY || ((i & 63) == 63 && others_arrived(e, pe)))
                    break;
            }
        }
        if (r == TAKEN && (st.MPI_internal[ABI_STATUS_COUNT_LO] != (int)plen || st.MPI_internal[ABI_STATUS_COUNT_HI] != 0))
            return abiint_raise(ABI_KIND_COMM, (uintptr_t)comm, MPI_ERR_TRUNCATE, (char *)"MPI_Allreduce");
        if (r != TAKEN && (rc = abiint_allreduce_recv((uintptr_t)comm, partner, (uintptr_t)tmp, (int)plen)) != MPI_SUCCESS)
            return rc;
        if (partner < me)
            abi_fold(t, (uintptr_t)op, recvbuf, tmp, recvbuf, count);
        else
            abi_fold(t, (uintptr_t)op, recvbuf, recvbuf, tmp, count);
    }
    return MPI_SUCCESS;
slow:
    return abigo_Allreduce((uintptr_t)sendbuf, (uintptr_t)recvbuf, count, (uintptr_t)datatype, (uintptr_t)op, (uintptr_t)comm);
}
