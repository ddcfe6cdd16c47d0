package compat_test

import (
	"fmt"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/shmem"
)

// A token goes around a ring of ranks with Send and Recv; then Allreduce
// sums the ranks. In a program started by `gshmem run`, compat.Init
// replaces shmem.Run and compat.New.
func Example() {
	_ = shmem.Run(4, func(w *shmem.World) error {
		env, err := compat.New(w)
		if err != nil {
			return err
		}
		c := env.CommWorld()
		me, n := c.Rank(), c.Size()
		tok := []int64{0}
		if me == 0 {
			tok[0] = 100
			if err := compat.Send(c, tok, 1, compat.Int64, 1, 0); err != nil {
				return err
			}
			if _, err := compat.Recv(c, tok, 1, compat.Int64, n-1, 0); err != nil {
				return err
			}
			fmt.Println("token back at rank 0:", tok[0])
		} else {
			if _, err := compat.Recv(c, tok, 1, compat.Int64, me-1, 0); err != nil {
				return err
			}
			tok[0] += int64(me)
			if err := compat.Send(c, tok, 1, compat.Int64, (me+1)%n, 0); err != nil {
				return err
			}
		}
		sum := []int64{int64(me)}
		if err := compat.Allreduce(c, compat.InPlace[int64](), sum, 1, compat.Int64, compat.OpSum); err != nil {
			return err
		}
		if me == 0 {
			fmt.Println("sum of ranks:", sum[0])
		}
		return env.Finalize()
	}, shmem.WithSymmetricSize(16<<20))
	// Output:
	// token back at rank 0: 106
	// sum of ranks: 6
}

// Irecv with AnySource collects one message from every other rank in
// whatever order they arrive; the Status says who sent each.
func ExampleIrecv() {
	_ = shmem.Run(3, func(w *shmem.World) error {
		env, err := compat.New(w)
		if err != nil {
			return err
		}
		c := env.CommWorld()
		if c.Rank() != 0 {
			msg := []byte(fmt.Sprintf("hello from %d", c.Rank()))
			if err := compat.Send(c, msg, len(msg), compat.Byte, 0, 7); err != nil {
				return err
			}
			return env.Finalize()
		}
		bufs := [][]byte{make([]byte, 32), make([]byte, 32)}
		var reqs []*compat.Request
		for _, b := range bufs {
			r, err := compat.Irecv(c, b, len(b), compat.Byte, compat.AnySource, 7)
			if err != nil {
				return err
			}
			reqs = append(reqs, r)
		}
		sts := make([]compat.Status, 2)
		if err := compat.Waitall(reqs, sts); err != nil {
			return err
		}
		got := map[int]string{}
		for i, st := range sts {
			got[st.Source] = string(bufs[i][:st.Count(compat.Byte)])
		}
		fmt.Println(got[1])
		fmt.Println(got[2])
		return env.Finalize()
	}, shmem.WithSymmetricSize(16<<20))
	// Output:
	// hello from 1
	// hello from 2
}

// Split makes row communicators of a 2 x 3 grid; each row sums its ranks.
func ExampleComm_Split() {
	_ = shmem.Run(6, func(w *shmem.World) error {
		env, err := compat.New(w)
		if err != nil {
			return err
		}
		world := env.CommWorld()
		row, err := world.Split(world.Rank()/3, world.Rank())
		if err != nil {
			return err
		}
		sum := []int32{0}
		if err := compat.Allreduce(row, []int32{int32(world.Rank())}, sum, 1, compat.Int32, compat.OpSum); err != nil {
			return err
		}
		if row.Rank() == 0 {
			// Print in world-rank order: rank 0 first, then rank 3.
			if world.Rank() == 3 {
				_ = world.Barrier()
			}
			fmt.Printf("row of world rank %d: size %d, sum %d\n", world.Rank(), row.Size(), sum[0])
			if world.Rank() == 0 {
				_ = world.Barrier()
			}
		} else {
			_ = world.Barrier()
		}
		if err := row.Free(); err != nil {
			return err
		}
		return env.Finalize()
	}, shmem.WithSymmetricSize(16<<20))
	// Output:
	// row of world rank 0: size 3, sum 3
	// row of world rank 3: size 3, sum 12
}
