package compat

import (
	"sync"
	"sync/atomic"

	"github.com/gshmem/gshmem/internal/memcopy"
)

// inMsg is a message that arrived before a matching receive was posted:
// an eager message's bytes, or a rendezvous request.
type inMsg struct {
	src  int // world rank
	tag  int32
	ctx  uint32
	size int
	data []byte // eager payload
	ack  func() // a foreign PE's synchronous send: answer it when matched (dynlink.go)
	rdv  bool
	rts  rtsInfo
}

// rtsInfo is the body of a rendezvous request.
type rtsInfo struct {
	size      int
	mode      uint64
	sreq, loc uint64
}

// Rendezvous modes: where the receiver finds the data.
const (
	modeHeap   = 1 // in the sender's AllocMem pool at offset loc: one Get
	modeProc   = 2 // same process: the sender's buffer, registry entry loc: one copy
	modeStaged = 3 // copied by the sender chunk by chunk into its staging area after a CTS
	// in the sender's device heap at offset loc: one device copy
	// (p2p_device.go)
	modeDevHeap = 4
	// a device buffer of the sender's, mapped by CUDA IPC from the
	// descriptor at offset loc of its pool: one device copy (p2p_ipc.go)
	modeDevIPC = 5
)

func matches(r *Request, src int, tag int32, ctx uint32) bool {
	return r.ctx == ctx && (r.src == AnySource || r.src == src) && (r.tag == AnyTag || r.tag == int(tag))
}

// match removes and returns the first posted receive an arriving message
// matches.
func (e *Env) match(src int, tag int32, ctx uint32) *Request {
	for i, r := range e.posted {
		if matches(r, src, tag, ctx) {
			e.posted = remove(e.posted, i)
			e.pub.Posted = uint64(len(e.posted))
			return r
		}
	}
	return nil
}

// remove deletes q[i], keeping the order. It is slices.Delete without the
// calls that clear the tail and move nothing when q[i] is the last (the
// usual case: one receive posted), a large share of a small message's
// matching.
func remove[T any](q []*T, i int) []*T {
	last := len(q) - 1
	if i < last {
		copy(q[i:], q[i+1:])
	}
	q[last] = nil
	return q[:last]
}

// findUnexpected returns the index of the first unexpected message r
// matches, or -1.
func (e *Env) findUnexpected(ctx uint32, src, tag int) int {
	probe := Request{ctx: ctx, src: src, tag: tag}
	for i, m := range e.unexpected {
		if matches(&probe, m.src, m.tag, m.ctx) {
			return i
		}
	}
	return -1
}

// postRecv matches r against the unexpected queue or posts it, then makes
// progress. Called with mu held.
func (e *Env) postRecv(r *Request) {
	if i := e.findUnexpected(r.ctx, r.src, r.tag); i >= 0 {
		m := e.unexpected[i]
		e.unexpected = remove(e.unexpected, i)
		e.pub.Unexpected = uint64(len(e.unexpected))
		if m.ack != nil {
			m.ack()
		}
		if m.rdv {
			e.recvRdv(r, m.src, m.tag, m.rts)
		} else {
			var n int
			if r.devBuf {
				n = e.fillDev(r, 0, m.data)
			} else {
				n = copy(r.buf, m.data)
			}
			e.finishRecv(r, m.src, m.tag, n, m.size)
		}
		return
	}
	e.posted = append(e.posted, r)
	e.pub.Posted = uint64(len(e.posted))
	e.progress()
}

// finishRecv completes a receive of n bytes of a size-byte message.
func (e *Env) finishRecv(r *Request, src int, tag int32, n, size int) {
	r.status = Status{Source: r.comm.rankOf(src), Tag: int(tag), bytes: n}
	e.count.received(n)
	if size > n && r.err == nil {
		r.err = errorf(ClassTruncate, "a message of %d bytes from rank %d (tag %d) into a buffer of %d", size, r.status.Source, tag, len(r.buf))
	}
	if r.unpack != nil {
		r.unpack(r.buf[:n])
	}
	if r.fin != nil {
		if err := r.fin(); err != nil && r.err == nil {
			r.err = wrap(err, "receiving into a device buffer")
		}
	}
	e.complete(r)
}

