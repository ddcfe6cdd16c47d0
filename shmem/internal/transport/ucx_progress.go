//go:build ucx && cgo

package transport

import (
	"fmt"
	"runtime"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/gshmem/gshmem/shmem/internal/doorbell"
)

// ---- progress ----------------------------------------------------------------

func (u *UCX) kick() {
	if u.wake >= 0 {
		var one [8]byte
		one[0] = 1
		_, _ = unix.Write(u.wake, one[:])
	}
}

// progressLoop is the PE's one progress goroutine: it serves the peers'
// messages, UCP's emulated operations aimed at this heap, and the issuers
// asleep on their requests. It polls the worker in C (gs_spin) until it
// has had nothing to do for the wait policy's spin, then sleeps in poll(2)
// on the worker's event fd.
//
// While an issuer drives progress itself (wait), waits for the lock, or
// issued within the last ucxLease, it stays off the lock and off the
// worker's event fd: two threads of one PE progressing the same worker
// take turns on the lock (a futex sleep and wake-up each time) and the
// CPUs the peer and the kernel's network path need, and a progress
// goroutine asleep on the event fd is woken by every reply the issuer is
// about to consume. It is then parked on u.unpark, which the lease's
// timer signals once the issuers have been idle for ucxLease, and an
// issuer that stops driving with requests still open at once (handBack,
// ucx_wait.go).
func (u *UCX) progressLoop() {
	defer u.wg.Done()
	fds := []unix.PollFd{{Fd: int32(u.efd), Events: unix.POLLIN}, {Fd: int32(u.wake), Events: unix.POLLIN}}
	var buf [8]byte
	armErr := false
	// check bounds a park whose unpark went missing.
	check := time.NewTimer(ucxCheckEvery)
	defer check.Stop()
	// last is the time of the last work (or wake-up): the poll goes on
	// for the wait policy's spin after it.
	last := monoNow()
	tick := last
	for {
		select {
		case <-u.stop:
			return
		default:
		}
		if now := monoNow(); now-tick >= int64(ucxTick) {
			tick = now
			runtime.Gosched() // serving a stream, it never blocks
		}
		if u.issuing() {
			// Parked off the scheduler's Ps: with a P idle, the
			// monitor leaves the issuer's P alone while it polls in C
			// (a P in a cgo call counts as in a system call, and
			// with none idle the monitor takes it after 20 us and
			// keeps waking every 20 us).
			check.Reset(ucxCheckEvery)
			select {
			case <-u.unpark:
			case <-u.stop:
			case <-check.C:
			}
			last = monoNow()
			tick = last // the park rescheduled it
			continue
		}
		u.mu.Lock() // not lock: an issuer polling under mu keeps it
		if u.down {
			u.mu.Unlock()
			return
		}
		// Poll for what is left of the spin since the last work.
		r := u.lib.spin(nil, max(u.spin()-time.Duration(monoNow()-last), 0), ucxSlice, u.ringFor(), u.want, u.othersWait())
		busy := u.serviceLocked(r&spinWork != 0)
		if busy {
			last = monoNow()
		}
		if busy || r&spinIdle == 0 {
			u.mu.Unlock()
			continue
		}
		armed, err := u.lib.arm()
		u.mu.Unlock()
		if err != nil {
			if !armErr {
				u.log().Errorf("ucx transport: %v; progressing every 100 ms", err)
				armErr = true
			}
			armed = true // poll with the timeout rather than spin
		}
		if !armed {
			continue
		}
		// The timeout only bounds how late a missed event is served.
		if _, err := unix.Poll(fds, 100); err != nil && err != unix.EINTR {
			u.log().Errorf("ucx transport: poll: %v", err)
			time.Sleep(10 * time.Millisecond)
		}
		if fds[1].Revents != 0 {
			_, _ = unix.Read(u.wake, buf[:])
		}
		last = monoNow()
	}
}

