//go:build ucx && cgo

package transport

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/sirupsen/logrus"
	"golang.org/x/sys/unix"

	"github.com/gshmem/gshmem/shmem/internal/doorbell"
)

// UCXBuilt says whether this program can reach remote peers over UCX.
const UCXBuilt = true

// UCX reaches the heaps of PEs on other nodes through UCP: the heap is
// registered with ucp_mem_map, and puts and gets are one-sided UCP
// operations on the peer's heap. Atomics and accumulates are executed by
// the target, which receives them as active messages (ucx_amo.go): that
// keeps them atomic with the CPU atomics of the target's node, as the TCP
// transport does by applying them at the target.
//
// One-sided writes do not involve the target's CPU, so nothing there would
// ring its doorbell. After a put the issuer flushes the endpoint (at most
// one flush per peer in flight, coalescing the puts behind it) and, once
// the flush says the data landed, sends the peer a small active message
// that makes the peer's progress goroutine ring its doorbell. A waiter
// asleep on its bell is therefore woken after every remote write that
// lands, one round trip later. Where UCP has no RMA lane to a peer (tcp),
// it emulates puts with active messages that the target's progress
// applies; the target rings its bell after every progress pass that did
// work, and the issuer sends no message. An atomic or accumulate rings the
// bell where it is applied.
//
// Every call into UCP holds mu (the worker is single-threaded), and one
// thread at a time drives progress: an operation's issuer while it waits
// (spinning, then asleep in poll(2) on the worker's event fd: ucx_wait.go),
// otherwise the PE's progress goroutine, which sleeps in poll(2) on the
// event fd when idle (after the wait policy's spin without work).
// Liveness is UCP's peer error handling (an endpoint error callback) plus
// a heartbeat message, as on tcp.
type UCX struct {
	me      int
	heap    []byte
	h       *health
	logp    atomic.Pointer[logrus.FieldLogger]
	timeout time.Duration
	lib     *ucxLib
	mem     ucxMem
	efd     int // the worker's event fd
	// noProgressRing stops progress from ringing the bell after work (a
	// test's way to see the doorbell messages alone wake waiters).
	noProgressRing atomic.Bool
	wake           int // an eventfd that interrupts the progress goroutine's poll
	// The issuers' hold on progress (progressLoop): how many drive it
	// now, and until when the last one's lease runs (monoNow).
	drivers atomic.Int32
	lease   atomic.Int64
	unpark  chan struct{} // ends the progress goroutine's park (unparkNow)
	leaseT  *time.Timer   // unparks it when the lease runs out (took)
	leaseOn atomic.Bool   // leaseT is armed
	// want counts the threads waiting for mu (lock): a thread polling
	// the worker in C under mu returns at once when it is above 0. It is
	// its own allocation, as C reads it.
	want *atomic.Int32
	// tickAt is when an issuer last rescheduled (issuerTick; monoNow).
	tickAt atomic.Int64
	// spinNs is how long a thread polls the worker before it sleeps
	// (SetRemoteSpin).
	spinNs atomic.Int64
	// ring is the heap's user waiter count, for gs_spin.
	ring *uint32

	mu       sync.Mutex        // every call into lib, and the fields below
	peers    []*ucxPeer        // by PE; nil for PEs reached otherwise
	token    uint64            // the job's token on operation messages (ucx_amo.go)
	calls    map[uint64]*ucxOp // operation messages awaiting their reply, by id
	nextID   uint64
	sleepers map[*ucxOp]struct{}
	leader   *ucxOp   // the sleeper whose issuer sleeps on the worker's event fd (ucx_wait.go)
	lwake    int      // an eventfd that interrupts the leader's poll
	asleep   bool     // the leader is in its poll, or about to be
	orphans  []*ucxOp // requests whose issuer gave up on a lost peer
	events   []ucxEvent
	down     bool

	stop     chan struct{}
	stopOnce sync.Once
	wg       sync.WaitGroup
}

type ucxPeer struct {
	pe    int
	e     *ucxEp
	lanes string
	swRMA bool // UCP emulates RMA to this peer over active messages
	// Guarded by UCX.mu:
	dirty     bool           // puts or non-blocking gets since the last Quiet
	fenced    bool           // a Fence since puts to this peer that no flush followed
	ringReq   unsafe.Pointer // the flush a doorbell message waits for
	ringAgain bool           // puts behind ringReq that need another message
	failed    bool           // UCP reported the endpoint failed
	bye       bool
	lastSeen  time.Time // when the heartbeat last found seen set
	seen      bool      // a sign of life since (the hot paths read no clock)
	nbi       []*ucxOp
}

