package perf

import (
	"fmt"
	"testing"
)

// Benchmarks between two processes (go test -bench . ./cmd/gshmem/internal/perf/).
// Each b.N run starts a job of two PEs (this binary re-executed through the
// launcher) that performs b.N operations and reports what PE 0 timed: the
// process start-up is outside the reported figures, which override ns/op.
// The anchors of the same run sit beside the RMA figures: memcpy over the
// same working set as the bandwidth rows, and a raw cache-line ping-pong.
//
//	go test -run '^$' -bench . -benchtime 2000000x ./cmd/gshmem/internal/perf/   (fixed count)
//	go test -run '^$' -bench . ./cmd/gshmem/internal/perf/                       (b.N found by the framework)

// benchSizes are the bandwidth rows: 8 B to 4 MiB.
var benchSizes = []int{8, 64, 512, 4 << 10, 64 << 10, 1 << 20, 4 << 20}

func BenchmarkPut(b *testing.B) {
	b.Run("latency/8B", func(b *testing.B) { benchLatency(b, "put_latency", "") })
	for _, size := range benchSizes {
		b.Run("bw/"+sizeLabel(int64(size)), func(b *testing.B) { benchBandwidth(b, "put_bw", size) })
	}
}

func BenchmarkGet(b *testing.B) {
	b.Run("latency/8B", func(b *testing.B) { benchLatency(b, "get_latency", "") })
	for _, size := range benchSizes {
		b.Run("bw/"+sizeLabel(int64(size)), func(b *testing.B) { benchBandwidth(b, "get_bw", size) })
	}
}

// BenchmarkMemcpy is the bandwidth anchor: one thread's copy() over the
// working set of the bw rows (64 messages of the size).
func BenchmarkMemcpy(b *testing.B) {
	for _, size := range benchSizes {
		b.Run("bw/"+sizeLabel(int64(size)), func(b *testing.B) { benchBandwidth(b, "memcpy_bw", size) })
	}
}

// BenchmarkShmPingPong is the latency anchor: one-way time of a cache line
// between the two processes, with no runtime call.
func BenchmarkShmPingPong(b *testing.B) { benchLatency(b, "shm_pingpong", "") }

func BenchmarkAtomic(b *testing.B) {
	for _, op := range []string{"fetch_add", "compare_swap", "add"} {
		b.Run(op, func(b *testing.B) { benchLatency(b, "atomic_latency", op) })
	}
}

func BenchmarkSignalPingPong(b *testing.B) { benchLatency(b, "signal_latency", "") }

// benchLatency runs b.N operations of an 8-byte latency test.
func benchLatency(b *testing.B, test, op string) {
	cfg := Config{MinSize: 8, MaxSize: 8, Iters: b.N, Warmup: min(b.N/10+1, 10000), Op: op}
	r := benchRow(b, jobTest{Name: test, Cfg: cfg})
	b.ReportMetric(r.LatencyUS*1e3, "ns/op")
	b.ReportMetric(r.MinUS*1e3, "min-ns/op")
	b.ReportMetric(r.MedianUS*1e3, "median-ns/op")
}

// benchBandwidth moves at least b.N messages of size bytes, in windows of
// 64 as OSU does.
func benchBandwidth(b *testing.B, test string, size int) {
	win := Defaults().Window
	windows := (b.N + win - 1) / win
	cfg := Config{MinSize: size, MaxSize: size, Iters: windows, Warmup: min(windows/10+1, 10), Window: win}
	r := benchRow(b, jobTest{Name: test, Cfg: cfg})
	b.ReportMetric(r.LatencyUS*1e3, "ns/op")
	b.ReportMetric(r.BandwidthGBps, "GB/s")
}

func benchRow(b *testing.B, t jobTest) Row {
	b.Helper()
	rows := runProcs(b, 2, t)
	if len(rows) != 1 {
		b.Fatalf("%s: %d rows, want 1", t.Name, len(rows))
	}
	if rows[0].LatencyUS <= 0 {
		b.Fatalf("%s: row %+v", t.Name, rows[0])
	}
	return rows[0]
}

// sizeLabel names a benchmark size as 8, 4K, 1M.
func sizeLabel(v int64) string {
	switch {
	case v >= 1<<20 && v%(1<<20) == 0:
		return fmt.Sprintf("%dM", v>>20)
	case v >= 1<<10 && v%(1<<10) == 0:
		return fmt.Sprintf("%dK", v>>10)
	}
	return fmt.Sprint(v)
}
