package compat

import (
	"unsafe"

	"github.com/gshmem/gshmem/internal/devcopy"
	"github.com/gshmem/gshmem/shmem"
)

// Point-to-point on device buffers (a CUDA-aware MPI's Send and Recv), on
// a World whose heap is GPU memory. A buffer is device memory when the
// driver says so (shmem.World.IsDeviceMemory, which remembers the answer
// per allocation and per host page: internal/memkind says how it stays
// right after frees); the mailboxes stay in the heap's host area, so what
// crosses them is host bytes, and everything larger moves between device
// memories by the copy engine. Which case takes which path:
//
//   - eager (up to the eager limit, 8 KiB by default), any device buffer,
//     within a process or between processes: the sender copies its device
//     bytes to the host through a pinned bounce buffer (one synchronous
//     cuMemcpyDtoH on the legacy default stream) and sends them as any
//     eager message; the receiver copies the ring's payload into a pinned
//     bounce and from there into its device buffer (one cuMemcpyHtoD on
//     the PE's stream). Small messages cost one copy each way, never a
//     loop over device memory (internal/devcopy).
//   - rendezvous from a device buffer inside the symmetric heap
//     (gshmem_malloc, a device window, shmem.Alloc): the receiver copies
//     it from the sender's heap, mapped by CUDA IPC, straight into its
//     own buffer: device to device, one copy (modeDevHeap).
//   - rendezvous from any other device buffer (cudaMalloc) to a PE of the
//     same process: the PEs share a CUDA context, so the receiver copies
//     from the sender's address, device to device (modeProc).
//   - rendezvous from any other device buffer between processes: the
//     sender exports the allocation holding it by CUDA IPC and the
//     receiver, which maps it once per allocation, copies the message in
//     one device-to-device copy (modeDevIPC, p2p_ipc.go). Where the
//     allocation cannot be exported (cuIpcGetMemHandle fails: VMM or
//     memory-pool memory) or the receiver cannot map it (another GPU
//     without peer access), the sender copies chunks into a device staging
//     area in its symmetric heap (devStage, the size of the host staging
//     area) and the receiver copies each from there, mapped by IPC: device
//     to device, two copies per chunk, never through the host.
//   - rendezvous from host memory into a device buffer: the receiver
//     copies the host bytes (the sender's pool, registered buffer or host
//     staging chunk, mapped) to its device buffer, HtoD.
//   - a non-contiguous datatype over device memory: the buffer's extent is
//     copied to the host, packed or unpacked there and copied back; and
//     Sendrecv_replace on a device buffer sends from a host snapshot. These
//     are the cases that cross the host.
//
// Host buffers in a device job take the host paths; telling them apart
// costs a cache lookup once the page has been seen, not a driver call. A
// World whose heap is host memory never asks (Env.dev is false).
//
// Ordering: a send's copies out of the caller's buffer run in the send
// call on the legacy default stream, after the work the caller queued
// there (a kernel that wrote the buffer); the sender of a rendezvous waits
// for that work and for the PE's stream before it announces the message,
// as MPI's buffer rules promise the receiver. A receive into device
// memory orders the PE's stream after the caller's default-stream work
// when it is posted, and every copy into its buffer runs on that stream,
// whenever the message arrives: work the caller queues after posting (an
// overlapping kernel) does not hold the copy back. Every copy into a
// receive buffer is complete when the receive completes.

// devRecv is what a receive into device memory needs beyond a host one.
type devRecv struct {
	dev bool         // the receive buffer itself is device memory
	fin func() error // run after unpack: the host copy's way back
}

// devAddrOf returns the address of b when it is device memory, else 0.
func (e *Env) devAddrOf(b []byte) uintptr {
	if !e.dev || len(b) == 0 {
		return 0
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if e.w.IsDeviceMemory(p) {
		return p
	}
	return 0
}

func addrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }

// toHost returns a host copy of device bytes b, after the caller's
// default-stream work.
func (e *Env) toHost(b []byte) ([]byte, error) {
	out := make([]byte, len(b))
	return out, wrap(devcopy.ToHostAfterCaller(e.w, out, addrOf(b)), "copying a device buffer to the host")
}

// deviceSend returns what a send from b sends when b is device memory:
// host bytes for an eager message or a non-contiguous datatype, b's own
// bytes with dev set for a rendezvous. data is nil when b is host memory.
func (e *Env) deviceSend(b []byte, size, count int, dt Datatype) (data []byte, dev bool, err error) {
	addr := e.devAddrOf(b)
	if addr == 0 || size == 0 {
		return nil, false, nil
	}
	d := mapOf(dt)
	if !d.Contiguous() {
		host, err := e.toHost(b)
		if err != nil {
			return nil, false, err
		}
		out := make([]byte, size)
		d.Pack(out, host, count)
		return out, false, nil
	}
	if size <= e.cfg.eagerLimit {
		data, err = e.toHost(b[:size])
		return data, false, err
	}
	// A peer reads these bytes from the device: they must be final, after
	// the caller's default-stream work and the PE's own device work.
	if err := devcopy.SyncCaller(e.w); err != nil {
		return nil, false, wrap(err, "waiting for the default stream")
	}
	return b[:size:size], true, wrap(devcopy.Sync(e.w), "waiting for the PE's stream")
}