// ucxOp is a UCP request, or an operation message's call, someone waits
// for.
type ucxOp struct {
	req      unsafe.Pointer
	pe       int
	st       int
	pin      runtime.Pinner // the Go buffer UCP reads or writes
	done     chan struct{}  // closed when it finishes; made by doneCh, under mu
	finished bool
	orphan   bool // freed by progress when it completes
	// A call (call set) completes by its reply: old and res receive what
	// the target returned, err what it refused.
	call bool
	id   uint64
	old  uint64
	res  []byte
	err  error
}

// doneCh returns op's done channel (under mu), made on first use: only a
// follower blocks on it, and most ops finish before one would.
func (op *ucxOp) doneCh() chan struct{} {
	if op.done == nil {
		op.done = make(chan struct{})
		if op.finished {
			close(op.done)
		}
	}
	return op.done
}

// signal wakes op's follower, if one made the done channel (under mu,
// once op is finished).
func (op *ucxOp) signal() {
	if op.done != nil {
		close(op.done)
	}
}

// How long a thread polls the worker for news (in C: gs_spin) before it
// sleeps on the worker's event fd is the World's wait policy's spin
// (SetRemoteSpin; 0 until the World sets it): an issuer waiting for its
// request, and the progress goroutine after its last work. A target
// serves a peer's atomics, accumulates and (where UCP emulates RMA) puts
// and gets in its progress, so a target asleep between two of them adds
// a wake-up to each (between the namespace hosts UCP's own put + flush
// took 20 us against a polling target, 60 us against one asleep on its
// event fd: test/perf/ucx-2026-12-01-s7.txt). A PE with a CPU of its own
// polls as long as its other waits do, a crowded node's PEs (more PEs
// than CPUs) hardly at all. One thread of a PE polls at a time
// (progressLoop, wait): two would take turns on the lock and on the CPUs
// the peer and the network need.

// ucxSlice bounds one gs_spin call. Below the Go scheduler's monitor's
// shortest period (20 us), so that the monitor never sees one cgo call
// twice: a P it sees in the same system call (a cgo call counts as one)
// on two of its rounds, with no other P idle, it takes from the thread,
// and it then checks every 20 us, a thread waking 50000 times a second on
// the CPUs the poll, the peer and the network need. Nor does the poller
// yield between slices (only every ucxTick): a goroutine readied
// meanwhile runs on an idle P, woken for it, while a Gosched wakes an idle
// P's thread to find nothing and may move the poller to another thread.
const ucxSlice = 15 * time.Microsecond

// ucxTick is how often a goroutine that polls the worker without ever
// blocking lets the Go scheduler reschedule it (progressLoop,
// issuerTick). The runtime's monitor preempts a goroutine that has run
// 10 ms without a reschedule, taking its P when it is in a cgo call, and
// after each such take it naps only 20 us for the next millisecond and
// more: a put_bw at 64 KiB woke it ~3500 times a second in each process
// (2300-2900 nanosleeps and 5600-6800 context switches per process
// against 350-970 and 1500-3200 with the tick: perf stat, 28160 puts;
// ucx_perftest's 80-90 switches), a thread taking the CPUs the poll, the
// peer and the network need. A Gosched costs one wake-up of an idle P's thread.
const ucxTick = 4 * time.Millisecond

// ucxLease is how long after an issuer's last call the progress goroutine
// leaves progress to the issuers (progressLoop), and so how late it may
// serve the peers once the issuers stop: where UCP emulates RMA (tcp), a
// peer's put into this heap lands up to ucxLease later than while this PE
// is idle.
const ucxLease = 100 * time.Microsecond