// The in-process rendezvous registry: a sender's buffer, by id, for a
// receiver in the same process to copy from.
var (
	registry   sync.Map
	registryID atomic.Uint64
)

// sendRdv starts a rendezvous send of r.data to world rank p.
func (e *Env) sendRdv(r *Request, p int, tag int32, ctx uint32) {
	e.nextID++
	id := e.nextID
	e.sends[id] = r
	mode, loc := uint64(modeStaged), uint64(0)
	if r.devData {
		mode, loc = e.devRendezvous(r, p)
		if mode == modeStaged {
			r.staged = true
			e.stagedSends++
		}
	} else if off, ok := e.inPool(r.data); ok {
		mode, loc = modeHeap, uint64(off)
	} else if e.peers[p].sameProc {
		r.regID = registryID.Add(1)
		registry.Store(r.regID, r.data)
		mode, loc = modeProc, r.regID
	} else {
		r.staged = true
		e.stagedSends++
	}
	r.rdv = rdvState{peer: p, size: len(r.data)}
	m := outMsg{kind: kRTS, tag: tag, ctx: ctx, nw: 4, w: [4]uint64{uint64(len(r.data)), mode, id, loc}}
	e.send(p, &m)
}

// recvRdv handles a matched rendezvous request from world rank p.
func (e *Env) recvRdv(r *Request, p int, tag int32, rts rtsInfo) {
	n := min(rts.size, len(r.buf))
	if rts.mode == modeDevIPC && !e.recvDevIPC(r, p, rts.loc, n) {
		rts.mode = modeStaged // not mappable here: the CTS below
	}
	switch rts.mode {
	case modeHeap:
		if n > 0 {
			var err error
			if r.devBuf {
				err = e.getIntoDevice(r, 0, e.pool.Slice(int(rts.loc), int(rts.loc)+n), p)
			} else {
				err = getBytes(r.buf[:n], e.pool.Slice(int(rts.loc), int(rts.loc)+n), p)
			}
			if err != nil {
				r.err = wrap(err, "rendezvous get from rank %d", r.comm.rankOf(p))
			}
		}
	case modeProc:
		v, ok := registry.Load(rts.loc)
		if !ok {
			r.err = errorf(ClassOther, "rendezvous from rank %d: buffer %d not registered", r.comm.rankOf(p), rts.loc)
		} else if b, host := v.([]byte); host && !r.devBuf {
			memcopy.Copy(r.buf[:n], b)
		} else if err := e.recvRegistered(r, v, n); err != nil {
			r.err = wrap(err, "rendezvous copy from rank %d", r.comm.rankOf(p))
		}
	case modeDevHeap:
		if err := e.recvDevHeap(r, p, rts.loc, n); err != nil {
			r.err = wrap(err, "rendezvous copy from rank %d's device heap", r.comm.rankOf(p))
		}
	case modeDevIPC: // copied by recvDevIPC
	default:
		e.nextID++
		id := e.nextID
		e.recvs[id] = r
		r.rdv = rdvState{peer: p, id: rts.sreq, size: rts.size}
		r.status = Status{Source: r.comm.rankOf(p), Tag: int(tag)}
		e.ctl(p, kCTS, rts.sreq, id)
		if rts.size == 0 {
			delete(e.recvs, id)
			e.finishRecv(r, p, tag, 0, 0)
		}
		return
	}
	e.ctl(p, kFin, rts.sreq)
	e.finishRecv(r, p, tag, n, rts.size)
}

// onFin completes a heap or in-process rendezvous send.
func (e *Env) onFin(id uint64) {
	r := e.sends[id]
	if r == nil {
		return
	}
	delete(e.sends, id)
	e.finishSend(r)
}

func (e *Env) finishSend(r *Request) {
	if r.staged {
		r.staged = false
		e.stagedSends--
	}
	if r.regID != 0 {
		registry.Delete(r.regID)
		r.regID = 0
	}
	if r.poolOff >= 0 {
		e.poolAlloc.free(r.poolOff)
		r.poolOff = -1
	}
	e.complete(r)
}

