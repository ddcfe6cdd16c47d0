package bootstrap

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
)

// The env bootstrap's rendezvous protocol, over TCP to GSHMEM_BOOTSTRAP_ADDR
// where rank 0 listens. A frame is a 4-byte little-endian length L, then L
// bytes: one type byte and L-1 payload bytes.
//
//	root -> client  challenge  32-byte nonce
//	client -> root  hello      "GSRV", u32 version, u32 rank, u32 size, 32-byte nonce, 32-byte MAC
//	root -> client  welcome    u32 size, 32-byte MAC
//	client -> root  gather     u64 seq, data
//	root -> client  result     u64 seq, then size entries of u32 length + bytes
//	either way      abort      i32 code, UTF-8 message
//	client -> root  bye
//	root -> client  refuse     UTF-8 reason
//	root -> client  lost       u32 rank: that rank left during a collective
//
// The MACs are HMAC-SHA256 keyed by GSHMEM_JOB_SECRET over the side ("C"
// for the rank, "R" for rank 0), both nonces, rank and size: the rank
// proves it holds the secret before it is admitted, and rank 0 proves it
// before the rank sends anything else, so neither a stranger connecting to
// the port nor one squatting on it learns what the ranks exchange.
const (
	rdvChallenge byte = 1
	rdvHello     byte = 2
	rdvWelcome   byte = 3
	rdvGather    byte = 4
	rdvResult    byte = 5
	rdvAbort     byte = 6
	rdvBye       byte = 7
	rdvRefuse    byte = 8
	rdvLost      byte = 9
)

const (
	rdvMagic   = "GSRV"
	rdvVersion = 2
	// rdvMaxFrame bounds what a peer can make the other side allocate.
	rdvMaxFrame = 16 << 20
	// rdvMaxHello bounds the frames of the handshake, before either side
	// knows who the other is.
	rdvMaxHello = 1 + 16 + 32 + 32
)

// ErrRendezvous wraps malformed rendezvous frames.
var ErrRendezvous = errors.New("bootstrap: malformed rendezvous message")

func writeRdv(w io.Writer, typ byte, payload []byte) error {
	if len(payload)+1 > rdvMaxFrame {
		return fmt.Errorf("%w: payload of %d bytes exceeds %d", ErrRendezvous, len(payload), rdvMaxFrame-1)
	}
	var hdr [5]byte
	binary.LittleEndian.PutUint32(hdr[:4], uint32(len(payload)+1))
	hdr[4] = typ
	bufs := net.Buffers{hdr[:], payload}
	_, err := bufs.WriteTo(w)
	return err
}

func readRdv(r io.Reader) (byte, []byte, error) { return readRdvMax(r, rdvMaxFrame) }

// readRdvMax reads a frame of at most max bytes; a longer claim is an
// error before anything past the header is read.
func readRdvMax(r io.Reader, max uint32) (byte, []byte, error) {
	var hdr [5]byte
	if _, err := io.ReadFull(r, hdr[:4]); err != nil {
		return 0, nil, err
	}
	n := binary.LittleEndian.Uint32(hdr[:4])
	if n == 0 || n > max {
		return 0, nil, fmt.Errorf("%w: frame length %d", ErrRendezvous, n)
	}
	if _, err := io.ReadFull(r, hdr[4:]); err != nil {
		return 0, nil, unexpected(err)
	}
	// Grow as data arrives rather than trusting the header.
	p := make([]byte, 0, min(int(n-1), 64<<10))
	for len(p) < int(n-1) {
		chunk := min(int(n-1)-len(p), 64<<10)
		p = append(p, make([]byte, chunk)...)
		if _, err := io.ReadFull(r, p[len(p)-chunk:]); err != nil {
			return 0, nil, unexpected(err)
		}
	}
	return hdr[4], p, nil
}

func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

type rdvHelloMsg struct {
	rank, size uint32
	nonce, mac [32]byte
}