// startUCX exchanges worker addresses and heap keys through the bootstrap
// (every PE of the job takes part, also one without remote peers, which
// returns a nil transport) and connects to every remote peer. lanes[pe]
// summarizes UCP's lanes to each remote PE.
func startUCX(ctx context.Context, c ucxConfig) (rt remote, lanes []string, err error) {
	need := false
	for _, r := range c.Remote {
		need = need || r
	}
	var u *UCX
	var record []byte
	if need {
		if u, record, err = openUCXPE(c); err != nil {
			return nil, nil, err
		}
		defer func() {
			if err != nil {
				u.shutdown()
			}
		}()
	}
	raw, err := c.Allgather(ctx, record)
	if err != nil {
		return nil, nil, err
	}
	if !need {
		return nil, nil, nil
	}
	lanes = make([]string, c.N)
	for pe, r := range c.Remote {
		if !r {
			continue
		}
		rec, err := openRecord(c.Secret, pe, raw[pe])
		if err != nil {
			return nil, nil, err
		}
		if rec.size != uint64(len(c.Heap)) {
			return nil, nil, fmt.Errorf("transport: PE %d has a %d-byte heap, PE %d one of %d bytes: %w", pe, rec.size, c.Me, len(c.Heap), errHeapSize)
		}
		e, err := u.lib.connect(pe, rec.addr, rec.rkey, rec.base)
		if err != nil {
			return nil, nil, err
		}
		p := &ucxPeer{pe: pe, e: e, lastSeen: time.Now()}
		p.lanes = summarizeLanes(u.lib.info(e))
		p.swRMA = strings.Contains(p.lanes, swRMANote)
		lanes[pe] = p.lanes
		u.lock()
		u.peers[pe] = p
		u.lib.setEp(pe, e)
		u.mu.Unlock()
	}
	u.wg.Add(2)
	go u.progressLoop()
	go u.heartbeat()
	// Finish every endpoint's wire-up now (a flush waits for it), so
	// that a failure to reach a peer shows at setup and no endpoint is
	// left half wired when the job ends.
	if err := u.flushAll(ctx); err != nil {
		return nil, nil, err
	}
	return u, lanes, nil
}

func openUCXPE(c ucxConfig) (*UCX, []byte, error) {
	lib, err := openUCX(fmt.Sprintf("gshmem-pe%d", c.Me))
	if err != nil {
		return nil, nil, err
	}
	u := &UCX{me: c.Me, heap: c.Heap, h: c.Health, timeout: c.Timeout, lib: lib, efd: -1, wake: -1, lwake: -1,
		peers: make([]*ucxPeer, c.N), sleepers: map[*ucxOp]struct{}{}, stop: make(chan struct{}),
		token: opToken(c.Secret), calls: map[uint64]*ucxOp{}, want: new(atomic.Int32),
		ring: ringOf(c.Heap), unpark: make(chan struct{}, 1)}
	u.leaseT = time.AfterFunc(time.Hour, u.leaseEnd)
	u.leaseT.Stop()
	u.setLog(c.Log)
	fail := func(err error) (*UCX, []byte, error) {
		u.shutdown()
		return nil, nil, err
	}
	if u.mem, err = lib.memMap(c.Heap); err != nil {
		lib.close()
		u.down = true
		return nil, nil, err
	}
	if err = lib.fastInit(c.Me, c.N, u.token, c.Heap); err != nil {
		return fail(err)
	}
	if u.efd, err = lib.eventFd(); err != nil {
		return fail(err)
	}
	if u.wake, err = unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK); err != nil {
		return fail(fmt.Errorf("transport: ucx: eventfd: %w", err))
	}
	if u.lwake, err = unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK); err != nil {
		return fail(fmt.Errorf("transport: ucx: eventfd: %w", err))
	}
	addr, err := lib.address()
	if err != nil {
		return fail(err)
	}
	rkey, err := lib.rkeyPack(u.mem)
	if err != nil {
		return fail(err)
	}
	rec := ucxRecord{addr: addr, rkey: rkey, base: uint64(uintptr(unsafe.Pointer(&c.Heap[0]))), size: uint64(len(c.Heap))}
	return u, rec.seal(c.Secret, c.Me), nil
}

func (u *UCX) setLog(l logrus.FieldLogger) { u.logp.Store(&l) }

// setSpin sets how long this PE's threads poll the worker before they
// sleep: the World's wait policy's spin (WaitPolicy.SpinTime).
func (u *UCX) setSpin(d time.Duration) { u.spinNs.Store(int64(max(d, 0))) }

func (u *UCX) spin() time.Duration { return time.Duration(u.spinNs.Load()) }

// ringOf is the user waiter count of heap's bell (nil without one).
func ringOf(heap []byte) *uint32 {
	if b := doorbell.At(heap); b != nil {
		return b.UserWaiters()
	}
	return nil
}