// rawPpoll is ppoll(2) for at most d (a leader's ucxRawSleep: short),
// without telling the Go scheduler: a goroutine in a system call that the
// scheduler knows of gets its P taken by sysmon when no P is idle, and
// sysmon then checks every 20 us, itself a thread waking 50000 times a
// second. Holding the P for d is what a spin of d would do.
func rawPpoll(fds []unix.PollFd, d time.Duration) error {
	ts := unix.NsecToTimespec(int64(d))
	_, _, e := unix.RawSyscall6(unix.SYS_PPOLL, uintptr(unsafe.Pointer(&fds[0])), uintptr(len(fds)),
		uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
	if e != 0 && e != unix.EINTR {
		return e
	}
	return nil
}

// progressLocked drives UCP until it is idle (or a while), then handles
// what the callbacks queued, the doorbell messages due and the requests
// others sleep on. It reports whether UCP or the callbacks had work.
func (u *UCX) progressLocked() bool {
	if u.down {
		return false
	}
	// Bounded: under a steady stream UCP always has more to do, and the
	// messages queued so far (heartbeats among them) must be seen.
	r := u.lib.spin(nil, 0, ucxPass, nil, u.want, false)
	return u.serviceLocked(r&spinWork != 0)
}

// ucxPass bounds progressLocked's progress.
const ucxPass = 50 * time.Microsecond

// ringFor is the ring argument of spin: nil when progress is not to ring
// the bell (noProgressRing).
func (u *UCX) ringFor() *uint32 {
	if u.noProgressRing.Load() {
		return nil
	}
	return u.ring
}

// othersWait says whether requests other than the spinning thread's wait
// for progress (under mu): then any work may have completed one.
func (u *UCX) othersWait() bool { return len(u.sleepers) > 0 || len(u.orphans) > 0 }

// serviceLocked does what progress leaves to the Go side (busy: UCP had
// work): it rings the bell, handles what the callbacks queued, the
// doorbell messages due and the requests others sleep on. It reports
// whether UCP or the callbacks had work.
func (u *UCX) serviceLocked(busy bool) bool {
	if u.down {
		return false
	}
	if busy && !u.noProgressRing.Load() {
		// UCP may have applied a peer's emulated put (startRing): wake
		// the user waiters (a load of the bell when there are none).
		doorbell.Ring(u.heap, false)
	}
	u.events = u.lib.drain(u.events[:0])
	busy = busy || len(u.events) > 0
	for _, e := range u.events {
		u.handle(e)
	}
	// The sleepers first: their issuers can run while the doorbell
	// messages below are sent.
	for op := range u.sleepers {
		if u.poll(op) {
			delete(u.sleepers, op)
		}
	}
	for _, p := range u.peers {
		if p != nil {
			u.serviceRing(p)
		}
	}
	if len(u.orphans) > 0 {
		keep := u.orphans[:0]
		for _, op := range u.orphans {
			if !u.poll(op) {
				keep = append(keep, op)
			}
		}
		clear(u.orphans[len(keep):])
		u.orphans = keep
	}
	return busy
}

func (u *UCX) handle(e ucxEvent) {
	pe := int(e.from)
	if pe < 0 || pe >= len(u.peers) || u.peers[pe] == nil {
		return // not a peer of ours over UCX
	}
	p := u.peers[pe]
	if e.typ != evErr {
		p.seen = true
	}
	switch e.typ {
	case evRing:
		doorbell.Ring(u.heap, false) // after puts: the user waiters
	case evOp:
		u.handleOp(p, e.data)
	case evRang:
		ringAtomic(u.heap, e.arg != 0) // the callback applied an atomic (gs_amo_fast)
	case evBye:
		p.bye = true
		u.h.bye(pe)
	case evLost:
		u.h.peerLost(int(e.arg), fmt.Sprintf("was lost (reported by PE %d)", pe))
	case evErr:
		p.failed = true
		if !u.h.isGone(pe) {
			u.h.peerLost(pe, fmt.Sprintf("is unreachable: UCX failed its endpoint (%s)", statusString(int(int64(e.arg)))))
		}
	}
}

// serviceRing sends p its doorbell message once the flush behind its puts
// is done, and starts the next flush when more puts came meanwhile.
func (u *UCX) serviceRing(p *ucxPeer) {
	if p.ringReq != nil {
		st := status(p.ringReq)
		if st == stInProgress {
			return
		}
		freeReq(p.ringReq)
		p.ringReq = nil
		if st == stOK {
			_ = u.lib.send(p.e, evRing, u.me, 0)
		}
	}
	if p.ringAgain {
		p.ringAgain = false
		u.startRing(p)
	}
}

// startRing flushes p's endpoint, then (in serviceRing) rings its bell.
//
// A peer whose puts UCP emulates rings its own bell once its progress
// has applied them (progressLocked): no message is needed.
func (u *UCX) startRing(p *ucxPeer) {
	if p.failed || p.swRMA {
		return
	}
	if p.ringReq != nil {
		p.ringAgain = true
		return
	}
	r := u.lib.flush(p.e)
	switch {
	case r.req != nil:
		p.ringReq = r.req
	case r.st == stOK:
		_ = u.lib.send(p.e, evRing, u.me, 0)
	}
}

// poll completes op when its request is done.
func (u *UCX) poll(op *ucxOp) bool {
	if op.finished {
		return true
	}
	if op.call {
		return false // its reply completes it
	}
	st := status(op.req)
	if st == stInProgress {
		return false
	}
	u.finish(op, st)
	return true
}

func (u *UCX) finish(op *ucxOp, st int) {
	if p := u.peers[op.pe]; st == stOK && p != nil {
		p.seen = true // a completed request is a sign of life
	}
	freeReq(op.req)
	op.req, op.st, op.finished = nil, st, true
	op.pin.Unpin()
	op.signal()
	u.wakeLeader(op)
}

// ---- liveness and teardown ---------------------------------------------------

func (u *UCX) heartbeat() {
	defer u.wg.Done()
	every := max(u.timeout/5, 50*time.Millisecond)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-u.stop:
			return
		case <-tick.C:
		}
		var silent []int
		u.lock()
		// Serve what arrived first: after this process was descheduled,
		// the peers' heartbeats wait in its sockets.
		u.progressLocked()
		now := time.Now()
		for _, p := range u.peers {
			if p == nil || p.failed || p.bye || u.h.check(p.pe) != nil {
				continue
			}
			_ = u.lib.send(p.e, evPing, u.me, 0)
			if p.seen {
				p.seen, p.lastSeen = false, now
			}
			if now.Sub(p.lastSeen) > u.timeout {
				silent = append(silent, p.pe)
			}
		}
		u.mu.Unlock()
		for _, pe := range silent {
			if !u.h.isGone(pe) {
				u.h.peerLost(pe, "stopped answering over ucx (no heartbeat within the peer timeout)")
			}
		}
	}
}

