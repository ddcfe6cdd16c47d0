package compat

import (
	"errors"
	"unsafe"

	"github.com/gshmem/gshmem/shmem"
)

// Collectives on a World whose heap is GPU memory (shmem.WithDevice,
// GSHMEM_HEAP=device).
//
// There the collective scratch is device memory and the communicators'
// teams run their collectives as kernels (shmem's device collectives), so
// Allreduce, Reduce, Bcast, Allgather and Alltoall move each member's bytes
// into the scratch, run the team collective on it and move the result out:
// device-to-device copies for a buffer in device memory, host-to-device and
// back for a buffer in host memory. A device buffer never passes through
// the host on this path, and members may mix host and device buffers.
//
// When every member passes device buffers that lie in the symmetric heap at
// the same offsets (shmem.DeviceSym), the collective runs on them directly,
// with no copy. Whether the offsets agree is learned from the collective's
// own entry check: a member that cannot go direct stages, the members'
// arguments then differ, every member gets shmem.ErrSizeMismatch before any
// data moved, and all of them run the staged form.
//
// The rooted and v-collectives and ReduceScatter(Block) have their own
// device path (coll_devv.go).
//
// A call the kernels cannot do (an op or type without a kernel: OpMaxloc,
// logical ops, complex and bool types; a non-contiguous datatype; a
// communicator without a team) takes the host path; a device buffer is
// then copied to host memory and back, the one case where device data
// crosses the host.

// deviceConfig fits compat's areas to a device World: the mailboxes, the
// staging area and the pool go to its host area, the scratch to the GPU,
// where large collectives run in pieces of it.
func deviceConfig(c *config, opts []Option, w *shmem.World) error {
	var set config
	envSize("GSHMEM_MPI_SCRATCH", &set.scratchSize, &set)
	for _, o := range opts {
		o(&set)
	}
	heap := w.Options().SymmetricSize
	if set.scratchSize == 0 {
		c.scratchSize = int(min(max(heap/16, 64<<10), 256<<20)) &^ (cell - 1)
	}
	host := w.HostAreaFree()
	fixed := uint64(8*ctrlWords(w.NPEs())+cell) + uint64(w.NPEs()*c.ringBytes) + uint64(c.stagingBytes)
	if c.poolDefault {
		c.poolBytes = int(min(uint64(c.poolBytes), (host-min(host, fixed))/2)) &^ (cell - 1)
	}
	if need := fixed + uint64(c.poolBytes); need > host {
		return errorf(ClassNoMem, "compat needs %d bytes of host memory in the device heap's host area of %d free bytes (rings %d, staging %d, pool %d): raise GSHMEM_HOST_AREA or lower GSHMEM_MPI_POOL_SIZE",
			need, host, w.NPEs()*c.ringBytes, c.stagingBytes, c.poolBytes)
	}
	return nil
}

// dspan is a member's buffer in a device collective: host memory, or a
// device address, or neither (a member that only takes part).
type dspan struct {
	host []byte
	dev  uintptr
}

func (s dspan) none() bool { return s.host == nil && s.dev == 0 }

