package shmem

import (
	"context"
	"fmt"
	"time"

	"github.com/gshmem/gshmem/internal/settings"
)

// Memory domains of the symmetric heap.
const (
	// HeapHost keeps every PE's heap in host memory (the default).
	HeapHost = "host"
	// HeapDevice puts every PE's heap in the memory of its GPU (CUDA; the
	// binary must be built with -tags cuda).
	HeapDevice = "device"
)

// DeviceOptions chooses where the symmetric heap lives.
type DeviceOptions struct {
	// Heap is HeapHost or HeapDevice (GSHMEM_HEAP; default host).
	Heap string
	// Ordinal is the GPU of this PE (GSHMEM_DEVICE). Negative (the default)
	// picks the PE's node-local rank modulo the number of visible GPUs, so
	// that PEs spread over a node's GPUs and several PEs share one when
	// there are more PEs than GPUs.
	Ordinal int
	// HostArea is how much of a device World's heap stays in host memory
	// for AllocHost (GSHMEM_HOST_AREA; 0, the default, is an eighth of the
	// heap, at most 64m). Unused on a host heap.
	HostArea uint64
}

// WithDevice puts the symmetric heap in GPU memory (GSHMEM_HEAP=device):
// RMA, atomics, waits and barriers work on it through the same calls, and
// kernels reach it through the device library (package kernels). Each PE
// takes the GPU given by GSHMEM_DEVICE, or its node-local rank modulo the
// visible GPUs. Without -tags cuda, Init and Run fail with ErrUnsupported.
func WithDevice() Option { return func(o *Options) { o.Device.Heap = HeapDevice } }

// WithDeviceOrdinal is WithDevice on GPU ord for every PE of this call.
func WithDeviceOrdinal(ord int) Option {
	return func(o *Options) { o.Device.Heap, o.Device.Ordinal = HeapDevice, ord }
}

// WithHostHeap keeps the heap in host memory whatever GSHMEM_HEAP says.
func WithHostHeap() Option { return func(o *Options) { o.Device.Heap = HeapHost } }

// deviceFromEnv reads GSHMEM_HEAP and GSHMEM_DEVICE into o.
func deviceFromEnv(getenv func(string) string, o *Options) error {
	o.Device = DeviceOptions{Heap: HeapHost, Ordinal: -1}
	heap, err := settings.Get("GSHMEM_HEAP").Choice(getenv)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if heap == HeapDevice {
		o.Device.Heap = HeapDevice
	}
	if n, ok, err := settings.Get("GSHMEM_DEVICE").Count(getenv); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	} else if ok {
		o.Device.Ordinal = n
	}
	if n, ok, err := settings.Get("GSHMEM_HOST_AREA").Size(getenv); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	} else if ok {
		o.Device.HostArea = n
	}
	return nil
}

func checkDeviceOptions(o *Options) error {
	switch o.Device.Heap {
	case "":
		o.Device.Heap = HeapHost
	case HeapHost, HeapDevice:
	default:
		return fmt.Errorf("%w: heap domain %q: want %q or %q", ErrInvalid, o.Device.Heap, HeapHost, HeapDevice)
	}
	return nil
}

