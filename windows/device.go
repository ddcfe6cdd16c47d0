package windows

import (
	"slices"
	"unsafe"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/devcopy"
	"github.com/gshmem/gshmem/internal/mpitype"
	"github.com/gshmem/gshmem/shmem"
)

// Windows on a World whose heap is GPU memory (GSHMEM_HEAP=device): the
// RMA stage of a CUDA-aware MPI, in the spirit of NVSHMEM-backed windows.
//
// An allocate window's memory is device memory there (info gshmem_memory=
// device, the default; =host keeps it in the heap's host area, where the C
// ABI's load/store hot paths reach it): a symmetric object that streams and
// kernels target as on a host heap, and Base is a device address. A create
// window over a device buffer keeps its public copy on the GPU too. The
// control words (locks, PSCW counters, stripes) stay in host memory, since
// the host loads and stores them. Shared and dynamic windows need load and
// store access to the memory and are refused on such a World. A window
// over a communicator smaller than the World takes its memory from the
// AllocMem pools, host memory, whatever the key says.
//
// How each operation moves its bytes (origin = the caller's buffer):
//
//	Put/Get, device origin, device target   copy engine, device to device (IPC-mapped peer)
//	Put/Get, host origin, device target     the heap's CUDA transport (HtoD/DtoH, completed by Flush)
//	Put/Get, device origin, host target     DtoH/HtoD between the origin and the mapped host memory
//	Accumulate family, CompareAndSwap,      under the target's stripe locks: the target range read
//	FetchAndOp on device memory             to the host, combined there, written back (no kernel)
//	a device origin or result of an         copied to the host first and back after
//	accumulate
//	Create over device memory               private and public copies reconciled through host copies
//	                                        at each synchronization (the separate model's byte merge)
//
// Accumulates take the host path because their per-element atomicity is
// kept by the stripe locks every accumulate on the window takes; a kernel
// would have to take them too.

// The values of InfoMemory.
const (
	MemoryDevice = "device"
	MemoryHost   = "host"
)

// wantsDevice says whether this PE asks for device memory: an allocate
// window not told gshmem_memory=host, or a create window over device
// memory, on a device World.
func (win *Win) wantsDevice(buf []byte) bool {
	if !win.devWorld {
		return false
	}
	switch win.flavor {
	case FlavorAllocate:
		return win.set.memory != MemoryHost
	case FlavorCreate:
		return win.isDev(buf)
	}
	return false
}

// isDev says whether b is device memory.
func (win *Win) isDev(b []byte) bool {
	return win.devWorld && len(b) > 0 && win.world.IsDeviceMemory(addrOf(b))
}

func addrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }

// devBytes is n bytes at device address p, as a []byte the host never
// reads (what MPI_Win_allocate's baseptr and Base return).
func devBytes(p uintptr, n int) []byte { return unsafe.Slice(*(**byte)(unsafe.Pointer(&p)), n) }

// devAddr returns PE pe's copy of s as mapped in this process when s is
// device memory, else 0. Only device memory has no host view on this PE.
func devAddr(s shmem.Sym[byte], pe int) uintptr {
	w := s.World()
	if w == nil || !w.HeapOnDevice() || s.Len() == 0 || shmem.Ptr(s, w.MyPE()) != nil {
		return 0
	}
	p, err := shmem.DevicePtr(s, pe)
	if err != nil {
		return 0
	}
	return p
}

// setupDevice sets up this PE's part of a window on a device World whose
// memory is device memory, or of a create window there.
func (win *Win) setupDevice(my seg, buf []byte) error {
	m := &win.dataMem[my.pe]
	if m.dev != 0 {
		win.set.memory = MemoryDevice
	} else {
		win.set.memory = MemoryHost
	}
	switch win.flavor {
	case FlavorAllocate:
		// AllocSymmetric's memory is zeroed.
		win.base = devBytes(m.dev+uintptr(my.base), my.size)[:my.size:my.size]
		return nil
	case FlavorCreate:
		win.base = buf
		switch {
		case m.dev != 0:
			win.pubDev = m.dev + uintptr(my.base)
		case m.mapped != nil:
			win.public = m.mapped[my.base : my.base+my.size : my.base+my.size]
		default:
			return errorf(compat.ClassOther, "a create window's public copy has no view on this PE")
		}
		if len(buf) == 0 {
			return nil
		}
		win.shadow = make([]byte, len(buf))
		if err := win.readPrivate(win.shadow); err != nil {
			return wrap(err, "reading the window's buffer")
		}
		return wrap(win.writePublicAt(0, win.shadow), "initializing the window's public copy")
	}
	return errorf(compat.ClassOther, "%v windows on GPU memory", win.flavor)
}

