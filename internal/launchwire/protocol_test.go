package launchwire

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFrameRoundTrip(t *testing.T) {
	var b bytes.Buffer
	frames := []struct {
		typ     byte
		payload []byte
	}{
		{TypeHello, HelloPayload(3, []byte("secret"))},
		{TypeBye, nil},
		{TypeAllgather, AllgatherPayload(9, bytes.Repeat([]byte{0xab}, 3<<20))},
		{TypeAbort, AbortPayload(-2, "boom")},
	}
	for _, f := range frames {
		require.NoError(t, WriteFrame(&b, f.typ, f.payload))
	}
	for _, f := range frames {
		typ, p, err := ReadFrame(&b)
		require.NoError(t, err)
		assert.Equal(t, f.typ, typ)
		assert.Equal(t, len(f.payload), len(p))
		assert.True(t, bytes.Equal(f.payload, p))
	}
	_, _, err := ReadFrame(&b)
	assert.Equal(t, io.EOF, err, "a clean end between frames is io.EOF")
}

func TestPayloads(t *testing.T) {
	rank, secret, err := ParseHello(HelloPayload(7, []byte{1, 2, 3}))
	require.NoError(t, err)
	assert.Equal(t, uint32(7), rank)
	assert.Equal(t, []byte{1, 2, 3}, secret)

	seq, data, err := ParseAllgather(AllgatherPayload(1<<40, []byte("xy")))
	require.NoError(t, err)
	assert.Equal(t, uint64(1<<40), seq)
	assert.Equal(t, []byte("xy"), data)

	entries := [][]byte{[]byte("a"), nil, []byte("ccc")}
	p := AllgatherResultPayload(5, entries)
	seq, got, err := ParseAllgatherResult(p, 3)
	require.NoError(t, err)
	assert.Equal(t, uint64(5), seq)
	assert.Equal(t, []byte("a"), got[0])
	assert.Empty(t, got[1])
	assert.Equal(t, []byte("ccc"), got[2])
	_, _, err = ParseAllgatherResult(p, 2)
	assert.ErrorIs(t, err, ErrMalformed, "trailing entry")
	_, _, err = ParseAllgatherResult(p, 4)
	assert.ErrorIs(t, err, ErrMalformed, "missing entry")
	_, _, err = ParseAllgatherResult(p[:len(p)-1], 3)
	assert.ErrorIs(t, err, ErrMalformed, "short entry")

	code, msg, err := ParseAbort(AbortPayload(-7, "bye"))
	require.NoError(t, err)
	assert.Equal(t, int32(-7), code)
	assert.Equal(t, "bye", msg)
	_, msg, err = ParseAbort(append(AbortPayload(1, ""), 0xff, 'x'))
	require.NoError(t, err)
	assert.Equal(t, "\uFFFDx", msg)

	for _, short := range [][]byte{nil, {1, 2, 3}} {
		_, _, err = ParseHello(short)
		assert.ErrorIs(t, err, ErrMalformed)
		_, _, err = ParseAbort(short)
		assert.ErrorIs(t, err, ErrMalformed)
		_, _, err = ParseAllgather(short)
		assert.ErrorIs(t, err, ErrMalformed)
		_, _, err = ParseAllgatherResult(short, 1)
		assert.ErrorIs(t, err, ErrMalformed)
	}
}

func header(n uint32) []byte { return binary.LittleEndian.AppendUint32(nil, n) }

func TestReadFrameRejects(t *testing.T) {
	_, _, err := ReadFrame(bytes.NewReader(header(MaxFrame + 1)))
	assert.ErrorIs(t, err, ErrFrameTooLarge)
	_, _, err = ReadFrame(bytes.NewReader(header(0)))
	assert.ErrorIs(t, err, ErrMalformed)
	_, _, err = ReadFrame(bytes.NewReader([]byte{1, 0}))
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF, "truncated header")
	_, _, err = ReadFrame(bytes.NewReader(header(5)))
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF, "no type byte")
	_, _, err = ReadFrame(bytes.NewReader(append(header(5), TypeAllgather, 1, 2)))
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF, "truncated payload")
	// A large claimed length with little data behind it must fail fast
	// without allocating the claim.
	allocs := testing.AllocsPerRun(1, func() {
		ReadFrame(bytes.NewReader(append(header(MaxFrame), TypeAllgather, 1)))
	})
	assert.Less(t, allocs, 100.0)
}

func TestWriteFrameRejectsOversize(t *testing.T) {
	var b bytes.Buffer
	err := WriteFrame(&b, TypeAllgather, make([]byte, MaxFrame))
	assert.ErrorIs(t, err, ErrFrameTooLarge)
	assert.Zero(t, b.Len(), "nothing written")
}

func FuzzReadFrame(f *testing.F) {
	var b bytes.Buffer
	WriteFrame(&b, TypeHello, HelloPayload(1, []byte("s")))
	f.Add(b.Bytes())
	f.Add(append(header(9), TypeAllgatherResult, 1, 0, 0, 0, 0, 0, 0, 0))
	f.Add(append(header(5), TypeAbort, 3, 0, 0, 0))
	f.Add(header(MaxFrame + 1))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, in []byte) {
		r := bytes.NewReader(in)
		typ, p, err := ReadFrame(r)
		if err != nil {
			return
		}
		consumed := len(in) - r.Len()
		var out bytes.Buffer
		require.NoError(t, WriteFrame(&out, typ, p))
		require.Equal(t, in[:consumed], out.Bytes(), "re-encoding gives the bytes read")
		// No payload parser may panic on what a frame carries.
		ParseHello(p)
		ParseAllgather(p)
		ParseAbort(p)
		for n := range 4 {
			ParseAllgatherResult(p, n)
		}
	})
}