// devAddr returns the address of b when it is device memory, else 0.
func devAddr[T Elem](e *Env, b []T) uintptr {
	if !e.dev || cap(b) == 0 || isInPlace(b) {
		return 0
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if e.w.IsDeviceMemory(p) {
		return p
	}
	return 0
}

// afterCaller orders the PE's device work after what the caller issued on
// the CUDA default stream (a cudaMemcpy into a buffer may return before the
// data lands) when any of the addresses is device memory.
func (e *Env) afterCaller(devs ...uintptr) error {
	for _, d := range devs {
		if d != 0 {
			return wrap(e.w.DeviceAfterDefaultStream(), "ordering after the default stream")
		}
	}
	return nil
}

// spanOf is b's first size bytes as a span.
func spanOf(b []byte, dev uintptr, size int) dspan {
	if dev != 0 {
		return dspan{dev: dev}
	}
	return dspan{host: b[:size:size]}
}

// scratchIn copies b into the scratch at byte offset off.
func (e *Env) scratchIn(off int, b []byte) error {
	if e.scratchMine != nil {
		copy(e.scratchMine[off:], b)
		return nil
	}
	return wrap(shmem.Put(e.scratch.Slice(off, off+len(b)), b, e.me), "staging into the device scratch")
}

// scratchOut copies len(b) bytes of the scratch at off into b.
func (e *Env) scratchOut(b []byte, off int) error {
	if e.scratchMine != nil {
		copy(b, e.scratchMine[off:off+len(b)])
		return nil
	}
	return wrap(shmem.Get(b, e.scratch.Slice(off, off+len(b)), e.me), "reading the device scratch")
}

// spanIn copies n bytes of s at off into the scratch at so.
func (e *Env) spanIn(so int, s dspan, off, n int) error {
	switch {
	case n == 0 || s.none():
		return nil
	case s.dev != 0:
		return wrap(shmem.CopyFromDevice(e.scratch.Slice(so, so+n), s.dev+uintptr(off)), "staging into the device scratch")
	}
	return e.scratchIn(so, s.host[off:off+n])
}

// spanOut copies n bytes of the scratch at so into s at off. A copy to
// device memory is queued on the PE's stream: devDone waits for it.
func (e *Env) spanOut(s dspan, off, so, n int) error {
	switch {
	case n == 0 || s.none():
		return nil
	case s.dev != 0:
		return wrap(shmem.CopyToDevice(s.dev+uintptr(off), e.scratch.Slice(so, so+n)), "copying from the device scratch")
	}
	return e.scratchOut(s.host[off:off+n], so)
}

// devDone waits for the copies spanOut queued.
func (e *Env) devDone() error { return wrap(e.w.Quiet(), "device copies") }

// staged runs a device collective's direct form, when this member can,
// then its staged form when the direct form was not run or the members
// disagreed on its arguments at its first call (all of them learn that
// there, before any data moves).
func staged(direct func() error, stage func() (calls int, err error)) error {
	if direct != nil {
		err := direct()
		if !errors.Is(err, shmem.ErrSizeMismatch) {
			return err
		}
	}
	calls, err := stage()
	if direct == nil && calls == 1 && errors.Is(err, shmem.ErrSizeMismatch) {
		// A member went direct: stage again, as it does now.
		_, err = stage()
	}
	return err
}

// devSyms returns the symmetric objects of device spans of size bytes, or
// false when either is not one.
func (e *Env) devSyms(size int, spans ...dspan) ([]shmem.Sym[byte], bool) {
	out := make([]shmem.Sym[byte], len(spans))
	for i, s := range spans {
		if s.dev == 0 || size == 0 {
			return nil, false
		}
		var ok bool
		if out[i], ok = shmem.DeviceSym(e.w, s.dev, size); !ok {
			return nil, false
		}
	}
	return out, true
}

// reduceEligible reports whether a reduction of dt with op runs on the
// team's kernels.
func (c *Comm) reduceEligible(dt Datatype, op Op) (shmem.ReduceOp, bool) {
	if c.coll.team == nil || dt.Err() != nil || !mapOf(dt).Contiguous() || checkReduce(op, mapOf(dt).Basic()) != nil {
		return 0, false
	}
	return shmemOp(op, mapOf(dt).Basic())
}

// devReduce runs Allreduce (root < 0) or Reduce on a device World; done
// reports whether it did (else the host path runs, with host buffers).
func devReduce[T Elem](c *Comm, sbuf, rbuf []T, count int, dt Datatype, op Op, root int) (bool, error) {
	e := c.env
	sop, ok := c.reduceEligible(dt, op)
	sdev, rdev := devAddr(e, sbuf), devAddr(e, rbuf)
	if !ok {
		if sdev == 0 && rdev == 0 {
			return false, nil
		}
		return true, viaHost(c, sbuf, rbuf, sdev, rdev, count, dt, func(s, r []T) error {
			if root < 0 {
				return Allreduce(c, s, r, count, dt, op)
			}
			return Reduce(c, s, r, count, dt, op, root)
		})
	}
	recv := root < 0 || c.rank == root
	var rb []byte
	if recv {
		var err error
		if rb, _, err = view(rbuf, count, dt, "reduction receive"); err != nil {
			return true, err
		}
	}
	src, srcDev := sbuf, sdev
	if isInPlace(sbuf) {
		if !recv {
			return true, errorf(ClassBuffer, "Reduce: InPlace is only for the root's send buffer")
		}
		src, srcDev = rbuf, rdev
	}
	sb, size, err := srcView(src, count, dt, "reduction send")
	if err != nil {
		return true, err
	}
	if err := e.afterCaller(sdev, rdev); err != nil {
		return true, err
	}
	in, out := spanOf(sb, srcDev, size), dspan{}
	if recv {
		out = spanOf(rb, rdev, size)
	}
	b := mapOf(dt).Basic()
	var direct func() error
	if syms, ok := e.devSyms(size, out, in); ok && root < 0 {
		direct = func() error {
			return c.teamRun(func() error { return reduceSyms(c.coll.team, sop, b, syms[0], syms[1], size/b.Size()) })
		}
	}
	return true, staged(direct, func() (int, error) { return c.devAllreduce(in, out, size, b, sop) })
}

// devAllreduce reduces in into out (none: only take part) through the
// scratch, in pieces of its size, and returns how many team calls it made.
func (c *Comm) devAllreduce(in, out dspan, size int, b Basic, op shmem.ReduceOp) (int, error) {
	e := c.env
	esz := b.Size()
	piece := e.scratch.Len() / esz * esz
	calls := 0
	for off := 0; off < size; off += piece {
		n := min(piece, size-off)
		if err := e.spanIn(0, in, off, n); err != nil {
			return calls, err
		}
		calls++
		if err := c.teamRun(func() error { return c.teamReduce(op, b, 0, 0, n/esz, false) }); err != nil {
			return calls, err
		}
		if err := e.spanOut(out, off, 0, n); err != nil {
			return calls, err
		}
	}
	return calls, e.devDone()
}

// reduceSyms runs the team's all-reduce of n elements of b from src into
// dst, symmetric objects of the device heap.
func reduceSyms(t *shmem.Team, op shmem.ReduceOp, b Basic, dst, src shmem.Sym[byte], n int) error {
	switch b {
	case BasicInt8:
		return reduceSymAs[int8](t, op, dst, src, n)
	case BasicInt16:
		return reduceSymAs[int16](t, op, dst, src, n)
	case BasicInt32:
		return reduceSymAs[int32](t, op, dst, src, n)
	case BasicInt64:
		return reduceSymAs[int64](t, op, dst, src, n)
	case BasicUint8, BasicByte:
		return reduceSymAs[uint8](t, op, dst, src, n)
	case BasicUint16:
		return reduceSymAs[uint16](t, op, dst, src, n)
	case BasicUint32:
		return reduceSymAs[uint32](t, op, dst, src, n)
	case BasicUint64:
		return reduceSymAs[uint64](t, op, dst, src, n)
	case BasicFloat32:
		return reduceSymAs[float32](t, op, dst, src, n)
	default:
		return reduceSymAs[float64](t, op, dst, src, n)
	}
}

func reduceSymAs[T shmem.Reducible](t *shmem.Team, op shmem.ReduceOp, dst, src shmem.Sym[byte], n int) error {
	d, err := shmem.View[T](dst)
	if err != nil {
		return err
	}
	s, err := shmem.View[T](src)
	if err != nil {
		return err
	}
	return shmem.Reduce(t, op, d, s, n)
}

// viaHost runs f, a collective's host path, on host copies of the device
// buffers among sbuf and rbuf (count instances of dt: their whole span),
// and copies rbuf's back.
func viaHost[T Elem](c *Comm, sbuf, rbuf []T, sdev, rdev uintptr, count int, dt Datatype, f func(s, r []T) error) error {
	w := c.env.w
	if err := c.env.afterCaller(sdev, rdev); err != nil {
		return err
	}
	hostCopy := func(b []T, dev uintptr, what string) ([]T, error) {
		if dev == 0 {
			return b, nil
		}
		bytes, _, err := view(b, count, dt, what)
		if err != nil {
			return nil, err
		}
		h := make([]T, len(b))
		if err := w.CopyDeviceToHost(asBytes(h)[:len(bytes)], dev); err != nil {
			return nil, wrap(err, "%s: copying a device buffer to the host", what)
		}
		return h, nil
	}
	s, err := hostCopy(sbuf, sdev, "send")
	if err != nil {
		return err
	}
	r, err := hostCopy(rbuf, rdev, "receive")
	if err != nil {
		return err
	}
	if err := f(s, r); err != nil {
		return err
	}
	if rdev == 0 {
		return nil
	}
	return wrap(w.CopyHostToDevice(rdev, asBytes(r)), "copying a result to a device buffer")
}

// asBytes is b's memory as bytes.
func asBytes[T Elem](b []T) []byte {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(b))), len(b)*int(unsafe.Sizeof(b[0])))
}
