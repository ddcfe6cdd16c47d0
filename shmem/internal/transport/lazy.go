package transport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// lazy is the part of Multi that maps node-local peers on first use and
// keeps the liveness links. Connect only proves which PEs share this node
// (each joins its node's leader, connect.go); a peer's heap descriptor is
// fetched from its heap server, and mapped, by the first operation that
// touches it. So a job of N PEs on a node costs each PE one connection at
// start instead of N-1, and a PE's mappings and page tables follow the
// peers it talks to: a barrier's log2 N partners, not the whole job.
type lazy struct {
	local   []bool       // node-local peers (not this PE): load/store, mapped on first use
	addr    []locality   // where each peer's heap server listens, and its token
	mapMu   []sync.Mutex // one first mapping per peer at a time
	nmapped atomic.Int32 // peers mapped here (not this PE)
	timeout time.Duration
	srv     *heapServer // ours, up for the job's life: peers map us when they first need to

	heapFd  int    // our heap's memfd, handed to each peer that asks; -1 once closed
	tableFd int    // our node heartbeat table's memfd when we lead a node, else -1
	table   []byte // the node's heartbeat table, mapped (beat.go); nil outside a node

	linkMu     sync.Mutex
	links      []*link
	linksEnded bool // shut has begun: no link (hence no mapping) is added
}

// MappedPeers returns how many peers' heaps this process maps now (this
// PE's own not counted): what a first touch adds to.
func (m *Multi) MappedPeers() int { return int(m.nmapped.Load()) }

// mapLocal maps pe's heap if pe is node-local and not mapped yet. It
// returns nil and no error for a remote peer, and an error wrapping
// ErrPeerLost when the peer cannot be reached (it died or finalized): a
// first use of a dead peer fails, within the peer timeout at worst (a
// stopped peer whose kernel still queues the connection). Concurrent
// first uses of one peer map it once; the others wait for that one.
func (m *Multi) mapLocal(pe int) ([]byte, error) {
	if pe == m.me || !m.local[pe] {
		return m.heap(pe), nil
	}
	if err := m.h.check(pe); err != nil {
		return nil, err
	}
	mu := &m.mapMu[pe]
	mu.Lock()
	defer mu.Unlock()
	if h := m.heap(pe); h != nil {
		return h, nil
	}
	if err := m.h.check(pe); err != nil {
		return nil, err // lost while we waited for the lock
	}
	fd, conn, err := ask(context.Background(), m.addr[pe].sock, askHeap, m.me, m.addr[pe].token, uint64(m.size), m.timeout)
	if err != nil {
		return nil, m.unreachable(pe, err)
	}
	h, err := mapFd(fd, uint64(m.size))
	unix.Close(fd)
	if err != nil {
		conn.Close()
		return nil, err
	}
	fail := func() ([]byte, error) {
		_ = unix.Munmap(h)
		return nil, fmt.Errorf("%w: PE %d was first touched while PE %d finalizes", ErrPeerLost, pe, m.me)
	}
	if !m.addLink(pe, conn) {
		conn.Close()
		return fail()
	}
	m.relMu.RLock()
	defer m.relMu.RUnlock()
	if m.released {
		return fail()
	}
	m.bases[pe].Store(&h[0])
	m.nmapped.Add(1)
	return h, nil
}

// unreachable turns a failed first contact with a node-local peer into
// its loss: the peer proved at start that it shares this node, so a heap
// server that no longer answers belongs to a process that is gone.
func (m *Multi) unreachable(pe int, err error) error {
	if errors.Is(err, errHeapSize) {
		return fmt.Errorf("transport: PE %d: %w", pe, err)
	}
	if cerr := m.h.check(pe); cerr != nil {
		return cerr
	}
	m.h.peerLost(pe, fmt.Sprintf("cannot be reached on its node-local heap socket (%v): it exited, or finalized", err))
	if cerr := m.h.check(pe); cerr != nil {
		return cerr
	}
	return fmt.Errorf("%w: PE %d cannot be reached on its node-local heap socket: %v", ErrPeerLost, pe, err)
}

// addLink keeps c as a liveness link to pe and watches it; false once
// shut has begun (the caller closes c).
func (m *Multi) addLink(pe int, c net.Conn) bool {
	m.linkMu.Lock()
	defer m.linkMu.Unlock()
	if m.linksEnded {
		return false
	}
	l := &link{pe: pe, c: c}
	m.links = append(m.links, l)
	m.wg.Add(1)
	go m.watch(l)
	return true
}

// linked returns the links now (a copy: spreading a loss must not hold
// the lock while it writes).
func (m *Multi) linked() []*link {
	m.linkMu.Lock()
	defer m.linkMu.Unlock()
	return append([]*link(nil), m.links...)
}

// closeLinks ends the adding of links and returns them all, for shut.
func (m *Multi) closeLinks() []*link {
	m.linkMu.Lock()
	defer m.linkMu.Unlock()
	m.linksEnded = true
	return m.links
}

// unmapAll releases every mapping and descriptor, once nothing can use
// them (shut, after released is set).
func (m *Multi) unmapAll() error {
	var first error
	for pe := range m.bases {
		if p := m.bases[pe].Swap(nil); p != nil {
			if err := unix.Munmap(unsafe.Slice(p, m.size)); err != nil && first == nil {
				first = err
			}
		}
	}
	if m.table != nil {
		if err := unix.Munmap(m.table); err != nil && first == nil {
			first = err
		}
		m.table = nil
	}
	for _, fd := range []*int{&m.heapFd, &m.tableFd} {
		if *fd >= 0 {
			unix.Close(*fd)
			*fd = -1
		}
	}
	return first
}
