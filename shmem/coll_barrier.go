package shmem

import (
	"github.com/gshmem/gshmem/internal/racesync"
	"github.com/gshmem/gshmem/shmem/internal/doorbell"
	"github.com/gshmem/gshmem/shmem/internal/transport"
)

// Sync waits until every member of the team has entered it
// (shmem_team_sync). It does not complete outstanding RMA: puts issued
// before it may still be in flight. It is a recursive-doubling barrier
// (dissemination when the team's size is not a power of two) over
// cache-line words in the team's heap slot: ceil(log2 n) rounds, each one
// atomic write to a peer and one wait on this PE's own word (spinning
// briefly, then sleeping on the heap's futex). Members that called a
// different collective get ErrSizeMismatch, all of them.
func (t *Team) Sync() error {
	if err := t.usable(); err != nil {
		return err
	}
	return t.barrier()
}

// barrier is Sync on a usable team. Outside GSHMEM_DEBUG a barrier's
// descriptor is a constant, so its hash is sent without building one.
func (t *Team) barrier() error {
	t.open()
	if t.w.opts.Debug != "" {
		d := newDesc(kSync)
		return t.agree(&d, nil)
	}
	same, err := t.sync(syncHash)
	if err != nil || same {
		return err
	}
	d := newDesc(kSync)
	d[dSeq] = t.cseq
	return t.mismatch(d, "", -1)
}

// Barrier completes this PE's outstanding operations (Quiet) and then waits
// until every member has entered it (shmem_barrier on a team,
// nvshmem_barrier): after it, every put and atomic that any member issued
// before the barrier is visible to every member.
func (t *Team) Barrier() error {
	if err := t.usable(); err != nil {
		return err
	}
	if err := t.w.Quiet(); err != nil {
		return err
	}
	return t.barrier()
}

// sync is the team's barrier. In round k, PE i stores one word into its
// round-k line on its round-k partner, then waits for its own round-k line.
// The partner is i XOR 2^k when the team's size is a power of two
// (recursive doubling, which can also carry a reduction: see exchange) and
// i+2^k otherwise (dissemination); either way each line is written once per
// barrier. The word holds the barrier's epoch (8 bits) and the smallest and
// largest descriptor hashes seen so far (28 bits each), so one store per
// round carries both the arrival and the argument check, and a reader never
// mixes rounds. Lines alternate between two halves by epoch parity: a line
// gets epochs e, e+2, ... and a fast PE's next barrier cannot overwrite a
// line a slow PE has yet to read (it cannot finish barrier e+1 before every
// PE has finished barrier e), so 8 bits tell the current epoch from the
// stale one. It returns whether every member passed the same hash.
func (t *Team) sync(h uint32) (bool, error) { return t.exchange(h, nil, nil) }

// lineData is how many payload bytes ride in a barrier line after its word.
const lineData = 56

// exchange is sync carrying a reduction of up to lineData bytes: acc goes
// into the rest of the partner's line before the word (put, then the word
// as an atomic store: the transport keeps the order), and once the
// partner's word has arrived fold combines the partner's bytes with acc.
// With a payload the team's size must be a power of two, so that the
// rounds pair PEs (recursive doubling): after round k each PE holds the
// reduction over the 2^(k+1) PEs of its block, and both PEs of a pair fold
// the lower block into the upper one in that order, so every PE ends with
// bitwise the same result. On a mapped team the payload costs nothing: it
// travels in the line that the word pulls over anyway.
func (t *Team) exchange(h uint32, acc []byte, fold lineFold) (bool, error) {
	n := len(t.members)
	if n == 1 {
		return true, nil
	}
	// Race builds: what this PE did before the barrier is ordered before
	// what every member does after it (the words are outside Go's memory).
	racesync.Release()
	defer racesync.Acquire()
	w := t.w
	t.bepoch++
	e := uint64(t.bepoch & 0xff)
	base := t.slotOff + uint64(t.bepoch&1)*uint64(w.teams.rounds)*64
	const mask = 1<<28 - 1
	lo, hi := uint64(h)&mask, uint64(h)&mask
	pow2 := n&(n-1) == 0
	for k, d := 0, 1; d < n; k, d = k+1, d<<1 {
		p := t.me ^ d
		if !pow2 {
			p = (t.me + d) % n
		}
		line := base + uint64(k)*64
		word := e<<56 | lo<<28 | hi
		if m := t.remote(p); m != nil {
			// The transport's put and atomic store, without two calls
			// and two doorbell checks.
			copy(m[line+8:line+8+uint64(len(acc))], acc)
			storeLocal(m, line, word)
			doorbell.Ring(m, true)
		} else {
			to := t.members[p]
			if len(acc) > 0 {
				if err := w.tr.Put(to, line+8, acc); err != nil {
					return false, err
				}
			}
			if _, err := w.tr.Atomic(to, line, 8, transport.OpStore|transport.OpRuntime, word, 0); err != nil {
				return false, err
			}
		}
		v, err := t.waitEpoch(line, e, p)
		if err != nil {
			return false, err
		}
		lo, hi = min(lo, v>>28&mask), max(hi, v&mask)
		if fold != nil {
			in := w.heap[line+8 : line+8+uint64(len(acc))]
			if p < t.me {
				// The lower block comes first. Folding into the line
				// itself would take it back from the partner's cache.
				tmp := asBytes(t.lineTmp[:])[:len(acc)]
				copy(tmp, in)
				fold(tmp, acc)
				copy(acc, tmp)
			} else {
				fold(acc, in)
			}
		}
	}
	return lo == hi, nil
}

func (t *Team) waitEpoch(off, e uint64, partner int) (uint64, error) {
	t.wOff, t.wE = off, e
	for range t.spinFor(partner) {
		if t.epochReady() {
			t.polled()
			return t.wV, nil
		}
	}
	if t.readyFn == nil {
		t.readyFn = t.epochReady // allocated once, not per wait
	}
	err := t.fallback(t.readyFn)
	return t.wV, err
}

// epochReady reports whether the barrier line at t.wOff carries epoch
// t.wE, leaving its word in t.wV.
func (t *Team) epochReady() bool {
	t.wV = loadLocal[uint64](t.w.heap, t.wOff)
	return t.wV>>56 == t.wE
}

// exitSync is a barrier that ends a collective whose PEs read or write each
// other's memory, so that none returns while a peer still uses its buffers.
func (t *Team) exitSync() error {
	_, err := t.sync(0)
	return err
}

// spinFor is the polls of a wait for team member p's word: on a crowded
// node whose PEs are pinned (World.placePeers), none for a partner on this
// PE's CPU (it runs only once this PE lets go of the CPU), pairSpin for
// one on another CPU; elsewhere the team's adaptive spin.
func (t *Team) spinFor(p int) int {
	if c := t.w.cpuOf; c != nil {
		mine, theirs := c[t.w.pe], c[t.members[p]]
		if mine >= 0 && theirs >= 0 {
			if mine == theirs {
				return 0
			}
			if t.w.pairSpin > 0 {
				return t.w.pairSpin
			}
		}
	}
	return t.spin()
}
