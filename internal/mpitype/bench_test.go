package mpitype

import (
	"fmt"
	"testing"
)

// BenchmarkPackVector packs 1 MiB of data from a stride-2 vector of
// doubles; BenchmarkPackMemcpy copies the same bytes, its anchor, and
// BenchmarkPackMemcpySpan the bytes the vector spans (the bytes the pack
// must read: every cache line of them).
func BenchmarkPackVector(b *testing.B) {
	d := BasicMap(BasicFloat64)
	m, err := Vector(1<<17, 1, 2, &d)
	if err != nil {
		b.Fatal(err)
	}
	src, dst := make([]byte, m.Span(1)), make([]byte, m.Size())
	b.SetBytes(int64(m.Size()))
	for b.Loop() {
		m.Pack(dst, src, 1)
	}
}

// BenchmarkPackVectorInt is BenchmarkPackVector of ints.
func BenchmarkPackVectorInt(b *testing.B) {
	d := BasicMap(BasicInt32)
	m, err := Vector(1<<18, 1, 2, &d)
	if err != nil {
		b.Fatal(err)
	}
	src, dst := make([]byte, m.Span(1)), make([]byte, m.Size())
	b.SetBytes(int64(m.Size()))
	for b.Loop() {
		m.Pack(dst, src, 1)
	}
}

func BenchmarkPackMemcpy(b *testing.B) {
	src, dst := make([]byte, 1<<20), make([]byte, 1<<20)
	b.SetBytes(1 << 20)
	for b.Loop() {
		copy(dst, src)
	}
}

func BenchmarkPackMemcpySpan(b *testing.B) {
	src, dst := make([]byte, 2<<20), make([]byte, 2<<20)
	b.SetBytes(1 << 20)
	for b.Loop() {
		copy(dst, src)
	}
}

// BenchmarkPackBlocks packs 1 MiB of data from vectors of blocks of k
// doubles at stride 2k (unpacking too), and from a struct of three
// members repeated.
func BenchmarkPackBlocks(b *testing.B) {
	d := BasicMap(BasicFloat64)
	for _, k := range []int{1, 2, 3, 4, 8, 16, 64} {
		m, err := Vector(1<<17/k, k, 2*k, &d)
		if err != nil {
			b.Fatal(err)
		}
		src, dst := make([]byte, m.Span(1)), make([]byte, m.Size())
		b.Run(fmt.Sprintf("pack%d", 8*k), func(b *testing.B) {
			b.SetBytes(int64(m.Size()))
			for b.Loop() {
				m.Pack(dst, src, 1)
			}
		})
		b.Run(fmt.Sprintf("unpack%d", 8*k), func(b *testing.B) {
			b.SetBytes(int64(m.Size()))
			for b.Loop() {
				m.Unpack(src, dst, 1)
			}
		})
	}
	// {char, double, int[3]}: 1 + 8 + 12 bytes at 0, 8, 16 (extent 32).
	c, i := BasicMap(BasicInt8), BasicMap(BasicInt32)
	st, err := Place([]Part{{0, 1, 1, &c}, {8, 1, 8, &d}, {16, 3, 4, &i}}, true)
	if err != nil {
		b.Fatal(err)
	}
	n := 1 << 20 / st.Size()
	src, dst := make([]byte, n*st.Extent()), make([]byte, n*st.Size())
	b.Run("struct", func(b *testing.B) {
		b.SetBytes(int64(len(dst)))
		for b.Loop() {
			st.Pack(dst, src, n)
		}
	})
}
