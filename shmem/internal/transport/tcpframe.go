package transport

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// The tcp transport's frames. Every frame starts with a fixed 40-byte
// header; PUT and GET_REPLY are followed by n payload bytes, which are read
// straight into (or written straight from) the heap or the caller's buffer.
//
//	 0  type   u8
//	 1  op     u8   atomic op
//	 2  width  u8   atomic width (4 or 8)
//	 3  flags  u8   (zero)
//	 4  n      u32  payload length (PUT, GET_REPLY) or bytes asked for (GET)
//	 8  id     u64  request id, echoed by the reply
//	16  off    u64  heap offset
//	24  a      u64  atomic operand; reply value; lost PE number
//	32  b      u64  atomic compare value
//
// Requests flow on the connection a PE dialed to a peer; the peer's
// progress goroutine applies them in order and replies on the same
// connection, so per-target ordering (Fence) is the stream's order and a
// FLUSH reply means that every earlier request has been applied (Quiet).
const (
	frameHeader = 40
	// maxChunk bounds one frame's payload; larger transfers are split.
	maxChunk = 64 << 20
)

// Frame types.
const (
	fPut    byte = 1 // n bytes at off; no reply
	fGet    byte = 2 // reply fGetReply with n bytes from off
	fAtomic byte = 3 // reply fAtomicReply with the old value in a
	fFlush  byte = 4 // reply fFlushAck once every earlier request is applied
	fPing   byte = 5 // reply fPong (heartbeat)
	fBye    byte = 6 // the sender finalized: no more frames follow
	fLost   byte = 7 // the sender lost PE a (propagated so that every PE learns)
	fAcc    byte = 8 // an accumulate (Acc): see accFrame; reply fGetReply (fetching) or fAtomicReply

	fGetReply    byte = 0x82
	fAtomicReply byte = 0x83
	fFlushAck    byte = 0x84
	fPong        byte = 0x85
	fErr         byte = 0x86 // request id failed at the target (bounds); a holds nothing
)

// ErrBadFrame wraps every frame that does not decode.
var ErrBadFrame = errors.New("transport: malformed tcp frame")

type frame struct {
	typ, op, width, flags byte
	n                     uint32
	id, off, a, b         uint64
}

func (f *frame) encode(p []byte) {
	p[0], p[1], p[2], p[3] = f.typ, f.op, f.width, f.flags
	binary.LittleEndian.PutUint32(p[4:], f.n)
	binary.LittleEndian.PutUint64(p[8:], f.id)
	binary.LittleEndian.PutUint64(p[16:], f.off)
	binary.LittleEndian.PutUint64(p[24:], f.a)
	binary.LittleEndian.PutUint64(p[32:], f.b)
}

// decodeFrame parses and validates a header against the size of the heap it
// addresses: a frame that decodes never makes the receiver touch memory
// outside the heap or allocate more than maxChunk.
func decodeFrame(p []byte, heapSize uint64) (frame, error) {
	var f frame
	if len(p) < frameHeader {
		return f, fmt.Errorf("%w: header of %d bytes", ErrBadFrame, len(p))
	}
	f.typ, f.op, f.width, f.flags = p[0], p[1], p[2], p[3]
	f.n = binary.LittleEndian.Uint32(p[4:])
	f.id = binary.LittleEndian.Uint64(p[8:])
	f.off = binary.LittleEndian.Uint64(p[16:])
	f.a = binary.LittleEndian.Uint64(p[24:])
	f.b = binary.LittleEndian.Uint64(p[32:])
	if f.flags != 0 {
		return f, fmt.Errorf("%w: flags %#x", ErrBadFrame, f.flags)
	}
	if f.n > maxChunk {
		return f, fmt.Errorf("%w: payload of %d bytes (limit %d)", ErrBadFrame, f.n, maxChunk)
	}
	inHeap := func(off, n uint64) bool { return off <= heapSize && n <= heapSize-off }
	switch f.typ {
	case fPut, fGet:
		if !inHeap(f.off, uint64(f.n)) {
			return f, fmt.Errorf("%w: %d bytes at offset %d outside a %d-byte heap", ErrBadFrame, f.n, f.off, heapSize)
		}
	case fAtomic:
		if f.width != 4 && f.width != 8 {
			return f, fmt.Errorf("%w: atomic width %d", ErrBadFrame, f.width)
		}
		if op, _ := AtomicOp(f.op).Split(); op > OpXor {
			return f, fmt.Errorf("%w: atomic op %d", ErrBadFrame, f.op)
		}
		if f.off%uint64(f.width) != 0 || !inHeap(f.off, uint64(f.width)) {
			return f, fmt.Errorf("%w: %d-byte atomic at offset %d (heap %d bytes)", ErrBadFrame, f.width, f.off, heapSize)
		}
		if f.n != 0 {
			return f, fmt.Errorf("%w: atomic with payload", ErrBadFrame)
		}
	case fAcc:
		// The payload is bounded above; its meaning is checked once read
		// (accOf), and a bad one is refused with fErr.
		if f.b>>50 != 0 || (f.b>>41)&0x7f != 0 {
			return f, fmt.Errorf("%w: accumulate flags %#x", ErrBadFrame, f.b)
		}
	case fGetReply:
		// n is checked against the request by the reader.
	case fFlush, fPing, fBye, fLost, fAtomicReply, fFlushAck, fPong, fErr:
		if f.n != 0 {
			return f, fmt.Errorf("%w: type %#x with a payload", ErrBadFrame, f.typ)
		}
	default:
		return f, fmt.Errorf("%w: unknown type %#x", ErrBadFrame, f.typ)
	}
	return f, nil
}
