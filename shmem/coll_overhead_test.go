package shmem

import (
	"testing"
)

// arrive stores into this PE's round-0 barrier line what the partner of a
// two-PE team stores there in the team's next barrier: its word for hash h,
// and payload after it.
func (t *Team) arrive(h uint32, payload []byte) {
	e := t.bepoch + 1
	line := t.slotOff + uint64(e&1)*uint64(t.w.teams.rounds)*64
	copy(t.w.heap[line+8:], payload)
	const mask = 1<<28 - 1
	hw := uint64(h) & mask
	storeLocal(t.w.heap, line, uint64(e&0xff)<<56|hw<<28|hw)
}

// benchSolo times a collective's software on a team of two PEs without
// waiting for the partner: before each call the partner's store is
// simulated. PE 0 runs the loop while PE 1 waits, then PE 1 runs it, so
// both end in the same state; ns/op is the mean over both.
func benchSolo(b *testing.B, setup func(w *World) (op func() error, hash func() uint32, err error)) {
	ready := make(chan struct{}) // PE 1 has finished the first call
	turn := make(chan struct{})  // PE 0 has run the loop
	done := make(chan struct{})  // PE 1 has run the loop
	err := Run(2, func(w *World) error {
		op, hash, err := setup(w)
		if err != nil {
			return err
		}
		if err := op(); err != nil {
			return err
		}
		t := w.TeamWorld()
		payload := make([]byte, lineData)
		run := func() error {
			b.StartTimer()
			defer b.StopTimer()
			for range b.N {
				t.arrive(hash(), payload)
				if err := op(); err != nil {
					return err
				}
			}
			return nil
		}
		if w.MyPE() == 0 {
			<-ready
			b.StopTimer()
			b.ResetTimer()
			err = run()
			close(turn)
		} else {
			close(ready)
			<-turn
			err = run()
			close(done)
		}
		<-done
		if err != nil {
			return err
		}
		return w.BarrierAll()
	}, WithSymmetricSize(1<<20))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/op")
}

func BenchmarkSoloBarrier(b *testing.B) {
	benchSolo(b, func(w *World) (func() error, func() uint32, error) {
		return w.TeamWorld().Barrier, func() uint32 { return syncHash }, nil
	})
}

func BenchmarkSoloAllreduce8B(b *testing.B) {
	benchSolo(b, func(w *World) (func() error, func() uint32, error) {
		src, err := Calloc[float32](w, 2)
		if err != nil {
			return nil, nil, err
		}
		dst, err := Calloc[float32](w, 2)
		if err != nil {
			return nil, nil, err
		}
		t := w.TeamWorld()
		return func() error { return Reduce(t, ReduceSum, dst, src, 2) },
			func() uint32 { return t.lines.hash }, nil
	})
}