func rdvMAC(key []byte, side string, rootNonce, rankNonce []byte, rank, size uint32) [32]byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(rdvMagic + side))
	m.Write(rootNonce)
	m.Write(rankNonce)
	var b [8]byte
	binary.LittleEndian.PutUint32(b[:4], rank)
	binary.LittleEndian.PutUint32(b[4:], size)
	m.Write(b[:])
	var out [32]byte
	copy(out[:], m.Sum(nil))
	return out
}

func encodeHello(h rdvHelloMsg) []byte {
	p := append([]byte(rdvMagic), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(p[4:], rdvVersion)
	binary.LittleEndian.PutUint32(p[8:], h.rank)
	binary.LittleEndian.PutUint32(p[12:], h.size)
	p = append(p, h.nonce[:]...)
	return append(p, h.mac[:]...)
}

func decodeHello(p []byte) (rdvHelloMsg, error) {
	var h rdvHelloMsg
	if len(p) != 16+32+32 || string(p[:4]) != rdvMagic {
		return h, fmt.Errorf("%w: hello of %d bytes (is something other than a gshmem PE connecting to GSHMEM_BOOTSTRAP_ADDR?)", ErrRendezvous, len(p))
	}
	if v := binary.LittleEndian.Uint32(p[4:]); v != rdvVersion {
		return h, fmt.Errorf("%w: protocol version %d, want %d (mixed gshmem builds?)", ErrRendezvous, v, rdvVersion)
	}
	h.rank = binary.LittleEndian.Uint32(p[8:])
	h.size = binary.LittleEndian.Uint32(p[12:])
	copy(h.nonce[:], p[16:48])
	copy(h.mac[:], p[48:])
	return h, nil
}

func encodeGather(seq uint64, data []byte) []byte {
	return append(binary.LittleEndian.AppendUint64(make([]byte, 0, 8+len(data)), seq), data...)
}

func decodeGather(p []byte) (uint64, []byte, error) {
	if len(p) < 8 {
		return 0, nil, fmt.Errorf("%w: gather of %d bytes", ErrRendezvous, len(p))
	}
	return binary.LittleEndian.Uint64(p), p[8:], nil
}

func encodeResult(seq uint64, entries [][]byte) []byte {
	n := 8
	for _, e := range entries {
		n += 4 + len(e)
	}
	p := binary.LittleEndian.AppendUint64(make([]byte, 0, n), seq)
	for _, e := range entries {
		p = binary.LittleEndian.AppendUint32(p, uint32(len(e)))
		p = append(p, e...)
	}
	return p
}

func decodeResult(p []byte, size int) (uint64, [][]byte, error) {
	if len(p) < 8 {
		return 0, nil, fmt.Errorf("%w: result of %d bytes", ErrRendezvous, len(p))
	}
	seq := binary.LittleEndian.Uint64(p)
	rest := p[8:]
	out := make([][]byte, size)
	for i := range out {
		if len(rest) < 4 {
			return 0, nil, fmt.Errorf("%w: result ends before entry %d of %d", ErrRendezvous, i, size)
		}
		n := binary.LittleEndian.Uint32(rest)
		rest = rest[4:]
		if uint64(n) > uint64(len(rest)) {
			return 0, nil, fmt.Errorf("%w: result entry %d claims %d bytes, %d left", ErrRendezvous, i, n, len(rest))
		}
		out[i] = rest[:n:n]
		rest = rest[n:]
	}
	if len(rest) != 0 {
		return 0, nil, fmt.Errorf("%w: %d stray bytes after the result", ErrRendezvous, len(rest))
	}
	return seq, out, nil
}

func encodeAbort(code int32, msg string) []byte {
	return append(binary.LittleEndian.AppendUint32(nil, uint32(code)), msg...)
}

func decodeAbort(p []byte) (int32, string, error) {
	if len(p) < 4 {
		return 0, "", fmt.Errorf("%w: abort of %d bytes", ErrRendezvous, len(p))
	}
	return int32(binary.LittleEndian.Uint32(p)), string(p[4:]), nil
}