// deviceRecv returns where a receive into b puts its bytes when b is
// device memory: b itself, or for a non-contiguous datatype a host copy
// of b's extent that fin copies back. dst is nil when b is host memory.
func (e *Env) deviceRecv(b []byte, size, count int, dt Datatype) (dst []byte, unpack func([]byte), dr devRecv, err error) {
	addr := e.devAddrOf(b)
	if addr == 0 || size == 0 {
		return nil, nil, dr, nil
	}
	d := mapOf(dt)
	if d.Contiguous() {
		// The copies into b run on the PE's stream after the work the
		// caller queued on the default stream before this call (a kernel
		// still reading b's old bytes), and not after what it queues
		// later (a kernel that overlaps an Irecv).
		if err := e.afterCaller(addr); err != nil {
			return nil, nil, dr, err
		}
		return b[:size:size], nil, devRecv{dev: true}, nil
	}
	host, err := e.toHost(b) // the gaps between the elements keep their bytes
	if err != nil {
		return nil, nil, dr, err
	}
	dst, unpack = recvBuffer(host, size, count, d)
	return dst, unpack, devRecv{fin: func() error { return devcopy.FromHost(e.w, addr, host) }}, nil
}

// fillDev copies host bytes src into r's device buffer at byte at and
// returns the count.
func (e *Env) fillDev(r *Request, at int, src []byte) int {
	n := min(len(src), len(r.buf)-at)
	if n <= 0 {
		return 0
	}
	if err := devcopy.FromHost(e.w, addrOf(r.buf)+uintptr(at), src[:n]); err != nil && r.err == nil {
		r.err = wrap(err, "copying a message into a device buffer")
	}
	return n
}

// ringIntoDevice is ringCopy into r's device buffer.
func (e *Env) ringIntoDevice(r *Request, ring []byte, off, plen int) int {
	n := min(len(r.buf), plen)
	k := e.fillDev(r, 0, ring[off+hdrSize:min(off+hdrSize+n, len(ring))])
	if k < n {
		e.fillDev(r, k, ring[:n-k])
	}
	return n
}

// getIntoDevice copies bytes [0, hi-at) of src on PE p, host memory, into
// r's device buffer at at.
func (e *Env) getIntoDevice(r *Request, at int, src shmem.Sym[byte], p int) error {
	if m := shmem.Ptr(src, p); m != nil {
		e.fillDev(r, at, m)
		return nil
	}
	tmp := make([]byte, src.Len())
	if err := shmem.Get(tmp, src, p); err != nil {
		return err
	}
	e.fillDev(r, at, tmp)
	return nil
}

// fromDeviceAddr copies n bytes at device address src (this process's
// view) into r's buffer at at, device to device or to the host.
func (e *Env) fromDeviceAddr(r *Request, at int, src uintptr, n int) error {
	if n <= 0 {
		return nil
	}
	if r.devBuf {
		return devcopy.Copy(e.w, addrOf(r.buf)+uintptr(at), src, n)
	}
	return e.w.CopyDeviceToHost(r.buf[at:at+n], src)
}

// peerHeap returns PE p's device heap as mapped here.
func (e *Env) peerHeap(p int) (uintptr, error) {
	d, err := e.w.Device()
	if err != nil {
		return 0, err
	}
	b := d.HeapBase(p)
	if b == 0 {
		return 0, errorf(ClassOther, "PE %d's GPU memory is not mapped here", p)
	}
	return b, nil
}

// devRef is a device buffer in the in-process rendezvous registry.
type devRef struct {
	addr uintptr
	n    int
}

// devRendezvous picks where the receiver of device data r.data finds it.
func (e *Env) devRendezvous(r *Request, p int) (mode, loc uint64) {
	if s, ok := shmem.DeviceSym(e.w, addrOf(r.data), len(r.data)); ok {
		return modeDevHeap, uint64(s.Offset())
	}
	if e.peers[p].sameProc {
		r.regID = registryID.Add(1)
		registry.Store(r.regID, devRef{addrOf(r.data), len(r.data)})
		return modeProc, r.regID
	}
	// The receiver may turn an IPC rendezvous into a staged one (its CTS)
	// when it cannot map the buffer.
	r.devStg = e.devStage.Len() > 0
	if loc, ok := e.exportIPC(r); ok {
		return modeDevIPC, loc
	}
	return modeStaged, 0
}

// recvDevHeap takes a rendezvous from PE p's device heap at offset off.
func (e *Env) recvDevHeap(r *Request, p int, off uint64, n int) error {
	base, err := e.peerHeap(p)
	if err != nil {
		return err
	}
	return e.fromDeviceAddr(r, 0, base+uintptr(off), n)
}

// recvRegistered takes an in-process rendezvous of n bytes from v, a
// registry entry: host bytes or a devRef.
func (e *Env) recvRegistered(r *Request, v any, n int) error {
	switch v := v.(type) {
	case devRef:
		return e.fromDeviceAddr(r, 0, v.addr, min(n, v.n))
	case []byte:
		e.fillDev(r, 0, v[:n])
	}
	return nil
}

// stageDev copies n bytes of device send r at byte at into device staging
// chunk c and reports whether it did.
func (e *Env) stageDev(r *Request, c, at, n int) bool {
	base, err := e.peerHeap(e.me)
	if err == nil {
		dst := base + uintptr(e.devStage.Offset()) + uintptr(c*e.cfg.chunk)
		err = devcopy.Copy(e.w, dst, addrOf(r.data)+uintptr(at), n)
	}
	if err != nil {
		e.w.Logger().Errorf("compat: staging a device send: %v", err)
		return false
	}
	return true
}

// takeDevChunk copies device staging chunk c of PE p into r at [at, hi).
func (e *Env) takeDevChunk(r *Request, p, c, at, hi int) error {
	base, err := e.peerHeap(p)
	if err != nil {
		return err
	}
	return e.fromDeviceAddr(r, at, base+uintptr(e.devStage.Offset())+uintptr(c*e.cfg.chunk), hi-at)
}

// freeIfAny frees s unless it is the zero Sym (a host World's devStage).
func freeIfAny(s shmem.Sym[byte]) error {
	if s.Len() == 0 {
		return nil
	}
	return shmem.Free(s)
}