// tellLost tells every other peer that pe is lost.
func (u *UCX) tellLost(pe int) {
	u.lock()
	defer u.mu.Unlock()
	if u.down {
		return
	}
	for _, p := range u.peers {
		if p != nil && p.pe != pe && !p.failed {
			_ = u.lib.send(p.e, evLost, u.me, uint64(pe))
		}
	}
}

// close says goodbye to every peer, waits (a bounded time) until its
// goodbye has landed and every live peer has said goodbye too, then shuts
// down.
func (u *UCX) close(grace time.Duration) {
	deadline := time.Now().Add(grace)
	var flushes []unsafe.Pointer
	u.lock()
	if u.down {
		u.mu.Unlock()
		return
	}
	for _, p := range u.peers {
		if p != nil && !p.failed {
			_ = u.lib.send(p.e, evBye, u.me, 0)
			if r := u.lib.flush(p.e); r.req != nil {
				flushes = append(flushes, r.req)
			}
		}
	}
	u.mu.Unlock()
	for {
		u.lock()
		u.progressLocked()
		done := true
		for i, r := range flushes {
			if r != nil && status(r) == stInProgress {
				done = false
			} else if r != nil {
				freeReq(r)
				flushes[i] = nil
			}
		}
		for _, p := range u.peers {
			if p != nil && !p.bye && !p.failed && u.h.check(p.pe) == nil {
				done = false
			}
		}
		if done || time.Now().After(deadline) {
			for _, r := range flushes {
				if r != nil {
					freeReq(r)
				}
			}
			u.mu.Unlock()
			break
		}
		u.mu.Unlock()
		time.Sleep(time.Millisecond)
	}
	u.shutdown()
}

// shutdown stops the goroutines, closes the endpoints and releases UCP.
// Requests still pending fail, and their issuers return.
func (u *UCX) shutdown() {
	u.stopOnce.Do(func() {
		close(u.stop)
		u.kick()
		u.wg.Wait()
		u.leaseT.Stop()
		u.lock()
		defer u.mu.Unlock()
		if u.down {
			return
		}
		var closing []unsafe.Pointer
		for _, p := range u.peers {
			if p == nil {
				continue
			}
			if p.ringReq != nil {
				freeReq(p.ringReq)
				p.ringReq = nil
			}
			u.lib.setEp(p.pe, nil)
			if r := u.lib.release(p.e); r != nil {
				closing = append(closing, r)
			}
		}
		for end := time.Now().Add(2 * time.Second); time.Now().Before(end); {
			u.progressLocked()
			pending := false
			for _, r := range closing {
				pending = pending || status(r) == stInProgress
			}
			if !pending {
				break
			}
			time.Sleep(time.Millisecond)
		}
		for _, r := range closing {
			freeReq(r)
		}
		var left []*ucxOp
		for op := range u.sleepers {
			left = append(left, op)
		}
		left = append(left, u.orphans...)
		for _, p := range u.peers {
			if p != nil {
				left = append(left, p.nbi...)
				p.nbi = nil
			}
		}
		for _, op := range u.calls {
			u.finishCall(op, int(errCanceled))
		}
		clear(u.calls)
		for _, op := range left {
			if op.call {
				if !op.finished {
					u.finishCall(op, int(errCanceled))
				}
				continue
			}
			if !op.finished {
				st := status(op.req)
				if st == stInProgress {
					st = int(errCanceled)
				}
				op.orphan = true
				u.finish(op, st)
			}
		}
		clear(u.sleepers)
		u.orphans = nil
		if u.mem.h != nil {
			if err := u.lib.memUnmap(u.mem); err != nil {
				u.log().Errorf("ucx transport: %v", err)
			}
		}
		u.lib.close()
		for _, p := range u.peers {
			if p != nil {
				u.lib.forget(p.e)
			}
		}
		u.down = true
		for _, fd := range []*int{&u.wake, &u.lwake} {
			if *fd >= 0 {
				_ = unix.Close(*fd)
				*fd = -1
			}
		}
	})
}