// deviceDomain is the GPU half of a World whose heap is device memory. Its
// implementation (device_cuda.go) exists only with -tags cuda.
type deviceDomain interface {
	hostLimit() uint64 // offsets below it live in the host heap
	ordinal() int
	context() uintptr
	stream() uintptr
	base(pe int) uintptr
	state() []byte
	load(off uint64, width int) (uint64, error)
	clear(off, n uint64) error
	putDevice(pe int, dstOff, srcOff, n uint64, wait bool) error
	getDevice(pe int, dstOff, srcOff, n uint64, wait bool) error
	putOnStream(s uintptr, pe int, dstOff, srcOff, n uint64) error
	putSignalOnStream(s uintptr, pe int, dstOff, srcOff, n, sigOff, v uint64, add bool) error
	getOnStream(s uintptr, pe int, dstOff, srcOff, n uint64) error
	signalOnStream(s uintptr, pe int, off, v uint64, add bool) error
	waitOnStream(s uintptr, off uint64, cmp Cmp, v uint64) error
	barrierOnStream(s uintptr) error
	forgetStream(s uintptr)

	// Team collectives as kernels (coll_device.go).
	collReachable(members []int) bool
	collSameGPU(members []int) bool
	writeLocal(off uint64, b []byte) error
	collSync(s uintptr, t devTeam) error
	collReduce(s uintptr, t devTeam, typ, op int, sz, dstOff, srcOff uint64, n int, scatter bool) error
	collPull(s uintptr, t devTeam, ps []piece) error
	collBroadcast(s uintptr, t devTeam, root int, dstOff, srcOff, nb uint64) error
	collFCollect(s uintptr, t devTeam, dstOff, srcOff, nb uint64) error
	syncStream(s uintptr) error

	// Device buffers by address (devbuf.go).
	isDevice(p uintptr) bool
	copyAddr(s uintptr, dst, src uintptr, n uint64) error
	copyToHost(dst []byte, src uintptr) error
	copyFromHost(dst uintptr, src []byte) error
	afterLegacy() error
}

// attachDevice moves the World's heap onto its GPU when the options ask
// for it: the transport becomes the cuda transport (the control page stays
// in host memory) and waits poll device memory. Collective.
func (w *World) attachDevice(ctx context.Context) error {
	if w.opts.Device.Heap != HeapDevice {
		return nil
	}
	// What the runtime allocated for itself before now (team slots, with
	// their synchronization words and scratch) stays in the host heap like
	// the control page, and so does the host area AllocHost hands out: the
	// first free offset after them marks where device memory begins. The
	// allocator is deterministic, so every PE finds the same.
	if err := w.reserveHostArea(); err != nil {
		return err
	}
	probe, err := w.alloc.Alloc(64, 64)
	if err != nil {
		return fmt.Errorf("%w: no room for the device heap: %v", ErrHeapExhausted, err)
	}
	if _, err := w.alloc.Free(probe); err != nil {
		return err
	}
	d, tr, err := openDevice(ctx, w, probe)
	if err != nil {
		return err
	}
	w.dev = d
	w.hostTr = w.tr
	w.setTransport(tr)
	// A kernel's store rings no doorbell: poll device memory now and then
	// while asleep, and spin less (each poll is a device read).
	w.waiter.MaxSleep = 200 * time.Microsecond
	w.waiter.Spin = min(w.waiter.Spin, 64)
	w.waiter.Yields = 0
	w.waiter.Adapt = nil
	return nil
}

// loadWord atomically reads the element at byte offset off of this PE's
// heap, wherever the heap lives.
func loadWord[T SyncInteger](w *World, off uint64) T {
	if w.dev == nil || off < w.dev.hostLimit() {
		return loadLocal[T](w.heap, off)
	}
	var z T
	sz := int(elemSize[T]())
	v, err := w.dev.load(off, sz)
	if err != nil {
		w.log.Errorf("reading device word at offset %d: %v", off, err)
		return z
	}
	return fromBits[T](v)
}

// clearHeap zeroes n bytes of this PE's heap at off.
func (w *World) clearHeap(off, n uint64) error {
	if w.dev != nil && !w.inHostArea(off) {
		return w.dev.clear(off, n)
	}
	w.zeroPages(w.heap[off : off+n])
	return nil
}

// HeapOnDevice reports whether the World's symmetric heap is GPU memory.
func (w *World) HeapOnDevice() bool { return w.dev != nil }

// Device is the GPU of a World whose heap is device memory: the handles
// its kernels and streams need. Get it with World.Device.
type Device struct{ w *World }

// Device returns the World's GPU, or ErrUnsupported when the heap is host
// memory.
func (w *World) Device() (*Device, error) {
	if w.dev == nil {
		return nil, errf(ErrUnsupported, "the symmetric heap is host memory (use WithDevice or GSHMEM_HEAP=device)")
	}
	return &Device{w}, nil
}

// World returns the device's World.
func (d *Device) World() *World { return d.w }