// readPrivate copies the caller's buffer (a create window's private copy)
// into b.
func (win *Win) readPrivate(b []byte) error {
	if win.isDev(win.base) {
		if err := win.world.DeviceAfterDefaultStream(); err != nil {
			return err
		}
		return win.world.CopyDeviceToHost(b, addrOf(win.base))
	}
	copy(b, win.base)
	return nil
}

func (win *Win) readPublic(b []byte) error {
	if win.pubDev != 0 {
		return win.world.CopyDeviceToHost(b, win.pubDev)
	}
	copy(b, win.public)
	return nil
}

// settle completes, on a device World, the device work this process
// queued on the CUDA default stream: a cudaMemcpy into window memory may
// return before its data lands, and MPI makes local stores visible to the
// other PEs at the synchronization calls, which call settle first.
func (win *Win) settle() {
	if !win.devWorld {
		return
	}
	err := win.world.DeviceAfterDefaultStream()
	if err == nil {
		err = devcopy.Sync(win.world)
	}
	if err != nil {
		win.world.Logger().Errorf("windows: waiting for the default stream: %v", err)
	}
}

// reconcileDevice is reconcile for a create window on a device World:
// through host copies of whichever side is device memory. Only the bytes
// reconcile changed are written back, as reconcile itself does on the
// host: the public copy may be receiving peers' puts meanwhile (a push
// comes before the epoch's barrier), and rewriting bytes nobody changed
// would undo them.
func (win *Win) reconcileDevice(push, pull bool) {
	n := len(win.shadow)
	if n == 0 {
		return
	}
	priv, pub := make([]byte, n), make([]byte, n)
	err := win.readPrivate(priv)
	if err == nil {
		err = win.readPublic(pub)
	}
	if err == nil {
		priv0, pub0 := slices.Clone(priv), slices.Clone(pub)
		reconcile(priv, pub, win.shadow, push, pull)
		err = writeRuns(priv0, priv, win.writePrivateAt)
		if err == nil {
			err = writeRuns(pub0, pub, win.writePublicAt)
		}
	}
	if err != nil {
		win.world.Logger().Errorf("windows: reconciling a create window on GPU memory: %v", err)
	}
}

// writeRuns writes, through write, every run of bytes where now differs
// from was.
func writeRuns(was, now []byte, write func(off int, b []byte) error) error {
	for i := 0; i < len(now); {
		if was[i] == now[i] {
			i++
			continue
		}
		j := i + 1
		for j < len(now) && was[j] != now[j] {
			j++
		}
		if err := write(i, now[i:j]); err != nil {
			return err
		}
		i = j
	}
	return nil
}

func (win *Win) writePrivateAt(off int, b []byte) error {
	if win.isDev(win.base) {
		return win.world.CopyHostToDevice(addrOf(win.base)+uintptr(off), b)
	}
	copy(win.base[off:], b)
	return nil
}

func (win *Win) writePublicAt(off int, b []byte) error {
	if win.pubDev != 0 {
		return win.world.CopyHostToDevice(win.pubDev+uintptr(off), b)
	}
	copy(win.public[off:], b)
	m := &win.dataMem[win.segs[win.me].pe]
	if m.mapped != nil {
		m.heap.Wake()
	}
	return nil
}

// onDeviceWorld says whether m's World has a device heap: its reads and
// writes then check for device buffers.
func (m *rmem) onDeviceWorld() bool { return m.dev != 0 || m.sym.World().HeapOnDevice() }

// writeDev is write on a device World: b may be device memory, and m may be.
func (m *rmem) writeDev(off int, b []byte) error {
	w := m.sym.World()
	src := addrOf(b)
	if !w.IsDeviceMemory(src) {
		if m.mapped != nil {
			copy(m.mapped[off:off+len(b)], b)
			m.heap.Wake()
			return nil
		}
		return shmem.Put(m.sym.Slice(off, off+len(b)), b, m.pe)
	}
	// The caller's device bytes must be final before the copy engine reads
	// them: order after the default stream, as compat does.
	if err := w.DeviceAfterDefaultStream(); err != nil {
		return err
	}
	switch {
	case m.dev != 0:
		return devcopy.Copy(w, m.dev+uintptr(off), src, len(b))
	case m.mapped != nil:
		if err := w.CopyDeviceToHost(m.mapped[off:off+len(b)], src); err != nil {
			return err
		}
		m.heap.Wake()
		return nil
	}
	tmp := make([]byte, len(b))
	if err := w.CopyDeviceToHost(tmp, src); err != nil {
		return err
	}
	return shmem.Put(m.sym.Slice(off, off+len(b)), tmp, m.pe)
}

