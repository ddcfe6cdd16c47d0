package launchwire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"unicode/utf8"
)

// Frame types of the local bootstrap protocol. A frame is a 4-byte
// little-endian length L, then L bytes: one type byte and L-1 payload bytes.
const (
	// TypeHello is a PE's first frame: u32 rank, then the job secret.
	TypeHello byte = 1
	// TypeAllgather is a PE's contribution: u64 seq, then its data.
	TypeAllgather byte = 2
	// TypeAllgatherResult is the launcher's answer to a completed
	// allgather: u64 seq, then npes entries of u32 length + bytes, by rank.
	TypeAllgatherResult byte = 3
	// TypeAbort is global exit: i32 code, then a UTF-8 message.
	TypeAbort byte = 4
	// TypeBye is sent at finalize so that the launcher can tell a PE that
	// finished on purpose from one that lost its connection.
	TypeBye byte = 5
	// TypeWelcome acknowledges a Hello: u32 npes. Dial waits for it so that
	// a refused connection is an error at Dial, not at the first collective.
	TypeWelcome byte = 6
	// TypeError is the launcher refusing a request: a UTF-8 reason.
	TypeError byte = 7
)

// MaxFrame is the largest allowed frame length (the L of the header); it
// bounds what a corrupt or hostile peer can make the other side allocate.
const MaxFrame = 64 << 20

var (
	// ErrFrameTooLarge is returned for frames whose length exceeds MaxFrame.
	ErrFrameTooLarge = errors.New("gshmem: bootstrap frame too large")
	// ErrMalformed is returned for frames or payloads that do not parse.
	ErrMalformed = errors.New("gshmem: malformed bootstrap frame")
)

// WriteFrame writes one frame. The header and payload go out in one
// vectored write where w supports it, so small frames are one syscall.
func WriteFrame(w io.Writer, typ byte, payload []byte) error {
	if len(payload)+1 > MaxFrame {
		return fmt.Errorf("%w: payload of %d bytes (limit %d)", ErrFrameTooLarge, len(payload), MaxFrame-1)
	}
	var hdr [5]byte
	binary.LittleEndian.PutUint32(hdr[:4], uint32(len(payload)+1))
	hdr[4] = typ
	bufs := net.Buffers{hdr[:]}
	if len(payload) > 0 {
		bufs = append(bufs, payload)
	}
	_, err := bufs.WriteTo(w)
	return err
}

// ReadFrame reads one frame. A clean end of stream before the header is
// io.EOF; a stream that ends inside a frame is io.ErrUnexpectedEOF.
func ReadFrame(r io.Reader) (typ byte, payload []byte, err error) {
	var hdr [5]byte
	if _, err := io.ReadFull(r, hdr[:4]); err != nil {
		return 0, nil, err
	}
	n := binary.LittleEndian.Uint32(hdr[:4])
	if n == 0 {
		return 0, nil, fmt.Errorf("%w: zero length", ErrMalformed)
	}
	if n > MaxFrame {
		return 0, nil, fmt.Errorf("%w: length %d (limit %d)", ErrFrameTooLarge, n, MaxFrame)
	}
	if _, err := io.ReadFull(r, hdr[4:]); err != nil {
		return 0, nil, noEOF(err)
	}
	payload, err = readPayload(r, int(n-1))
	if err != nil {
		return 0, nil, noEOF(err)
	}
	return hdr[4], payload, nil
}

// readPayload grows the buffer as data arrives rather than trusting the
// header, so a truncated frame claiming 64 MiB does not cost 64 MiB.
func readPayload(r io.Reader, n int) ([]byte, error) {
	const direct = 1 << 20
	if n <= direct {
		p := make([]byte, n)
		_, err := io.ReadFull(r, p)
		return p, err
	}
	var b bytes.Buffer
	b.Grow(direct)
	if _, err := io.CopyN(&b, r, int64(n)); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// HelloPayload encodes a Hello payload.
func HelloPayload(rank uint32, secret []byte) []byte {
	p := binary.LittleEndian.AppendUint32(make([]byte, 0, 4+len(secret)), rank)
	return append(p, secret...)
}

// ParseHello decodes a Hello payload.
func ParseHello(p []byte) (rank uint32, secret []byte, err error) {
	if len(p) < 4 {
		return 0, nil, fmt.Errorf("%w: hello of %d bytes", ErrMalformed, len(p))
	}
	return binary.LittleEndian.Uint32(p), p[4:], nil
}

// AllgatherPayload encodes an Allgather payload.
func AllgatherPayload(seq uint64, data []byte) []byte {
	p := binary.LittleEndian.AppendUint64(make([]byte, 0, 8+len(data)), seq)
	return append(p, data...)
}

// ParseAllgather decodes an Allgather payload.
func ParseAllgather(p []byte) (seq uint64, data []byte, err error) {
	if len(p) < 8 {
		return 0, nil, fmt.Errorf("%w: allgather of %d bytes", ErrMalformed, len(p))
	}
	return binary.LittleEndian.Uint64(p), p[8:], nil
}

// AllgatherResultPayload encodes an AllgatherResult payload; entries are
// indexed by rank.
func AllgatherResultPayload(seq uint64, entries [][]byte) []byte {
	size := 8
	for _, e := range entries {
		size += 4 + len(e)
	}
	p := binary.LittleEndian.AppendUint64(make([]byte, 0, size), seq)
	for _, e := range entries {
		p = binary.LittleEndian.AppendUint32(p, uint32(len(e)))
		p = append(p, e...)
	}
	return p
}

// ParseAllgatherResult decodes an AllgatherResult payload that must hold
// exactly npes entries. The entries alias p.
func ParseAllgatherResult(p []byte, npes int) (seq uint64, entries [][]byte, err error) {
	if len(p) < 8 {
		return 0, nil, fmt.Errorf("%w: allgather result of %d bytes", ErrMalformed, len(p))
	}
	seq = binary.LittleEndian.Uint64(p)
	rest := p[8:]
	entries = make([][]byte, npes)
	for i := range entries {
		if len(rest) < 4 {
			return 0, nil, fmt.Errorf("%w: allgather result ends before entry %d of %d", ErrMalformed, i, npes)
		}
		n := binary.LittleEndian.Uint32(rest)
		rest = rest[4:]
		if uint64(n) > uint64(len(rest)) {
			return 0, nil, fmt.Errorf("%w: allgather result entry %d claims %d bytes, %d left", ErrMalformed, i, n, len(rest))
		}
		entries[i] = rest[:n:n]
		rest = rest[n:]
	}
	if len(rest) != 0 {
		return 0, nil, fmt.Errorf("%w: allgather result has %d bytes after %d entries", ErrMalformed, len(rest), npes)
	}
	return seq, entries, nil
}

// AbortPayload encodes an Abort payload.
func AbortPayload(code int32, msg string) []byte {
	p := binary.LittleEndian.AppendUint32(make([]byte, 0, 4+len(msg)), uint32(code))
	return append(p, msg...)
}

// ParseAbort decodes an Abort payload. Invalid UTF-8 is repaired rather
// than rejected: losing a dying PE's exit code over its message would be worse.
func ParseAbort(p []byte) (code int32, msg string, err error) {
	if len(p) < 4 {
		return 0, "", fmt.Errorf("%w: abort of %d bytes", ErrMalformed, len(p))
	}
	msg = string(p[4:])
	if !utf8.ValidString(msg) {
		msg = string(bytes.ToValidUTF8(p[4:], []byte("\uFFFD")))
	}
	return int32(binary.LittleEndian.Uint32(p)), msg, nil
}
