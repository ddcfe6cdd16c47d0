package kernels_test

import (
	"fmt"

	"github.com/gshmem/gshmem/kernels"
	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/streams"
)

// A kernel of 2 blocks of 64 threads squares a vector, one element per
// thread, and the block barrier lets thread 0 of each block sum its block.
func ExampleLaunch() {
	v := make([]int, 128)
	sums := make([]int, 2)
	err := kernels.Launch(kernels.Dim(2), kernels.Dim(64), func(t *kernels.Thread) {
		i := t.GlobalRank()
		v[i] = i * i
		t.SyncThreads()
		if t.ThreadRank() == 0 {
			for _, x := range v[i : i+t.BlockThreads()] {
				sums[t.BlockRank()] += x
			}
		}
	})
	fmt.Println(sums, err)
	// Output: [85344 605536] <nil>
}

// Each PE's kernel sends a block of data to the right neighbour with a
// block-scope put-with-signal; on the neighbour, the block waits for the
// signal and finds the data.
func ExamplePutSignal() {
	_ = shmem.Run(2, func(w *shmem.World) error {
		data, _ := shmem.Calloc[int32](w, 256)
		sig, _ := shmem.Calloc[uint64](w, 1)
		src := make([]int32, 256)
		for i := range src {
			src[i] = int32(w.MyPE()*1000 + i)
		}
		s, err := streams.New(w)
		if err != nil {
			return err
		}
		defer s.Close()
		right := (w.MyPE() + 1) % w.NPEs()
		var last int32
		kernels.LaunchOnStream(s, kernels.Dim(1), kernels.Dim(64), func(t *kernels.Thread) {
			kernels.PutSignal(t.Block(), data, src, sig, 1, shmem.SignalSet, right)
			kernels.SignalWaitUntil(t.Block(), sig, shmem.CmpEQ, 1)
			if t.ThreadRank() == 0 {
				last = data.Local()[255]
			}
		})
		if err := s.Synchronize(); err != nil {
			return err
		}
		if w.MyPE() == 0 {
			fmt.Println("PE 0 received", last)
		}
		return nil
	}, shmem.WithSymmetricSize(1<<20))
	// Output: PE 0 received 1255
}

// In a collective launch the kernels of all PEs synchronize with each
// other: every PE's grid adds to a counter on PE 0, passes a device-side
// barrier across PEs, and reads the total.
func ExampleCollectiveLaunch() {
	_ = shmem.Run(4, func(w *shmem.World) error {
		ctr, _ := shmem.Calloc[int64](w, 1)
		var total int64
		err := kernels.CollectiveLaunch(w, kernels.Dim(2), kernels.Dim(32), func(t *kernels.Thread) {
			kernels.Add(t, ctr, 1, 0)            // every thread, once
			kernels.BarrierAll(t.Grid())         // all threads of all PEs' grids
			v := kernels.Load(t.Block(), ctr, 0) // one read per block; every thread gets v
			if t.GlobalRank() == 0 {
				total = v // one writer: the race detector would report several
			}
		})
		if err != nil {
			return err
		}
		if w.MyPE() == 3 {
			fmt.Println("total:", total)
		}
		return nil
	}, shmem.WithSymmetricSize(1<<20))
	// Output: total: 256
}
