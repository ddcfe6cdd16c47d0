//go:build cuda

package shmem

import (
	"os"
	"sync"

	"github.com/gshmem/gshmem/internal/cudadrv"
	"github.com/gshmem/gshmem/internal/memkind"
)

// memKinds is the process's memory kinds (internal/memkind): every
// World.IsDeviceMemory of a device World asks it, so a buffer used again
// costs a lookup instead of a driver call.
var memKinds = memkind.New(driverKinds{}, memkind.TTL)

type driverKinds struct{}

func (driverKinds) Probe(p uintptr) memkind.Info {
	i := cudadrv.PointerInfo(p)
	return memkind.Info{Device: i.Type == cudadrv.MemoryDevice, Base: i.Base, Size: i.Size, ID: i.ID}
}

// ForgetDeviceMemory drops what is known of [base, base+n): memory the
// caller has just freed (MPI_Free_mem of device memory).
func ForgetDeviceMemory(base uintptr, n int) {
	if n > 0 {
		memKinds.Forget(base, uintptr(n))
	}
}

// DeviceProbes returns how many times the process asked the driver what
// an address is (a figure for tests and measurements).
func DeviceProbes() uint64 { return memKinds.Probes() }

// exported is the IPC handles of this process's allocations by buffer id
// (nil: the driver refused one, e.g. VMM or memory-pool memory).
var exported = struct {
	sync.Mutex
	h map[uint64]*[IPCHandleSize]byte
}{h: map[uint64]*[IPCHandleSize]byte{}}

const maxExported = 4096

// ExportDevice returns the export of the live device allocation holding
// [p, p+n) and p's offset in it. ok is false when p is not device memory
// of a device World, when the range is not inside one allocation, or when
// the driver cannot export it (the caller then takes another path).
func (w *World) ExportDevice(p uintptr, n int) (x DeviceExport, off uint64, ok bool) {
	if w == nil || w.dev == nil || n <= 0 {
		return x, 0, false
	}
	i := memKinds.Confirm(p)
	if !i.Device || !i.Contains(p, uintptr(n)) || i.ID == 0 {
		return x, 0, false
	}
	exported.Lock()
	h, seen := exported.h[i.ID]
	exported.Unlock()
	if !seen {
		ctx := cudadrv.ContextFromUintptr(w.dev.context())
		if b, err := ctx.IPCGetHandle(cudadrv.DevPtr(i.Base)); err == nil && len(b) == IPCHandleSize {
			h = new([IPCHandleSize]byte)
			copy(h[:], b)
		} else {
			w.log.Debugf("no CUDA IPC handle for the allocation at %#x (%d bytes): %v", i.Base, i.Size, err)
		}
		exported.Lock()
		if len(exported.h) >= maxExported {
			clear(exported.h)
		}
		exported.h[i.ID] = h
		exported.Unlock()
	}
	if h == nil {
		return x, 0, false
	}
	return DeviceExport{Handle: *h, Base: uint64(i.Base), Size: uint64(i.Size), ID: i.ID, PID: uint64(os.Getpid())}, uint64(p - i.Base), true
}

// imported is one mapping of a peer's allocation in this process.
type imported struct {
	x     DeviceExport
	addr  uintptr
	ctx   uintptr
	users map[*World]bool
	busy  int  // ImportDevice calls whose done has not run
	stale bool // replaced: closed when no longer busy
}

type ownerKey struct{ pid, base uint64 }

// imports is the process's mappings, by handle, and by exporter and base
// (which finds the mapping a new allocation replaces).
var imports = struct {
	sync.Mutex
	byHandle map[[IPCHandleSize]byte]*imported
	byOwner  map[ownerKey]*imported
}{byHandle: map[[IPCHandleSize]byte]*imported{}, byOwner: map[ownerKey]*imported{}}

const maxImports = 256

// ImportDevice maps x's allocation here (once per process) and returns its
// base as mapped here; done must be called when the caller's copies from it
// are complete. A mapping of an earlier allocation of the same exporter at
// the same base is closed: that allocation was freed.
func (w *World) ImportDevice(x DeviceExport) (uintptr, func(), error) {
	if w == nil || w.dev == nil {
		return 0, nil, errf(ErrUnsupported, "the symmetric heap is host memory")
	}
	imports.Lock()
	defer imports.Unlock()
	m := imports.byHandle[x.Handle]
	if m == nil || m.x != x {
		if m != nil { // the same handle, other bounds: trust neither
			dropImport(m)
		}
		if old := imports.byOwner[ownerKey{x.PID, x.Base}]; old != nil {
			dropImport(old)
		}
		if len(imports.byHandle) >= maxImports {
			for _, o := range imports.byHandle {
				if o.busy == 0 {
					dropImport(o)
				}
			}
		}
		ctx := cudadrv.ContextFromUintptr(w.dev.context())
		p, err := ctx.IPCOpen(x.Handle[:])
		if err != nil {
			return 0, nil, errf(ErrUnsupported, "mapping a peer's device buffer by CUDA IPC: %v", err)
		}
		m = &imported{x: x, addr: uintptr(p), ctx: w.dev.context(), users: map[*World]bool{}}
		imports.byHandle[x.Handle] = m
		imports.byOwner[ownerKey{x.PID, x.Base}] = m
	}
	m.users[w] = true
	m.busy++
	return m.addr, func() {
		imports.Lock()
		defer imports.Unlock()
		m.busy--
		if m.stale && m.busy == 0 {
			closeImport(m)
		}
	}, nil
}

// ReleaseDeviceImports tells the process that w maps no more: the mappings
// no other World uses are closed. compat calls it when its Env is freed,
// before the World finalizes.
func (w *World) ReleaseDeviceImports() {
	imports.Lock()
	defer imports.Unlock()
	for _, m := range imports.byHandle {
		delete(m.users, w)
		if len(m.users) == 0 && m.busy == 0 {
			dropImport(m)
		}
	}
}

// dropImport forgets m and closes it unless a copy still reads it.
// Called with imports held.
func dropImport(m *imported) {
	if imports.byHandle[m.x.Handle] == m {
		delete(imports.byHandle, m.x.Handle)
	}
	k := ownerKey{m.x.PID, m.x.Base}
	if imports.byOwner[k] == m {
		delete(imports.byOwner, k)
	}
	m.stale = true
	if m.busy == 0 {
		closeImport(m)
	}
}

func closeImport(m *imported) {
	if m.addr == 0 {
		return
	}
	_ = cudadrv.ContextFromUintptr(m.ctx).IPCClose(cudadrv.DevPtr(m.addr))
	m.addr = 0
}