// Ordinal returns the GPU's ordinal among the visible GPUs.
func (d *Device) Ordinal() int { return d.w.dev.ordinal() }

// Context returns the PE's CUcontext (the GPU's primary context, shared by
// every PE of the process on that GPU).
func (d *Device) Context() uintptr { return d.w.dev.context() }

// Stream returns the CUstream on which the PE's host-initiated operations
// run in order.
func (d *Device) Stream() uintptr { return d.w.dev.stream() }

// HeapBase returns pe's heap as mapped in this PE's context (0 when pe's
// GPU cannot be reached from here).
func (d *Device) HeapBase(pe int) uintptr {
	if pe < 0 || pe >= d.w.npes {
		return 0
	}
	return d.w.dev.base(pe)
}

// State returns the PE's state table, the bytes the kernel loader writes
// into a module's gshmemi_state (see kernels/cuda/gshmem.cuh).
func (d *Device) State() []byte { return d.w.dev.state() }

// DevicePtr returns the device address of the object's copy on PE pe as
// mapped in this PE's context, for kernels and device libraries
// (nvshmem_ptr on device memory). For pe == MyPE it is the symmetric
// address kernels pass to the gshmem_* device calls.
func DevicePtr[T any](s Sym[T], pe int) (uintptr, error) {
	if _, err := s.remote(pe, 0); err != nil {
		return 0, err
	}
	if s.w.dev == nil {
		return 0, errf(ErrUnsupported, "the symmetric heap is host memory")
	}
	b := s.w.dev.base(pe)
	if b == 0 {
		return 0, errf(ErrUnsupported, "PE %d's GPU is not reachable from PE %d", pe, s.w.pe)
	}
	return b + uintptr(s.off), nil
}

func checkSymPair[T any](dst, src Sym[T], pe int) (uint64, error) {
	n, err := dst.remote(pe, src.Len())
	if err != nil {
		return 0, err
	}
	if _, err := src.remote(src.w.pe, src.Len()); err != nil {
		return 0, err
	}
	if src.w != dst.w {
		return 0, errf(ErrNotSymmetric, "source and destination belong to different worlds")
	}
	return n, nil
}

// PutSym copies this PE's copy of src into dst on PE pe (len(src)
// elements), as shmem_put with a symmetric source: on device memory a
// device-to-device copy that does not pass through the host. It returns
// when src may be reused.
func PutSym[T any](dst, src Sym[T], pe int) error {
	n, err := checkSymPair(dst, src, pe)
	if err != nil {
		return err
	}
	if w := dst.w; w.dev != nil {
		return w.dev.putDevice(pe, dst.off, src.off, n, true)
	}
	return dst.w.tr.Put(pe, dst.off, asBytes(src.Local()))
}

// PutSymNBI starts PutSym: src must not change until Quiet.
func PutSymNBI[T any](dst, src Sym[T], pe int) error {
	n, err := checkSymPair(dst, src, pe)
	if err != nil {
		return err
	}
	if w := dst.w; w.dev != nil {
		return w.dev.putDevice(pe, dst.off, src.off, n, false)
	}
	return dst.w.tr.PutNBI(pe, dst.off, asBytes(src.Local()))
}

// GetSym copies len(dst) elements of src on PE pe into this PE's copy of
// dst and returns when they are there.
func GetSym[T any](dst, src Sym[T], pe int) error {
	n, err := checkSymPair(src, dst, pe)
	if err != nil {
		return err
	}
	if w := dst.w; w.dev != nil {
		return w.dev.getDevice(pe, dst.off, src.off, n, true)
	}
	return dst.w.tr.Get(pe, src.off, asBytes(dst.Local()))
}

// On-stream forms for a World whose heap is device memory: stream is a
// CUstream of the PE's context (Device.Context), and the operation happens
// when the stream reaches it, ordered with the kernels and copies on it.
// The streams package builds its CUDA streams on these.

