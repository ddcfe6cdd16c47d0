package transport

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/sirupsen/logrus"

	"github.com/gshmem/gshmem/shmem/internal/doorbell"
)

// Multi routes each peer to the transport that reaches it: load/store
// through a mapping of its heap for PEs on this node (shm), and the remote
// transport (tcp or ucx) for the others. A node-local peer's heap is mapped
// when this PE first touches it (lazy.go), so that a PE's address space and
// page tables grow with the peers it uses, not with the job. Multi also
// watches every peer's liveness: node-local peers through the unix sockets
// their heaps (or the node's heartbeat table) came over and through that
// table, remote ones through the remote transport. The first loss is sticky
// (Lost), wakes this PE's waiters and is passed on over every link.
type Multi struct {
	me    int
	size  int                    // every heap's size
	bases []atomic.Pointer[byte] // each mapped heap's first byte; nil until mapped (self: from the start)
	lazy                         // how node-local peers get mapped (lazy.go)
	tcp   *TCP                   // the tcp transport, when it is rem (tests reach into it)
	rem   remote                 // nil when every peer is on this node; set before Connect returns
	tcpMu sync.Mutex
	h     *health
	once  sync.Once
	wg    sync.WaitGroup

	beatStop chan struct{} // ends the heartbeat (beat.go); set before it starts
	beatOnce sync.Once

	relMu    sync.RWMutex // wake and a first mapping must not meet an unmapped heap
	released bool
}

// Lost returns an error wrapping ErrPeerLost once any peer of the job is
// known to be dead (or finalized while this PE still waits), nil before.
func (m *Multi) Lost() error { return m.h.err() }

// PeerErr returns an error wrapping ErrPeerLost when pe is lost or has
// finalized, at once (without Lost's grace): for a wait on pe's own words.
func (m *Multi) PeerErr(pe int) error { return m.h.check(pe) }

// LostPEs returns the peers known lost, in increasing order.
func (m *Multi) LostPEs() []int { return m.h.lostPEs() }

// Excuse lets this PE's waits go on without the lost peers pes: their
// loss ends only the waits and operations that name them.
func (m *Multi) Excuse(pes []int) { m.h.excuse(pes) }

// Excused reports whether pe was excused.
func (m *Multi) Excused(pe int) bool { return m.h.isExcused(pe) }

// heap returns pe's heap if it is mapped already: the one atomic load of
// every operation on a mapped peer.
func (m *Multi) heap(pe int) []byte {
	if p := m.bases[pe].Load(); p != nil {
		return unsafe.Slice(p, m.size)
	}
	return nil
}

// Mapped implements Transport: a node-local peer is mapped here on its
// first use. It returns nil for a remote peer, and for a node-local one
// that cannot be reached (lost or finalized): the operations then report
// why.
func (m *Multi) Mapped(pe int) []byte {
	if p := m.bases[pe].Load(); p != nil {
		return unsafe.Slice(p, m.size)
	}
	h, _ := m.mapLocal(pe)
	return h
}

// Local reports whether pe is reached by load/store (mapped now or on
// first use): node-local, or this PE.
func (m *Multi) Local(pe int) bool { return pe == m.me || m.local[pe] }

// Put implements Transport. A mapped peer's heap stays mapped after the
// peer dies, so the store would succeed: the one load of h.down (nonzero
// once any peer is down) is what makes it fail instead. The mapped path is
// written out here, and the rest (a first touch, a peer down, a remote
// peer) is putSlow's, so that a put into a mapped peer costs what it cost
// before heaps were mapped lazily.
func (m *Multi) Put(pe int, off uint64, src []byte) error {
	if p := m.bases[pe].Load(); p != nil && m.h.down.Load() == 0 {
		h := unsafe.Slice(p, m.size)
		copy(h[off:off+uint64(len(src))], src)
		doorbell.Ring(h, false)
		return nil
	}
	return m.putSlow(pe, off, src)
}

func (m *Multi) putSlow(pe int, off uint64, src []byte) error {
	h, err := m.mapLocal(pe)
	if err != nil {
		return err
	}
	if h == nil {
		return m.rem.Put(pe, off, src)
	}
	if err := m.h.check(pe); err != nil {
		return err
	}
	putInto(h, off, src)
	return nil
}

