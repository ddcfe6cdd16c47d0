//go:build ucx && cgo

package transport

import (
	"fmt"
	"runtime"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ---- waiting for a request ----------------------------------------------------
//
// One thread at a time progresses a PE's worker. An issuer waiting for
// its request drives progress itself: it polls the worker in C (gs_spin)
// while progress does work and for the wait policy's spin after, then
// sleeps in poll(2) on the worker's event fd as the leader, and the
// progress goroutine stays parked meanwhile
// (progressLoop). So the reply that completes a request wakes the thread
// that waits for it and no other: no wake-up of the progress goroutine,
// and no hand-off from it to the issuer through the Go scheduler (each a
// futex wake and a context switch, the cost that dominated fetch-add and
// bandwidth loops: test/perf/ucx-2026-12-01-s7.txt). A second issuer
// that stops spinning while a leader sleeps waits for its request to be
// completed by whoever progresses (a follower); the leader hands progress
// back to the progress goroutine when it leaves with followers waiting.

// wait returns when op completes, or with ErrPeerLost when its peer is
// lost first (op is then left to the progress goroutine).
func (u *UCX) wait(op *ucxOp, what string) error {
	u.drivers.Add(1)
	// The clock (monoNow) is read once a turn: a read costs as much as
	// the rest of a turn's bookkeeping on a virtual machine's clock.
	start := monoNow()
	now, last, checked := start, start, start
	lead := false
	spin := int64(u.spin())
	for {
		u.issuerTick(now)
		u.lock()
		if u.down && !op.finished {
			// Shut down under this wait, with op unknown to shutdown:
			// its request went with the worker.
			u.drop(op)
		}
		busy, done := false, u.poll(op)
		if !done && !u.down {
			// Poll in C for what is left of the spin (at least one
			// pass), until op completes or something needs the Go side.
			// A call's reply without payload (an atomic's) is taken by
			// the AM callback for this poll (gs_reply_fast).
			fast := op.call && len(op.res) == 0
			var req unsafe.Pointer
			if fast {
				u.lib.await(op.id, op.pe)
			} else if !op.call {
				req = op.req
			}
			r := u.lib.spin(req, time.Duration(max(spin-(now-last), 0)), ucxSlice, u.ringFor(), u.want, u.othersWait())
			if fast {
				if old, ok := u.lib.awaited(); ok && u.calls[op.id] == op {
					delete(u.calls, op.id)
					op.old = old
					u.finishCall(op, stOK)
				}
				u.lib.unawait()
			}
			busy = u.serviceLocked(r&spinWork != 0)
			done = u.poll(op)
		}
		now = monoNow()
		if busy {
			last = now
		}
		spun := !done && now-last >= spin
		if spun && !lead {
			u.sleepers[op] = struct{}{}
			if u.leader != nil || u.down || u.lwake < 0 {
				// Someone else leads (or nobody can): follow.
				led := u.leader != nil
				u.mu.Unlock()
				u.drivers.Add(-1)
				if !led {
					u.handBack()
				}
				return u.follow(op, what)
			}
			u.leader, lead = op, true
		}
		if done {
			others := lead && u.unlead(op)
			u.mu.Unlock()
			u.drivers.Add(-1)
			if others {
				u.handBack()
			} else {
				u.took(now)
			}
			return u.opErr(op, what)
		}
		if spun {
			// The leader sleeps until the worker has news, then
			// spins again.
			if err := u.sleep(now-start < int64(ucxRawWait)); err != nil {
				u.unlead(op)
				u.mu.Unlock()
				u.drivers.Add(-1)
				u.handBack()
				u.log().Errorf("ucx transport: %v; waiting on the progress goroutine", err)
				return u.follow(op, what)
			}
			now = monoNow()
			last = now
		} else {
			u.mu.Unlock()
		}
		if now-checked > int64(ucxCheckEvery) {
			// Busy with other traffic, or woken by it: the peer may
			// still be gone.
			checked = now
			if err := u.h.check(op.pe); err != nil {
				u.lock()
				if lead {
					u.unlead(op)
				}
				u.mu.Unlock()
				u.drivers.Add(-1)
				u.handBack()
				return u.abandon(op, what, err)
			}
		}
	}
}

// drop ends op as canceled without touching its request (under mu, once
// the worker is gone).
func (u *UCX) drop(op *ucxOp) {
	if op.call {
		u.finishCall(op, int(errCanceled))
		return
	}
	op.req, op.st, op.finished = nil, int(errCanceled), true
	op.pin.Unpin()
	op.signal()
}

// sleep arms the worker (under mu, which it releases) and sleeps on its
// event fd and on u.lwake, which whoever else completes the leader's
// request writes. drivers still counts the leader, so the progress
// goroutine stays parked. raw (the first ucxRawWait of a wait) sleeps at
// most ucxRawSleep keeping the P (rawPpoll: where no other P is idle, a
// system call the scheduler knows of would have sysmon take this one and
// poll every 20 us); later ones sleep up to ucxCheckEvery in a system call
// the scheduler knows of.
func (u *UCX) sleep(raw bool) error {
	armed, err := u.lib.arm()
	lwake := u.lwake
	if err != nil || !armed {
		if err == nil {
			u.mu.Unlock() // news already: progress it
		}
		return err // the caller's error path unlocks
	}
	u.asleep = true
	u.mu.Unlock()
	defer func() {
		u.lock()
		u.asleep = false
		u.mu.Unlock()
	}()
	fds := [2]unix.PollFd{{Fd: int32(u.efd), Events: unix.POLLIN}, {Fd: int32(lwake), Events: unix.POLLIN}}
	if raw {
		err = rawPpoll(fds[:], ucxRawSleep)
	} else {
		ts := unix.NsecToTimespec(int64(ucxCheckEvery))
		_, err = unix.Ppoll(fds[:], &ts, nil)
		if err == unix.EINTR {
			err = nil
		}
	}
	if err != nil {
		u.log().Errorf("ucx transport: ppoll: %v", err)
		time.Sleep(time.Millisecond)
	}
	if fds[1].Revents != 0 {
		var buf [8]byte
		u.lock()
		if u.lwake >= 0 {
			_, _ = unix.Read(u.lwake, buf[:])
		}
		u.mu.Unlock()
	}
	return nil
}

// unlead ends op's leadership (under mu) and says whether others wait on
// progress: followers, or requests whose issuers gave up.
func (u *UCX) unlead(op *ucxOp) bool {
	if u.leader == op {
		u.leader = nil
	}
	if op.finished {
		delete(u.sleepers, op)
	}
	return len(u.sleepers) > 0 || len(u.orphans) > 0
}

// wakeLeader interrupts the leader's poll when someone else completed its
// request (under mu).
func (u *UCX) wakeLeader(op *ucxOp) {
	if op == u.leader && u.asleep && u.lwake >= 0 {
		var one [8]byte
		one[0] = 1
		_, _ = unix.Write(u.lwake, one[:])
	}
}

// follow sleeps until someone else's progress completes op, checking op's
// peer every ucxCheckEvery.
func (u *UCX) follow(op *ucxOp, what string) error {
	u.lock()
	done := op.doneCh()
	u.mu.Unlock()
	tick := time.NewTicker(ucxCheckEvery)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return u.opErr(op, what)
		case <-tick.C:
		}
		if err := u.h.check(op.pe); err != nil {
			return u.abandon(op, what, err)
		}
	}
}

