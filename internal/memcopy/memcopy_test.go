package memcopy

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCopyMatchesCopy(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 63, 1<<20 - 1, 1 << 20, 1<<20 + 7, 3<<20 + 12345, cachedMax, cachedMax + 1} {
		src := make([]byte, n)
		for i := range src {
			src[i] = byte(rng.Uint32())
		}
		for _, dlen := range []int{n, n / 2, n + 3} {
			got, want := make([]byte, dlen), make([]byte, dlen)
			require.Equal(t, copy(want, src), Copy(got, src), "n=%d dst=%d", n, dlen)
			require.True(t, bytes.Equal(want, got), "n=%d dst=%d", n, dlen)
		}
	}
}

func TestCopyOverlapping(t *testing.T) {
	for _, shift := range []int{-4097, -1, 1, 300 << 10} {
		n := 2 << 20
		buf := make([]byte, n+(300<<10)+4097)
		for i := range buf {
			buf[i] = byte(i * 7)
		}
		ref := bytes.Clone(buf)
		a, b := 4097, 4097+shift
		copy(ref[a:a+n], ref[b:b+n])
		Copy(buf[a:a+n], buf[b:b+n])
		assert.True(t, bytes.Equal(ref, buf), "shift %d", shift)
	}
}

func TestParseSize(t *testing.T) {
	assert.Equal(t, 32<<20, parseSize("32768K"))
	assert.Equal(t, 2<<20, parseSize("2M"))
	assert.Equal(t, 1<<30, parseSize("1G"))
	assert.Equal(t, 512, parseSize("512"))
	assert.Equal(t, 0, parseSize("lots"))
	assert.Equal(t, 0, parseSize("-1K"))
	assert.Positive(t, lastLevelCache())
}

// BenchmarkCopy compares Copy with copy on the sizes where they differ:
// working sets within the last-level cache.
func BenchmarkCopy(b *testing.B) {
	for _, size := range []int{1 << 20, 4 << 20} {
		src, dst := make([]byte, size), make([]byte, size)
		for i := range src { // real pages, not the shared zero page
			src[i], dst[i] = byte(i), byte(i)
		}
		for name, f := range map[string]func([]byte, []byte) int{"copy": func(d, s []byte) int { return copy(d, s) }, "Copy": Copy} {
			b.Run(fmt.Sprintf("%s/%dMiB", name, size>>20), func(b *testing.B) {
				b.SetBytes(int64(size))
				for b.Loop() {
					f(dst, src)
				}
			})
		}
	}
}