// readDev is read on a device World.
func (m *rmem) readDev(off int, b []byte) error {
	w := m.sym.World()
	dst := addrOf(b)
	if !w.IsDeviceMemory(dst) {
		if m.mapped != nil {
			copy(b, m.mapped[off:off+len(b)])
			return nil
		}
		return shmem.Get(b, m.sym.Slice(off, off+len(b)), m.pe)
	}
	if err := w.DeviceAfterDefaultStream(); err != nil {
		return err
	}
	switch {
	case m.dev != 0:
		return devcopy.Copy(w, dst, m.dev+uintptr(off), len(b))
	case m.mapped != nil:
		return w.CopyHostToDevice(dst, m.mapped[off:off+len(b)])
	}
	tmp := make([]byte, len(b))
	if err := shmem.Get(tmp, m.sym.Slice(off, off+len(b)), m.pe); err != nil {
		return err
	}
	return w.CopyHostToDevice(dst, tmp)
}

// anyDevice says whether any of the buffers is device memory.
func (win *Win) anyDevice(bufs ...[]byte) bool {
	for _, b := range bufs {
		if win.isDev(b) {
			return true
		}
	}
	return false
}

// hostStaged runs f with host copies of src (read first) and res
// (written back after) where they are device memory.
func (win *Win) hostStaged(src, res []byte, f func(src, res []byte) error) error {
	s, r := src, res
	if win.isDev(src) {
		s = make([]byte, len(src))
		if err := win.world.DeviceAfterDefaultStream(); err != nil {
			return err
		}
		if err := win.world.CopyDeviceToHost(s, addrOf(src)); err != nil {
			return wrap(err, "reading a device origin buffer")
		}
	}
	if win.isDev(res) {
		r = make([]byte, len(res))
	}
	if err := f(s, r); err != nil {
		return err
	}
	if win.isDev(res) {
		return wrap(win.world.CopyHostToDevice(addrOf(res), r), "writing a device result buffer")
	}
	return nil
}

// withBuf is x with its buffer replaced by b (nil stays nil).
func withBuf(x *xfer, b []byte) *xfer {
	if x == nil {
		return nil
	}
	y := *x
	y.buf = b
	return &y
}

// devAcc applies an accumulate of elements of type b to [off, off+n) of
// device memory m: every stripe the range touches locked in ascending
// order (so two ranges never wait on each other in a cycle), the range
// read, combined on the host, written back and completed, the stripes
// released. Every accumulate on device memory comes here, so the stripes
// make each element's update atomic with respect to the others.
func (win *Win) devAcc(rank int, m *rmem, off int, b mpitype.Basic, op compat.Op, src, cmp, res []byte) error {
	k := &kinds[b]
	n := max(len(src), len(res))
	if n == 0 {
		return nil
	}
	stripes := make([]int, 0, nStripes)
	seen := [nStripes]bool{}
	for w := off >> 3; w <= (off+n-1)>>3 && len(stripes) < nStripes; w++ {
		if s := w & (nStripes - 1); !seen[s] {
			seen[s] = true
			stripes = append(stripes, s)
		}
	}
	slices.Sort(stripes)
	held := 0
	var err error
	for _, s := range stripes {
		if err = win.stripeLock(rank, s<<3); err != nil {
			break
		}
		held++
	}
	if err == nil {
		cur := make([]byte, n)
		if err = m.readDev(off, cur); err == nil {
			changed := false
			for i := 0; i+k.size <= n; i += k.size {
				e := cur[i : i+k.size]
				if res != nil {
					copy(res[i:i+k.size], e)
				}
				var s []byte
				if src != nil {
					s = src[i : i+k.size]
				}
				if combine(k, op, e, s, cmp) {
					changed = true
				}
			}
			if changed {
				if err = m.writeDev(off, cur); err == nil {
					// Complete before the stripes go: the next holder reads it.
					err = win.world.Quiet()
				}
			}
		}
	}
	for _, s := range stripes[:held] {
		if uerr := win.stripeUnlock(rank, s<<3); err == nil {
			err = uerr
		}
	}
	return err
}