// PutNBI implements Transport.
func (m *Multi) PutNBI(pe int, off uint64, src []byte) error {
	if h := m.heap(pe); h != nil {
		putInto(h, off, src)
		return nil
	}
	if !m.local[pe] {
		return m.rem.PutNBI(pe, off, src)
	}
	return m.Put(pe, off, src)
}

// Get implements Transport, with Put's split between the mapped path and
// getSlow.
func (m *Multi) Get(pe int, off uint64, dst []byte) error {
	if p := m.bases[pe].Load(); p != nil && m.h.down.Load() == 0 {
		copy(dst, unsafe.Slice(p, m.size)[off:off+uint64(len(dst))])
		return nil
	}
	return m.getSlow(pe, off, dst)
}

func (m *Multi) getSlow(pe int, off uint64, dst []byte) error {
	if err := m.h.err(); err != nil {
		return err // the job's loss (see atomicSlow)
	}
	h, err := m.mapLocal(pe)
	if err != nil {
		return err
	}
	if h == nil {
		return m.rem.Get(pe, off, dst)
	}
	if err := m.h.check(pe); err != nil {
		return err
	}
	getFrom(h, off, dst)
	return nil
}

// GetNBI implements Transport.
func (m *Multi) GetNBI(pe int, off uint64, dst []byte) error {
	if m.heap(pe) == nil && !m.local[pe] {
		return m.rem.GetNBI(pe, off, dst)
	}
	return m.Get(pe, off, dst)
}

// Atomic implements Transport, with Put's split between the mapped path
// and atomicSlow.
func (m *Multi) Atomic(pe int, off uint64, width int, op AtomicOp, operand, compare uint64) (uint64, error) {
	if p := m.bases[pe].Load(); p != nil && m.h.down.Load() == 0 {
		return atomicOn(unsafe.Slice(p, m.size), off, width, op, operand, compare)
	}
	return m.atomicSlow(pe, off, width, op, operand, compare)
}

// atomicSlow and getSlow report the job's loss (Lost) as well as their
// target's: a blocking Get or atomic is a completion point, as Quiet and
// every wait are, so that a PE issuing only atomics to live peers is told
// of another PE's loss (once it is visible, after lossGrace). A loss that
// this PE excused (World.ExcuseLost: it agreed to go on without that PE)
// fails only the operations aimed at it.
func (m *Multi) atomicSlow(pe int, off uint64, width int, op AtomicOp, operand, compare uint64) (uint64, error) {
	if err := m.h.err(); err != nil {
		return 0, err
	}
	h, err := m.mapLocal(pe)
	if err != nil {
		return 0, err
	}
	if h == nil {
		if base, _ := op.Split(); base > OpXor || (width != 4 && width != 8) {
			return 0, fmt.Errorf("transport: atomic op %d of width %d", op, width)
		}
		return m.rem.Atomic(pe, off, width, op, operand, compare)
	}
	if err := m.h.check(pe); err != nil {
		return 0, err
	}
	return atomicOn(h, off, width, op, operand, compare)
}

// Notify implements Transport. A remote peer is woken by its own progress
// goroutine after each write, and a caller that wrote through Mapped
// memory has mapped its target, so only mapped peers need it.
func (m *Multi) Notify(pe int) {
	if h := m.heap(pe); h != nil {
		doorbell.Ring(h, true)
	}
}

// Fence implements Transport: shm stores are ordered already; the remote
// transport orders its own.
func (m *Multi) Fence() error {
	if m.rem == nil {
		return nil
	}
	return m.rem.Fence()
}

// Quiet implements Transport. Stores into a mapped peer completed when
// they were made, but a peer that died since may not have seen them: once
// a loss is known (Lost), Quiet reports it, as tcp's Quiet reports a
// target that died with work outstanding.
func (m *Multi) Quiet() error {
	var err error
	if m.rem != nil {
		err = m.rem.Quiet()
	}
	if err == nil && m.h.down.Load() != 0 {
		err = m.h.err()
	}
	return err
}