// lock takes mu, telling a thread that polls the worker under it (in C)
// to let go.
func (u *UCX) lock() {
	if u.mu.TryLock() {
		return
	}
	u.want.Add(1)
	u.mu.Lock()
	u.want.Add(-1)
	// The progress goroutine let go of mu and parked for want: the
	// lease's timer unparks it, whatever this thread does next.
	u.took(monoNow())
}

func (u *UCX) log() logrus.FieldLogger { return *u.logp.Load() }

// ---- the exchanged record ------------------------------------------------------

// ucxRecord is what a PE publishes through the bootstrap: its worker
// address and its heap's address, size and remote key, sealed with an
// HMAC under the job secret. UCP does not authenticate peers; the MAC
// keeps a record that did not come from a holder of the secret from
// steering this PE's puts.
type ucxRecord struct {
	addr, rkey []byte
	base, size uint64
}

const ucxMagic = "GSUX"

func (r ucxRecord) seal(secret []byte, pe int) []byte {
	b := []byte(ucxMagic)
	b = binary.LittleEndian.AppendUint64(b, r.base)
	b = binary.LittleEndian.AppendUint64(b, r.size)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(r.addr)))
	b = append(b, r.addr...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(r.rkey)))
	b = append(b, r.rkey...)
	return append(b, recordMAC(secret, pe, b)...)
}

func openRecord(secret []byte, pe int, b []byte) (ucxRecord, error) {
	var r ucxRecord
	bad := func(why string) (ucxRecord, error) {
		return r, fmt.Errorf("transport: PE %d published a bad ucx record (%s): does it run with GSHMEM_REMOTE_TRANSPORT=ucx and the same job secret?", pe, why)
	}
	if len(b) < len(ucxMagic)+16+4+4+32 {
		return bad(fmt.Sprintf("%d bytes", len(b)))
	}
	body, mac := b[:len(b)-32], b[len(b)-32:]
	if !hmac.Equal(mac, recordMAC(secret, pe, body)) {
		return bad("its MAC does not match the job secret")
	}
	if string(body[:4]) != ucxMagic {
		return bad("wrong magic")
	}
	p := body[4:]
	r.base, r.size = binary.LittleEndian.Uint64(p), binary.LittleEndian.Uint64(p[8:])
	p = p[16:]
	for _, f := range []*[]byte{&r.addr, &r.rkey} {
		if len(p) < 4 {
			return bad("truncated")
		}
		n := int(binary.LittleEndian.Uint32(p))
		p = p[4:]
		if n > len(p) {
			return bad("truncated")
		}
		*f, p = p[:n:n], p[n:]
	}
	if len(r.addr) == 0 || len(r.rkey) == 0 {
		return bad("empty address or key")
	}
	return r, nil
}

func recordMAC(secret []byte, pe int, body []byte) []byte {
	m := hmac.New(sha256.New, secret)
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], uint32(pe))
	m.Write(b[:])
	m.Write(body)
	return m.Sum(nil)
}

// swRMANote is summarizeLanes' note for an endpoint without an RMA lane.
const swRMANote = "rma emulated over am"

// summarizeLanes condenses ucp_ep_print_info's lane lines
// ("lane[0]:  0:tcp/lo.0 md[0] -> md[0]/tcp/sysdev[255] am am_bw#0 ...")
// into "tcp/lo.0 (am am_bw ...)" entries, and says when UCP emulates
// RMA over active messages for want of a lane for it (atomics are always
// active messages: the transport's own, executed by the target).
func summarizeLanes(info string) string {
	var lanes []string
	rma := false
	for _, line := range strings.Split(info, "\n") {
		_, rest, ok := strings.Cut(line, "lane[")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) < 2 {
			continue
		}
		_, tl, _ := strings.Cut(f[1], ":")
		var roles []string
		if _, after, ok := strings.Cut(rest, "->"); ok {
			for _, r := range strings.Fields(after)[1:] {
				r, _, _ = strings.Cut(r, "#")
				roles = append(roles, r)
				rma = rma || strings.HasPrefix(r, "rma")
			}
		}
		lanes = append(lanes, fmt.Sprintf("%s (%s)", tl, strings.Join(roles, " ")))
	}
	if len(lanes) == 0 {
		return ""
	}
	if !rma {
		lanes = append(lanes, swRMANote)
	}
	return strings.Join(lanes, "; ")
}
