package doorbell

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The ring/sleep protocol, checked exhaustively: every interleaving of
// the steps of waiters (Wait's sleep loop) and writers (a store then Ring,
// as Mapped.StoreUint64 and the C library's store_wake do), each step one
// sequentially consistent action, from the start to the end. A lost
// wake-up is an end state in which every writer has finished, the watched
// word is set, and a waiter is asleep on the futex with nobody left to
// wake it (the model has no MaxSleep, which would only mask the loss).

// model is one state: the shared words and every process's step.
type model struct {
	data, count, seq int
	pc               [3]int // waiters first, then writers
	s                [3]int // each waiter's loaded sequence
	asleep           [3]bool
}

// The waiter's steps (Wait's loop, after its spin found nothing).
const (
	wCheck    = iota // load the word: set, done
	wRegister        // count++
	wSeq             // s = seq
	wRecheck         // load the word: set, count-- and done
	wSleep           // futex_wait(seq, s): sleeps while seq == s, else returns
	wAwake           // count--, then from the top
	wDone
)

// The writer's steps; broken loads the count before it stores the word
// (a plain store that the count's load passed: no fence between them).
const (
	rStore = iota
	rLoad
	rBump // seq++ when the count it loaded was not zero
	rWake // futex_wake: every sleeper wakes
	rDone
)

// explore returns the number of states seen and the lost wake-ups found.
func explore(waiters, writers int, broken bool) (states, lost int) {
	seen := map[model]bool{}
	var walk func(m model)
	walk = func(m model) {
		if seen[m] {
			return
		}
		seen[m] = true
		moved := false
		for i := range waiters + writers {
			if n, ok := step(m, i, waiters, broken); ok {
				moved = true
				walk(n)
			}
		}
		if !moved {
			for i := range waiters {
				if m.asleep[i] && m.data == 1 {
					lost++
				}
			}
		}
	}
	walk(model{})
	return len(seen), lost
}

// step runs process i's next step in m; false when it cannot move (done,
// or asleep).
func step(m model, i, waiters int, broken bool) (model, bool) {
	if i < waiters {
		switch m.pc[i] {
		case wCheck:
			if m.data == 1 {
				m.pc[i] = wDone
			} else {
				m.pc[i] = wRegister
			}
		case wRegister:
			m.count++
			m.pc[i] = wSeq
		case wSeq:
			m.s[i] = m.seq
			m.pc[i] = wRecheck
		case wRecheck:
			if m.data == 1 {
				m.count--
				m.pc[i] = wDone
			} else {
				m.pc[i] = wSleep
			}
		case wSleep:
			if m.asleep[i] {
				return m, false
			}
			if m.seq == m.s[i] {
				m.asleep[i] = true
			} else {
				m.pc[i] = wAwake
			}
		case wAwake:
			m.count--
			m.pc[i] = wCheck
		default:
			return m, false
		}
		return m, true
	}
	// A writer keeps the count it loaded in its s slot.
	switch m.pc[i] {
	case rStore: // broken: the load, which went first
		if broken {
			m.s[i] = m.count
		} else {
			m.data = 1
		}
		m.pc[i] = rLoad
	case rLoad: // broken: the store
		if broken {
			m.data = 1
		} else {
			m.s[i] = m.count
		}
		m.pc[i] = rBump
	case rBump:
		if m.s[i] != 0 {
			m.seq++
			m.pc[i] = rWake
		} else {
			m.pc[i] = rDone
		}
	case rWake:
		for w := range waiters {
			if m.asleep[w] {
				m.asleep[w] = false
				m.pc[w] = wAwake
			}
		}
		m.pc[i] = rDone
	default:
		return m, false
	}
	return m, true
}

// TestProtocolNoLostWakeup: one or two waiters, one or two writers: no
// interleaving loses a wake-up. The same check finds the loss when the
// writer's load of the count passes its store (a writer of plain stores
// without the fence that Mapped.Wake and store_wake's sequentially
// consistent store provide), so it can fail.
func TestProtocolNoLostWakeup(t *testing.T) {
	for _, c := range []struct{ waiters, writers int }{{1, 1}, {2, 1}, {1, 2}} {
		states, lost := explore(c.waiters, c.writers, false)
		assert.Zero(t, lost, "%d waiters, %d writers: %d lost wake-ups in %d states", c.waiters, c.writers, lost, states)
		assert.Greater(t, states, 10)
		t.Logf("%d waiters, %d writers: %d states, none lost", c.waiters, c.writers, states)
		_, lostBroken := explore(c.waiters, c.writers, true)
		assert.NotZero(t, lostBroken, "%d waiters, %d writers: the unfenced writer's loss is found", c.waiters, c.writers)
	}
}