// onCTS starts sending a staged rendezvous.
func (e *Env) onCTS(sid, rid uint64) {
	r := e.sends[sid]
	if r == nil {
		return
	}
	r.rdv.id = rid
	if !r.staged { // an IPC rendezvous the receiver could not map
		r.staged = true
		e.stagedSends++
	}
	if r.rdv.size == 0 {
		delete(e.sends, sid)
		e.finishSend(r)
		return
	}
	e.pump(r)
}

// pump copies the next chunks of a staged send into free staging chunks,
// at most two at a time per send, and announces them.
func (e *Env) pump(r *Request) {
	d := &r.rdv
	chunk := e.cfg.chunk
	free := &e.freeChunks
	if r.devStg {
		free = &e.freeDevChunks
	}
	for d.staged < d.size && d.held < 2 {
		k := len(*free)
		if k == 0 {
			if !d.stalled {
				d.stalled = true
				e.stalled = append(e.stalled, r)
			}
			return
		}
		c := (*free)[k-1]
		*free = (*free)[:k-1]
		n := min(chunk, d.size-d.staged)
		// The chunk's last word: bit 0 set for the device staging area,
		// bit 1 when the sender's device copy failed.
		area := uint64(0)
		switch {
		case r.devStg:
			area = 1
			if !e.stageDev(r, c, d.staged, n) {
				area = 3
			}
		case r.devData:
			// No device staging area: through the host one.
			if err := e.w.CopyDeviceToHost(e.stageMine[c*chunk:c*chunk+n], addrOf(r.data)+uintptr(d.staged)); err != nil {
				e.w.Logger().Errorf("compat: staging a device send: %v", err)
				area = 2
			}
		default:
			memcopy.Copy(e.stageMine[c*chunk:c*chunk+n], r.data[d.staged:d.staged+n])
		}
		e.ctl(d.peer, kChunk, d.id, uint64(c), uint64(n), uint64(d.staged), area)
		d.staged += n
		d.held++
	}
}

// onChunk takes one staged chunk from world rank p.
func (e *Env) onChunk(p int, rid uint64, c, n, at int, area uint64) {
	r := e.recvs[rid]
	if r == nil {
		return
	}
	d := &r.rdv
	if hi := min(at+n, len(r.buf)); at < hi && r.err == nil {
		var err error
		src := e.staging.Slice(c*e.cfg.chunk, c*e.cfg.chunk+hi-at)
		switch {
		case area&2 != 0:
			err = errorf(ClassOther, "the sender's device copy failed")
		case area == 1:
			err = e.takeDevChunk(r, p, c, at, hi)
		case r.devBuf:
			err = e.getIntoDevice(r, at, src, p)
		default:
			err = getBytes(r.buf[at:hi], src, p)
		}
		if err != nil {
			r.err = wrap(err, "rendezvous get from rank %d", r.comm.rankOf(p))
		}
	}
	e.ctl(p, kCAck, d.id, uint64(c), uint64(n), area&1)
	d.got += n
	if d.got >= d.size {
		delete(e.recvs, rid)
		e.finishRecv(r, p, int32(r.status.Tag), min(d.size, len(r.buf)), d.size)
	}
}

// onCAck frees a staging chunk and continues the sends that wait.
func (e *Env) onCAck(sid uint64, c, n int, area uint64) {
	if area == 1 {
		e.freeDevChunks = append(e.freeDevChunks, c)
	} else {
		e.freeChunks = append(e.freeChunks, c)
	}
	if r := e.sends[sid]; r != nil {
		r.rdv.held--
		r.rdv.acked += n
		if r.rdv.acked >= r.rdv.size {
			delete(e.sends, sid)
			e.finishSend(r)
		} else {
			e.pump(r)
		}
	}
	// A stalled send waits for a chunk of its own area: wake the first
	// of each kind that may go on (pump stalls it again if not).
	for i := 0; i < len(e.stalled); {
		s := e.stalled[i]
		free := e.freeChunks
		if s.devStg {
			free = e.freeDevChunks
		}
		if len(free) == 0 {
			i++
			continue
		}
		e.stalled = append(e.stalled[:i], e.stalled[i+1:]...)
		s.rdv.stalled = false
		e.pump(s) // may stall s again, at the end
	}
}
