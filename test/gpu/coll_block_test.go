//go:build cuda

package gpu_test

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/gshmem/gshmem/kernels"
	"github.com/gshmem/gshmem/shmem"
)

// The block-scoped team collectives of gshmem.cuh, run by the self-test
// kernel gshmemt_coll (kernels/cuda/selftest.cu) with one block on each
// member, checked element by element against the host's result.

// blockN elements: more than one 4 KiB chunk of long longs, so that the
// in-place reduction takes several rounds.
const blockN = 700

type blockBufs struct {
	src, dst, ip, bc, fc, at shmem.Sym[int64]
	sm, smip                 shmem.Sym[int64]
	fsrc, fdst               shmem.Sym[float64]
}

// newBlockBufs allocates for teams of up to np members (collective over
// the world).
func newBlockBufs(w *shmem.World) *blockBufs {
	np := w.NPEs()
	return &blockBufs{
		src: must(shmem.Calloc[int64](w, blockN*np)), dst: must(shmem.Calloc[int64](w, blockN)),
		ip: must(shmem.Calloc[int64](w, blockN)), bc: must(shmem.Calloc[int64](w, blockN)),
		fc: must(shmem.Calloc[int64](w, blockN*np)), at: must(shmem.Calloc[int64](w, blockN*np)),
		fsrc: must(shmem.Calloc[float64](w, blockN)), fdst: must(shmem.Calloc[float64](w, blockN)),
		sm: must(shmem.Calloc[int64](w, 3)), smip: must(shmem.Calloc[int64](w, 8)),
	}
}

func (b *blockBufs) free(c *checker) {
	for _, s := range []shmem.Sym[int64]{b.src, b.dst, b.ip, b.bc, b.fc, b.at, b.sm, b.smip} {
		c.ok("Free", shmem.Free(s))
	}
	c.ok("Free", shmem.Free(b.fsrc))
	c.ok("Free", shmem.Free(b.fdst))
}

func blockColl(x *collCtx, m *kernels.PTXModule, b *blockBufs) {
	me, np, wpe, n := x.me(), x.np(), x.w.MyPE(), blockN
	root := np - 1
	k, err := m.Kernel("gshmemt_coll")
	if !x.c.ok("gshmemt_coll", err) {
		return
	}
	team, err := x.t.DeviceHandle()
	if !x.c.ok("DeviceHandle", err) {
		return
	}
	src := make([]int64, n*np)
	for i := range src {
		src[i] = int64(mix(wpe, i, 21))
	}
	fsrc := make([]float64, n)
	for i := range fsrc {
		fsrc[i] = val[float64](wpe, i, 22)
	}
	if !put(x, b.src.Slice(0, n*np), src) || !put(x, b.ip, src[:n]) || !put(x, b.fsrc, fsrc) || !put(x, b.smip, src[:8]) || !x.c.ok("sync", x.t.Sync()) {
		return
	}
	var args []byte
	args = binary.LittleEndian.AppendUint64(args, uint64(team))
	for _, p := range []uintptr{
		must(shmem.DevicePtr(b.src, wpe)), must(shmem.DevicePtr(b.dst, wpe)), must(shmem.DevicePtr(b.ip, wpe)),
		must(shmem.DevicePtr(b.fsrc, wpe)), must(shmem.DevicePtr(b.fdst, wpe)), must(shmem.DevicePtr(b.bc, wpe)),
		must(shmem.DevicePtr(b.fc, wpe)), must(shmem.DevicePtr(b.at, wpe)),
		must(shmem.DevicePtr(b.sm, wpe)), must(shmem.DevicePtr(b.smip, wpe)),
	} {
		args = binary.LittleEndian.AppendUint64(args, uint64(p))
	}
	args = binary.LittleEndian.AppendUint32(args, uint32(n))
	args = binary.LittleEndian.AppendUint32(args, uint32(root))
	l := kernels.PTXLaunch{Grid: kernels.PTXDim{X: 1}, Block: kernels.PTXDim{X: 256}, Stream: x.st.Handle()}
	if !x.c.ok("gshmemt_coll launch", k.LaunchCollective(l, x.w.NPEs(), kernels.PTXStruct{Bytes: args, Align: 8})) {
		return
	}
	done := make(chan error, 1)
	go func() { done <- x.st.Synchronize() }()
	select {
	case err := <-done:
		if !x.c.ok("gshmemt_coll", err) {
			return
		}
	case <-time.After(60 * time.Second):
		x.c.ok("gshmemt_coll", fmt.Errorf("did not finish in 60 s (a team barrier in the kernel hung)"))
		return
	}
	at := func(p, i int) int64 { return int64(mix(x.mem[p], i, 21)) }
	sum, xor, fmax, bc := make([]int64, n), make([]int64, n), make([]float64, n), make([]int64, n)
	fc, all := make([]int64, n*np), make([]int64, n*np)
	for i := range n {
		sum[i], xor[i], fmax[i] = at(0, i), at(0, i), val[float64](x.mem[0], i, 22)
		for p := 1; p < np; p++ {
			sum[i] += at(p, i)
			xor[i] ^= at(p, i)
			fmax[i] = max(fmax[i], val[float64](x.mem[p], i, 22))
		}
		bc[i] = at(root, i)
		for p := range np {
			fc[p*n+i] = at(p, i)
			all[p*n+i] = at(p, me*n+i)
		}
	}
	x.check("sum_reduce_block", nil, nil, sameBits(get(x, b.dst, n), sum))
	x.check("xor_reduce_block in place", nil, nil, sameBits(get(x, b.ip, n), xor))
	x.check("double max_reduce_block", nil, nil, sameBits(get(x, b.fdst, n), fmax))
	x.check("broadcast_block", nil, nil, sameBits(get(x, b.bc, n), bc))
	x.check("fcollect_block", nil, nil, sameBits(get(x, b.fc, n*np), fc))
	x.check("alltoall_block", nil, nil, sameBits(get(x, b.at, n*np), all))
	x.check("sum_reduce_block of 3 (one round, three times)", nil, nil, sameBits(get(x, b.sm, 3), sum[:3]))
	x.check("xor_reduce_block of 8 in place (one round)", nil, nil, sameBits(get(x, b.smip, 8), xor[:8]))
	x.c.ok("sync", x.t.Sync())
}