// ucxCheckEvery is how often a waiting issuer checks its peer's health.
const ucxCheckEvery = 50 * time.Millisecond

// A leader sleeps keeping its P for the first ucxRawWait of its wait, in
// sleeps of at most ucxRawSleep: round trips of a busy network, not a
// long stall of the process's other goroutines.
const (
	ucxRawWait  = 5 * time.Millisecond
	ucxRawSleep = time.Millisecond
)

// abandon gives up waiting for op because its peer was lost (err): its
// request is left to the progress goroutine, a call to a reply that will
// find no call.
func (u *UCX) abandon(op *ucxOp, what string, err error) error {
	u.lock()
	defer u.mu.Unlock()
	if op.finished {
		return u.opErr(op, what)
	}
	delete(u.sleepers, op)
	if op.call {
		delete(u.calls, op.id)
		op.err = err
		u.finishCall(op, stOK)
	} else {
		op.orphan = true
		u.orphans = append(u.orphans, op)
	}
	return err
}

func (u *UCX) opErr(op *ucxOp, what string) error {
	if op.err != nil {
		return op.err
	}
	if op.st == stOK {
		return nil
	}
	if err := u.h.check(op.pe); err != nil {
		return err
	}
	return opError(fmt.Sprintf("%s PE %d", what, op.pe), op.st)
}

// issuing says whether the progress goroutine should leave progress to
// the issuers: while one drives it or waits for the lock, and until the
// lease the last one took runs out.
func (u *UCX) issuing() bool {
	return u.drivers.Load() > 0 || u.want.Load() > 0 || u.lease.Load() > monoNow()
}

// took notes an issuer's activity: the progress goroutine leaves the
// worker to the issuers for the next ucxLease, and the lease's timer
// unparks it then. The timer is armed when it is not already (it re-arms
// itself while the lease runs: leaseEnd), not moved on every call: moving
// it wakes the thread that sleeps until the next timer each time.
func (u *UCX) took(now int64) {
	if t := now + int64(ucxLease); t > u.lease.Load() {
		u.lease.Store(t)
	}
	if !u.leaseOn.Load() && u.leaseOn.CompareAndSwap(false, true) {
		u.leaseT.Reset(ucxLease)
	}
}

// leaseEnd is the lease's timer: it unparks the progress goroutine once
// the lease has run out, and waits for what is left of it otherwise.
func (u *UCX) leaseEnd() {
	for {
		if d := time.Duration(u.lease.Load() - monoNow()); d > 0 {
			u.leaseT.Reset(d)
			return
		}
		u.leaseOn.Store(false)
		// A took between the load and the store found the timer armed.
		if u.lease.Load() <= monoNow() || !u.leaseOn.CompareAndSwap(false, true) {
			break
		}
	}
	u.unparkNow()
}

// handBack gives progress back to the progress goroutine at once: an
// issuer stopped driving it with requests still open.
func (u *UCX) handBack() {
	u.lease.Store(0)
	u.unparkNow()
}

// unparkNow ends the progress goroutine's park, now or (when it is not
// parked) at its next one.
func (u *UCX) unparkNow() {
	select {
	case u.unpark <- struct{}{}:
	default:
	}
}

// issuerTick reschedules the calling issuer when no issuer has for
// ucxTick: a bandwidth or latency loop issues and waits without ever
// blocking (ucxTick says why it must not run 10 ms so). One stamp for all
// issuers, since they rarely poll at once (the lock goes to one at a
// time): a missed tick costs what every tick cost before.
func (u *UCX) issuerTick(now int64) {
	if t := u.tickAt.Load(); now-t >= int64(ucxTick) && u.tickAt.CompareAndSwap(t, now) {
		runtime.Gosched()
	}
}

// monoNow is a monotonic clock in nanoseconds.
func monoNow() int64 { return int64(time.Since(monoEpoch)) }

var monoEpoch = time.Now()