// PutOnDeviceStream copies this PE's src into dst on pe when stream reaches
// it (an asynchronous device-to-device copy).
func PutOnDeviceStream[T any](stream uintptr, dst, src Sym[T], pe int) error {
	n, err := checkSymPair(dst, src, pe)
	if err != nil {
		return err
	}
	if dst.w.dev == nil {
		return errf(ErrUnsupported, "the symmetric heap is host memory")
	}
	return dst.w.dev.putOnStream(stream, pe, dst.off, src.off, n)
}

// GetOnDeviceStream copies src on pe into this PE's dst when stream
// reaches it.
func GetOnDeviceStream[T any](stream uintptr, dst, src Sym[T], pe int) error {
	n, err := checkSymPair(src, dst, pe)
	if err != nil {
		return err
	}
	if dst.w.dev == nil {
		return errf(ErrUnsupported, "the symmetric heap is host memory")
	}
	return dst.w.dev.getOnStream(stream, pe, dst.off, src.off, n)
}

// SignalOnDeviceStream updates sig on pe when stream reaches it, after the
// stream's earlier work is visible at pe.
func SignalOnDeviceStream(stream uintptr, sig Sym[uint64], value uint64, op SignalOp, pe int) error {
	if _, err := sig.remote(pe, 1); err != nil {
		return err
	}
	if op > SignalAdd {
		return errf(ErrInvalid, "signal op %d", op)
	}
	if sig.off%8 != 0 {
		return errf(ErrMisaligned, "signal word at offset %d", sig.off)
	}
	if sig.w.dev == nil {
		return errf(ErrUnsupported, "the symmetric heap is host memory")
	}
	return sig.w.dev.signalOnStream(stream, pe, sig.off, value, op == SignalAdd)
}

// PutSignalOnDeviceStream is PutOnDeviceStream followed by
// SignalOnDeviceStream: a PE that sees the signal sees the data.
func PutSignalOnDeviceStream[T any](stream uintptr, dst, src Sym[T], sig Sym[uint64], value uint64, op SignalOp, pe int) error {
	n, err := checkSymPair(dst, src, pe)
	if err != nil {
		return err
	}
	if err := checkPutSignal(dst, nil, sig, op, pe); err != nil {
		return err
	}
	if sig.off%8 != 0 {
		return errf(ErrMisaligned, "signal word at offset %d", sig.off)
	}
	if dst.w.dev == nil {
		return errf(ErrUnsupported, "the symmetric heap is host memory")
	}
	return dst.w.dev.putSignalOnStream(stream, pe, dst.off, src.off, n, sig.off, value, op == SignalAdd)
}

// WaitUntilOnDeviceStream holds stream until this PE's word ivar satisfies
// "ivar cmp value".
func WaitUntilOnDeviceStream(stream uintptr, ivar Sym[uint64], cmp Cmp, value uint64) error {
	if _, err := ivar.remote(mustPE(ivar), 1); err != nil {
		return err
	}
	if cmp > CmpLE {
		return errf(ErrInvalid, "comparison %d", cmp)
	}
	if ivar.off%8 != 0 {
		return errf(ErrMisaligned, "wait on offset %d", ivar.off)
	}
	if ivar.w.dev == nil {
		return errf(ErrUnsupported, "the symmetric heap is host memory")
	}
	return ivar.w.dev.waitOnStream(stream, ivar.off, cmp, value)
}

// BarrierOnDeviceStream runs a barrier across every PE when stream reaches
// it (collective, in the same order on every PE as its other device
// barriers: those of kernels and of other streams).
func (w *World) BarrierOnDeviceStream(stream uintptr) error {
	if w.closed.Load() {
		return ErrFinalized
	}
	if w.dev == nil {
		return errf(ErrUnsupported, "the symmetric heap is host memory")
	}
	return w.dev.barrierOnStream(stream)
}

// ForgetDeviceStream releases what the World keeps for stream (the graph
// its small copies are launched through). Call it after the stream's last
// on-stream operation and before destroying it: the driver may give its
// handle to a later stream. streams.CUDAStream.Close does.
func (w *World) ForgetDeviceStream(stream uintptr) {
	if w.dev != nil && !w.closed.Load() {
		w.dev.forgetStream(stream)
	}
}
