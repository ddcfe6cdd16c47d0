package transport

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/gshmem/gshmem/internal/accops"
)

// An accumulate frame (fAcc) carries an Acc whole: op is its Op, width its
// Type, off its Off, a its Locks, and b packs the count (bits 0-31), the
// stripe phase modulo 512 (bits 32-40: the stripe of an element depends on
// nothing more), whether the old values are fetched (bit 48) and whether
// it is a compare-and-swap (bit 49). The payload is the source elements,
// then the compare element.
const (
	accFetch = 1 << 48
	accCAS   = 1 << 49
	accPhase = 512
)

func accFrame(a *Acc) frame {
	b := uint64(a.Count) | (a.Phase%accPhase)<<32
	if a.Res != nil {
		b |= accFetch
	}
	if a.Cmp != nil {
		b |= accCAS
	}
	return frame{typ: fAcc, op: byte(a.Op), width: byte(a.Type), n: uint32(len(a.Src) + len(a.Cmp)), off: a.Off, a: a.Locks, b: b}
}

// accParts calls f with a split in parts of at most chunk bytes of
// elements each (a part is one message, applied whole by the target),
// with each part's frame and payload (operands, then the compare value),
// and stops at the first error.
func accParts(a *Acc, sz, chunk int, f func(part *Acc, fr frame, payload []byte) error) error {
	step := max(1, chunk/sz)
	for i := 0; i < a.Count; i += step {
		k := min(step, a.Count-i)
		part := *a
		part.Off, part.Count, part.Phase = a.Off+uint64(i*sz), k, a.Phase+uint64(i*sz)
		if a.Src != nil {
			part.Src = a.Src[i*sz : (i+k)*sz]
		}
		if a.Res != nil {
			part.Res = a.Res[i*sz : (i+k)*sz]
		}
		payload := part.Src
		if part.Cmp != nil {
			payload = append(append([]byte(nil), part.Src...), part.Cmp...)
		}
		if err := f(&part, accFrame(&part), payload); err != nil {
			return err
		}
	}
	return nil
}

// accOf decodes f and its payload into an Acc and checks it against the
// heap.
func accOf(f *frame, payload []byte, heapSize uint64) (*Acc, error) {
	a := &Acc{Off: f.off, Type: f.width, Op: f.op, Count: int(uint32(f.b)), Locks: f.a, Phase: (f.b >> 32) & (accPhase - 1)}
	tab := accops.Get()
	if tab == nil {
		return nil, fmt.Errorf("accumulate, and this program has no accumulate ops")
	}
	sz := tab.Size(a.Type)
	if sz == 0 {
		return nil, fmt.Errorf("accumulate on element type %d", f.width)
	}
	want := 0
	if a.Op != tab.NoOp {
		want = a.Count * sz
	}
	if f.b&accCAS != 0 {
		want += sz
	}
	if int(f.n) != want {
		return nil, fmt.Errorf("accumulate of %d %v with a %d-byte payload", a.Count, a.Type, f.n)
	}
	if a.Op != tab.NoOp {
		a.Src = payload[:a.Count*sz]
	}
	if f.b&accCAS != 0 {
		a.Cmp = payload[len(payload)-sz:]
	}
	if f.b&accFetch != 0 {
		a.Res = make([]byte, 0) // marked; sized by the server
	}
	res := a.Res
	a.Res = nil
	err := a.Check(heapSize)
	a.Res = res
	return a, err
}

// accumulate applies an fAcc frame from the stream to the heap and
// replies with the old values when they were asked for. One that fetches
// nothing is answered only when it fails (fErr with id 0, which the
// sender keeps for its next Quiet), as a put is not answered at all.
func (in *inConn) accumulate(f *frame) error {
	t := in.t
	payload := make([]byte, f.n)
	if err := readInto(in.c, in.br, payload, t.timeout); err != nil {
		return err
	}
	res, err := applyAccFrame(t.heap, f, payload, t.timeout, t.stop)
	if err != nil {
		t.log().Errorf("tcp transport: accumulate from PE %d: %v", in.pe, err)
		return in.reply(&frame{typ: fErr, id: f.id}, nil)
	}
	if res != nil {
		return in.reply(&frame{typ: fGetReply, n: uint32(len(res)), id: f.id}, res)
	}
	return nil // as a put: the next flush's reply says it is done
}

// errBadAcc is wrapped by applyAccFrame's error for an accumulate the
// target refuses (malformed, or outside the heap).
var errBadAcc = errors.New("a bad accumulate")

// applyAccFrame is the target's side of an accumulate from another node,
// over either remote transport: it decodes f and its payload, applies
// them to heap and returns the old values when they were asked for (nil
// otherwise). A stripe lock taken by a PE of this node (in the middle of
// one element: brief, unless it died) is waited for at most timeout, or
// until stop closes (ErrAccLocked).
func applyAccFrame(heap []byte, f *frame, payload []byte, timeout time.Duration, stop <-chan struct{}) ([]byte, error) {
	if uint64(len(payload)) > maxChunk {
		return nil, fmt.Errorf("%w: %d payload bytes", errBadAcc, len(payload))
	}
	a, err := accOf(f, payload, uint64(len(heap)))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errBadAcc, err)
	}
	if a.Res != nil {
		a.Res = make([]byte, a.Count*accops.Get().Size(a.Type))
	}
	deadline := time.Now().Add(timeout)
	err = ApplyAcc(heap, a, func(lock *uint32) error {
		for tries := 0; atomic.LoadUint32(lock) != 0; tries++ {
			if tries < 64 {
				runtime.Gosched()
				continue
			}
			select {
			case <-stop:
				return ErrAccLocked
			default:
			}
			if time.Now().After(deadline) {
				return ErrAccLocked
			}
			time.Sleep(20 * time.Microsecond)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return a.Res, nil
}

// Accumulate sends a to pe as frames of at most maxChunk payload bytes.
// A fetching one waits for the old values; the others return at once and
// complete by Quiet, as puts do.
func (t *TCP) Accumulate(pe int, a *Acc) error {
	o, err := t.conn(pe)
	if err != nil {
		return err
	}
	return o.accumulate(a)
}

func (o *outConn) accumulate(a *Acc) error {
	var rs []*req
	err := accParts(a, accops.Get().Size(a.Type), maxChunk, func(part *Acc, f frame, payload []byte) error {
		var r *req
		if part.Res != nil {
			id, rr, err := o.register(part.Res)
			if err != nil {
				return err
			}
			f.id, r = id, rr
		}
		o.dirty.Store(true)
		if err := o.send(&f, payload); err != nil {
			return err
		}
		if r != nil {
			rs = append(rs, r)
		}
		return nil
	})
	if err != nil {
		return err
	}
	var first error
	for _, r := range rs {
		first = cmpErr(first, o.wait(r))
	}
	return first
}
