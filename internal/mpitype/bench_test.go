package mpitype

import "testing"

// BenchmarkPackVector packs 1 MiB of data from a stride-2 vector of
// doubles; BenchmarkPackMemcpy copies the same bytes, its anchor.
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

func BenchmarkPackMemcpy(b *testing.B) {
	src, dst := make([]byte, 1<<20), make([]byte, 1<<20)
	b.SetBytes(1 << 20)
	for b.Loop() {
		copy(dst, src)
	}
}