// Close implements Transport: it says goodbye to every linked peer (so
// that its end of the job is not mistaken for a crash), then releases the
// mappings.
func (m *Multi) Close() error {
	var err error
	m.once.Do(func() { err = m.shut(true) })
	return err
}

// shut ends the transport: Close's work, and a failed Connect's (without
// goodbyes). Nothing is mapped or linked once it has begun.
func (m *Multi) shut(bye bool) error {
	m.h.closing.Store(true)
	m.stopBeat()
	if m.srv != nil {
		m.srv.stop()
	}
	if m.rem != nil {
		if bye {
			m.rem.close(3 * time.Second)
		} else {
			m.rem.shutdown()
		}
	}
	for _, l := range m.closeLinks() {
		if bye {
			l.send(linkBye, 0)
		}
		_ = l.c.Close()
	}
	m.wg.Wait()
	m.relMu.Lock()
	m.released = true
	m.relMu.Unlock()
	return m.unmapAll()
}

// stopBeat ends the heartbeat (before the table it counts in goes).
func (m *Multi) stopBeat() {
	if m.beatStop != nil {
		m.beatOnce.Do(func() { close(m.beatStop) })
	}
}

func (m *Multi) spread(pe int) {
	for _, l := range m.linked() {
		if l.pe != pe {
			l.send(linkLost, pe)
		}
	}
	m.tcpMu.Lock()
	t := m.rem
	m.tcpMu.Unlock()
	if t != nil {
		t.tellLost(pe)
	}
}

func (m *Multi) wake() {
	m.relMu.RLock()
	defer m.relMu.RUnlock()
	// released is read first: the heaps are unmapped after it is set.
	if m.released {
		return
	}
	if h := m.heap(m.me); h != nil {
		doorbell.Ring(h, true)
	}
}

// ---- node-local liveness links ---------------------------------------------

const (
	linkBye  byte = 1
	linkLost byte = 2
)

// link is a unix socket a node-local peer's heap (or the node's heartbeat
// table) came over, kept open: its end of file, without a goodbye first,
// means the peer died.
type link struct {
	pe  int
	c   net.Conn
	wmu sync.Mutex
}

func (l *link) send(typ byte, pe int) {
	var b [5]byte
	b[0] = typ
	binary.LittleEndian.PutUint32(b[1:], uint32(pe))
	l.wmu.Lock()
	defer l.wmu.Unlock()
	_ = l.c.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = l.c.Write(b[:])
}

func (m *Multi) watch(l *link) {
	defer m.wg.Done()
	var b [5]byte
	for {
		if _, err := io.ReadFull(l.c, b[:]); err != nil {
			if !m.h.isGone(l.pe) {
				why := "exited without finalizing (its node-local link closed)"
				if !errors.Is(err, io.EOF) {
					why = fmt.Sprintf("is unreachable on its node-local link: %v", err)
				}
				m.h.peerLost(l.pe, why)
			}
			return
		}
		switch b[0] {
		case linkBye:
			m.h.bye(l.pe)
		case linkLost:
			m.h.peerLost(int(binary.LittleEndian.Uint32(b[1:])), fmt.Sprintf("was lost (reported by PE %d)", l.pe))
		}
	}
}

// SetRemoteSpin sets how long the remote transport's threads poll for
// news before they sleep (the World's wait policy's spin, SpinTime), where
// it has such a poll (ucx).
func (m *Multi) SetRemoteSpin(d time.Duration) {
	if s, ok := m.rem.(interface{ setSpin(time.Duration) }); ok {
		s.setSpin(d)
	}
}

// SetLog replaces the logger (the World's, once it exists).
func (m *Multi) SetLog(l logrus.FieldLogger) {
	if m.rem != nil {
		m.rem.setLog(l)
	}
}

// DownWord returns the address of a word that is 0 while every peer is
// alive and nonzero once any peer is lost or finalized: the one load the
// shared-memory fast paths pay before they look at their target (PeerErr
// then says which). Readers outside Go load it atomically and never
// write it.
func (m *Multi) DownWord() *uint32 { return m.h.downWord() }
