package streams_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/streams"
)

// Each PE issues a put-with-signal to its right neighbour and a wait for
// its own signal on a stream, then reads the data in stream order; the host
// thread only issues and synchronizes.
func ExamplePutSignalOnStream() {
	_ = shmem.Run(4, func(w *shmem.World) error {
		data, err := shmem.Calloc[int64](w, 1)
		if err != nil {
			return err
		}
		sig, err := shmem.Calloc[uint64](w, 1)
		if err != nil {
			return err
		}
		s, err := streams.New(w)
		if err != nil {
			return err
		}
		defer s.Close()
		right := (w.MyPE() + 1) % w.NPEs()
		streams.PutSignalOnStream(s, data, []int64{int64(100 + w.MyPE())}, sig, 1, shmem.SignalSet, right)
		streams.SignalWaitUntilOnStream(s, sig, shmem.CmpEQ, 1)
		var got int64
		s.Enqueue("read", func(context.Context) error { got = data.Local()[0]; return nil })
		if err := s.Synchronize(); err != nil {
			return err
		}
		if w.MyPE() == 0 {
			fmt.Println("PE 0 got", got)
		}
		return nil
	}, shmem.WithSymmetricSize(1<<20))
	// Output: PE 0 got 103
}

// An event orders two streams: what the second issues after WaitEvent runs
// after what the first issued before Record.
func ExampleEvent() {
	_ = shmem.Run(1, func(w *shmem.World) error {
		a, _ := streams.New(w, streams.WithName("producer"))
		b, _ := streams.New(w, streams.WithName("consumer"))
		defer a.Close()
		defer b.Close()
		var x int
		a.Enqueue("produce", func(context.Context) error { x = 42; return nil })
		ev := streams.NewEvent()
		ev.Record(a)
		b.WaitEvent(ev)
		b.Enqueue("consume", func(context.Context) error { fmt.Println("consumer sees", x); return nil })
		return b.Synchronize()
	}, shmem.WithSymmetricSize(1<<20))
	// Output: consumer sees 42
}

// A failing operation stops the stream; Synchronize names it.
func ExampleOpError() {
	_ = shmem.Run(2, func(w *shmem.World) error {
		buf, _ := shmem.Calloc[int32](w, 1)
		s, _ := streams.New(w, streams.WithName("demo"))
		defer s.Close()
		streams.QuietOnStream(s)
		streams.PutOnStream(s, buf, []int32{1}, 5) // there is no PE 5
		streams.QuietOnStream(s)                   // dropped
		err := s.Synchronize()
		var oe *streams.OpError
		if w.MyPE() == 0 && errors.As(err, &oe) {
			fmt.Println(oe.Op, oe.Seq, errors.Is(err, shmem.ErrBadPE))
		}
		return nil
	}, shmem.WithSymmetricSize(1<<20))
	// Output: PutOnStream 2 true
}

// A wait that nothing satisfies is ended by Cancel.
func ExampleStream_Cancel() {
	_ = shmem.Run(1, func(w *shmem.World) error {
		sig, _ := shmem.Calloc[uint64](w, 1)
		s, _ := streams.New(w)
		streams.SignalWaitUntilOnStream(s, sig, shmem.CmpEQ, 1) // nobody signals
		s.Cancel()
		err := s.Synchronize()
		fmt.Println(errors.Is(err, streams.ErrCanceled))
		_ = s.Close()
		return nil
	}, shmem.WithSymmetricSize(1<<20))
	// Output: true
}

// A team reduction on a stream.
func ExampleReduceOnStream() {
	_ = shmem.Run(4, func(w *shmem.World) error {
		src, _ := shmem.Calloc[float64](w, 1)
		dst, _ := shmem.Calloc[float64](w, 1)
		src.Local()[0] = float64(w.MyPE() + 1)
		s, _ := streams.New(w)
		defer s.Close()
		streams.ReduceOnStream(s, w.TeamWorld(), shmem.ReduceSum, dst, src, 1)
		if err := s.Synchronize(); err != nil {
			return err
		}
		if w.MyPE() == 0 {
			fmt.Println("sum:", dst.Local()[0])
		}
		return nil
	}, shmem.WithSymmetricSize(1<<20))
	// Output: sum: 10
}
