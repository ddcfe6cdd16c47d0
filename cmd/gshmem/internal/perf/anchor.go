package perf

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/gshmem/gshmem/shmem"
)

// The anchors are what the hardware gives without the runtime: the tests
// above are judged against them in the same run.
func init() {
	Register(Test{
		Name: "memcpy_bw", Kind: Bandwidth, MinPEs: 1, Sweep: true,
		Summary: "anchor: single-thread Go copy() over the bw tests' working set",
		Measures: "PE 0 copies --window messages of size bytes from a private buffer to distinct offsets of its own symmetric heap, " +
			"in a loop: the put_bw pattern without the runtime; bytes copied / time",
		Run: memcpyBW,
	})
	Register(Test{
		Name: "shm_pingpong", Kind: Latency,
		Summary: "anchor: raw cross-process cache-line ping-pong through shmem.Ptr",
		Measures: "PE 0 stores a counter into PE 1's word through the mapping Ptr returns (sync/atomic) and spins on its own word; " +
			"PE 1 answers alike; no runtime call in the loop. latency is half the round trip (one-way), rtt_us the whole",
		Run: shmPingPong,
	})
}

func memcpyBW(ctx context.Context, w *shmem.World, cfg Config) ([]Row, error) {
	esz, _ := elemSize(cfg.Datatype)
	sizes, win := cfg.Sizes(esz), cfg.Window
	dst, err := shmem.Alloc[byte](w, win*sizes[len(sizes)-1])
	if err != nil {
		return nil, err
	}
	defer shmem.Free(dst)
	var src []byte
	if w.MyPE() == 0 {
		src = make([]byte, dst.Len())
	}
	return sweep(ctx, w, cfg, "memcpy_bw", sizes, step{
		prepare: func(k, size int) error {
			if src != nil {
				fill(src[:win*size], pattern[byte](k))
			}
			return nil
		},
		measure: func(k, size int) (Row, error) {
			d := dst.Local()
			iters, warm := cfg.loops(Bandwidth, size)
			st, err := cfg.measure(ctx, warm, iters, win, func(int) error {
				for j := range win {
					copy(d[j*size:j*size+size], src[j*size:j*size+size])
				}
				return nil
			})
			if err == nil {
				err = expect("memcpy target", d[:win*size], pattern[byte](k))
			}
			r := bandwidthRow(size, st)
			r.Window = win
			return r, err
		},
	})
}

// pollEvery is how many spins pass between checks that the job is alive.
const pollEvery = 1 << 22

func shmPingPong(ctx context.Context, w *shmem.World, cfg Config) ([]Row, error) {
	word, err := shmem.Calloc[uint64](w, 1)
	if err != nil {
		return nil, err
	}
	defer shmem.Free(word)
	var peer []uint64
	switch w.MyPE() {
	case 0:
		peer = shmem.Ptr(word, 1)
	case 1:
		peer = shmem.Ptr(word, 0)
	}
	if w.MyPE() < 2 && peer == nil {
		return nil, fmt.Errorf("%w: the peer's heap is not mapped here (shmem.Ptr is nil)", shmem.ErrUnsupported)
	}
	mine := &word.Local()[0]
	var there *uint64
	if peer != nil {
		there = &peer[0]
	}
	if cfg.Iters == 0 {
		cfg.Iters, cfg.Warmup = 100000, 1000
	}
	wait := func(v uint64) error {
		var since time.Time
		for n := 1; atomic.LoadUint64(mine) != v; n++ {
			if n%pollEvery != 0 {
				continue
			}
			switch {
			case ctx.Err() != nil:
				return ctx.Err()
			case since.IsZero():
				since = time.Now()
			case time.Since(since) > 30*time.Second:
				return errors.New("the peer stopped answering for 30s")
			}
		}
		return nil
	}
	send := func(v uint64, _ int) error { atomic.StoreUint64(there, v); return nil }
	var base uint64
	rows, err := sweep(ctx, w, cfg, "shm_pingpong", []int{8}, step{
		measure: func(_, size int) (Row, error) { return pingPong(ctx, cfg, size, &base, send, wait) },
		partner: func(_, size int) error { return pongs(cfg, size, &base, send, wait) },
	})
	for i := range rows {
		rows[i].Datatype = "uint64"
	}
	return rows, err
}
