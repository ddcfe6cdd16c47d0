package compat

import (
	"encoding/binary"

	"github.com/gshmem/gshmem/shmem"
)

// A rendezvous from a device buffer outside the symmetric heap to a PE of
// another process (modeDevIPC): the sender names the allocation that holds
// its buffer by CUDA IPC (shmem.World.ExportDevice) in a descriptor it
// writes into its AllocMem pool, and sends the descriptor's offset; the
// receiver reads the descriptor, maps the allocation once per process
// (shmem.World.ImportDevice, which closes a mapping a new allocation at the
// same address replaces) and copies the message from it into its own
// buffer in one device-to-device copy, then sends FIN. When the receiver
// cannot map it (another GPU without peer access, a driver that refuses)
// it answers with a CTS instead, and the send goes through the device
// staging area as before; when the sender cannot export it (VMM or
// memory-pool allocations: cuIpcGetMemHandle fails) it sends a staged
// rendezvous from the start.

// ipcDescSize is a descriptor: the export and the buffer's offset in it.
const ipcDescSize = shmem.DeviceExportSize + 8

// exportIPC writes the descriptor of device send r into the pool and
// returns its offset, which the send frees when it completes (r.poolOff).
// Called with mu held.
func (e *Env) exportIPC(r *Request) (uint64, bool) {
	if len(e.poolMine) == 0 || r.poolOff >= 0 {
		return 0, false
	}
	x, off, ok := e.w.ExportDevice(addrOf(r.data), len(r.data))
	if !ok {
		return 0, false
	}
	slot, ok := e.poolAlloc.alloc(ipcDescSize)
	if !ok {
		return 0, false
	}
	d := e.poolMine[slot : slot+ipcDescSize]
	x.Marshal(d)
	binary.LittleEndian.PutUint64(d[shmem.DeviceExportSize:], off)
	r.poolOff = slot
	return uint64(slot), true
}

// recvDevIPC takes an IPC rendezvous of n bytes from PE p whose descriptor
// is at loc in p's pool. It reports false, having done nothing, when the
// buffer cannot be mapped here: the caller then asks for a staged send.
func (e *Env) recvDevIPC(r *Request, p int, loc uint64, n int) bool {
	var d [ipcDescSize]byte
	if err := getBytes(d[:], e.pool.Slice(int(loc), int(loc)+ipcDescSize), p); err != nil {
		e.w.Logger().Debugf("compat: reading rank %d's IPC descriptor: %v", p, err)
		return false
	}
	x := shmem.UnmarshalDeviceExport(d[:])
	off := binary.LittleEndian.Uint64(d[shmem.DeviceExportSize:])
	if off > x.Size || uint64(n) > x.Size-off {
		r.err = errorf(ClassOther, "rendezvous from rank %d: a device buffer of %d bytes at offset %d of an allocation of %d", r.comm.rankOf(p), n, off, x.Size)
		return true
	}
	base, done, err := e.w.ImportDevice(x)
	if err != nil {
		e.w.Logger().Debugf("compat: mapping rank %d's device buffer: %v; staged instead", p, err)
		return false
	}
	defer done()
	if err := e.fromDeviceAddr(r, 0, base+uintptr(off), n); err != nil {
		r.err = wrap(err, "rendezvous copy from rank %d's device buffer", r.comm.rankOf(p))
	}
	return true
}
