package shmem_test

import (
	"fmt"

	"github.com/gshmem/gshmem/shmem"
)

// Each PE puts its number into its right neighbour's buffer; after the
// barrier every PE holds its left neighbour's number.
func ExamplePut() {
	_ = shmem.Run(4, func(w *shmem.World) error {
		buf, err := shmem.Calloc[int64](w, 1)
		if err != nil {
			return err
		}
		right := (w.MyPE() + 1) % w.NPEs()
		if err := shmem.Put(buf, []int64{int64(w.MyPE())}, right); err != nil {
			return err
		}
		if err := w.BarrierAll(); err != nil {
			return err
		}
		if w.MyPE() == 0 {
			fmt.Println("PE 0 received", buf.Local()[0])
		}
		return nil
	}, shmem.WithSymmetricSize(1<<20))
	// Output: PE 0 received 3
}

// Every PE increments a counter on PE 0; the fetched values are distinct.
func ExampleFetchAdd() {
	_ = shmem.Run(4, func(w *shmem.World) error {
		ctr, err := shmem.Calloc[int64](w, 1)
		if err != nil {
			return err
		}
		if _, err := shmem.FetchAdd(ctr, 10, 0); err != nil {
			return err
		}
		if err := w.BarrierAll(); err != nil {
			return err
		}
		if w.MyPE() == 0 {
			fmt.Println("counter:", ctr.Local()[0])
		}
		return nil
	}, shmem.WithSymmetricSize(1<<20))
	// Output: counter: 40
}

// PE 0 sends a block with put-with-signal; PE 1 waits for the signal and
// then finds the whole block in place.
func ExamplePutSignal() {
	_ = shmem.Run(2, func(w *shmem.World) error {
		data, err := shmem.Calloc[int32](w, 4)
		if err != nil {
			return err
		}
		sig, err := shmem.Calloc[uint64](w, 1)
		if err != nil {
			return err
		}
		switch w.MyPE() {
		case 0:
			return shmem.PutSignal(data, []int32{1, 2, 3, 4}, sig, 1, shmem.SignalSet, 1)
		default:
			if _, err := shmem.SignalWaitUntil(sig, shmem.CmpEQ, 1); err != nil {
				return err
			}
			fmt.Println("PE 1 got", data.Local())
		}
		return nil
	}, shmem.WithSymmetricSize(1<<20))
	// Output: PE 1 got [1 2 3 4]
}

// WaitUntil sleeps until a peer's atomic (or P) changes the word.
func ExampleWaitUntil() {
	_ = shmem.Run(2, func(w *shmem.World) error {
		flag, err := shmem.Calloc[int32](w, 1)
		if err != nil {
			return err
		}
		if w.MyPE() == 1 {
			return shmem.Store(flag, 42, 0)
		}
		if err := shmem.WaitUntil(flag, shmem.CmpEQ, 42); err != nil {
			return err
		}
		fmt.Println("flag is", flag.Local()[0])
		return nil
	}, shmem.WithSymmetricSize(1<<20))
	// Output: flag is 42
}
