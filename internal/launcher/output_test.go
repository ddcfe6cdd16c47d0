package launcher

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCopyLines(t *testing.T) {
	// Lines split across reads are joined; one write per read.
	chunks := []string{"ab", "c\nde", "f\n\ng", "h"}
	var writes []string
	read := func(buf []byte) (int, error) {
		if len(chunks) == 0 {
			return 0, io.EOF
		}
		n := copy(buf, chunks[0])
		chunks = chunks[1:]
		return n, nil
	}
	dst := writerFunc(func(p []byte) (int, error) {
		writes = append(writes, string(p))
		return len(p), nil
	})
	copyLines(dst, []byte("[pe 3] "), read, make([]byte, 64))
	assert.Equal(t, []string{"[pe 3] abc\n", "[pe 3] def\n[pe 3] \n", "[pe 3] gh\n"}, writes)

	// A line longer than maxLine comes out in prefixed pieces.
	var out bytes.Buffer
	long := strings.Repeat("x", maxLine+10) + "\n"
	r := strings.NewReader(long)
	copyLines(&out, []byte("> "), r.Read, make([]byte, 32<<10))
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if assert.Len(t, lines, 2) {
		assert.True(t, strings.HasPrefix(lines[0], "> xxx"))
		assert.True(t, strings.HasPrefix(lines[1], "> xxx"))
		assert.Equal(t, maxLine+10, len(lines[0])+len(lines[1])-4)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
