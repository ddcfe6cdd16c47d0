package transport

import (
	"encoding/binary"
	"testing"
)

func FuzzTCPFrame(f *testing.F) {
	seed := func(fr frame) []byte {
		b := make([]byte, frameHeader)
		fr.encode(b)
		return b
	}
	for _, fr := range []frame{
		{typ: fPut, n: 8, off: 4096},
		{typ: fGet, n: 1 << 20, id: 7, off: 0},
		{typ: fAtomic, op: byte(OpAdd), width: 8, id: 9, off: 64, a: 1},
		{typ: fAtomic, op: byte(OpCompareAndSwap), width: 4, id: 10, off: 68, a: 1, b: 2},
		{typ: fFlush, id: 11}, {typ: fPing}, {typ: fBye}, {typ: fLost, a: 3},
		{typ: fGetReply, n: 16, id: 7}, {typ: fAtomicReply, id: 9, a: 5}, {typ: fFlushAck, id: 11}, {typ: fPong},
		{typ: fPut, n: maxChunk + 1}, {typ: fPut, n: 8, off: ^uint64(0) - 3}, {typ: fAtomic, width: 3},
		{typ: 0x99}, {typ: fPing, flags: 1},
	} {
		f.Add(seed(fr), uint64(1<<20))
	}
	f.Fuzz(func(t *testing.T, b []byte, heap uint64) {
		fr, err := decodeFrame(b, heap)
		if err != nil {
			return
		}
		switch fr.typ {
		case fPut, fGet:
			if fr.off > heap || uint64(fr.n) > heap-fr.off {
				t.Fatalf("accepted %d bytes at %d in a %d-byte heap", fr.n, fr.off, heap)
			}
		case fAtomic:
			if fr.off+uint64(fr.width) > heap || fr.off%uint64(fr.width) != 0 || fr.off+uint64(fr.width) < fr.off {
				t.Fatalf("accepted a %d-byte atomic at %d in a %d-byte heap", fr.width, fr.off, heap)
			}
		}
		if fr.n > maxChunk {
			t.Fatalf("accepted a payload of %d bytes", fr.n)
		}
		out := make([]byte, frameHeader)
		fr.encode(out)
		if string(out) != string(b[:frameHeader]) {
			t.Fatalf("frame does not round-trip")
		}
		_ = binary.LittleEndian
	})
}
