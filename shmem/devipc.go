package shmem

import "encoding/binary"

// Device buffers between processes by CUDA IPC of the buffer's own
// allocation (cudaMalloc memory, outside the symmetric heap), for a
// CUDA-aware layer's rendezvous: the sender exports the allocation that
// holds its buffer (ExportDevice), the receiver maps it once per
// allocation (ImportDevice) and copies straight from it, device to device.
//
// The exporting side asks the driver for the allocation's bounds and
// BUFFER_ID on every export (one driver call per large message, against a
// copy of at least the eager limit) and keeps the IPC handle per buffer id,
// so a freed range the allocator hands out again is exported anew. The
// importing side keeps one mapping per handle for the whole process (the
// driver maps a handle once per context) and closes the mapping an
// exporter's new allocation at the same base address replaces: two live
// allocations of one process never share a base, so the old one was freed.
// Mappings otherwise stay open until every World that used them releases
// them (ReleaseDeviceImports), or until more than a bound are open, when
// the unused ones are closed.

// IPCHandleSize is the size of a CUDA IPC memory handle.
const IPCHandleSize = 64

// DeviceExport names a device allocation of this process for a peer
// process to map: the CUDA IPC handle of the allocation, its base and
// size in the exporter's address space, the driver's buffer id and the
// exporter's process id (with base, what tells a peer that an allocation
// replaced an earlier one).
type DeviceExport struct {
	Handle [IPCHandleSize]byte
	Base   uint64
	Size   uint64
	ID     uint64
	PID    uint64
}

// DeviceExportSize is the size of a DeviceExport in its wire form.
const DeviceExportSize = IPCHandleSize + 4*8

// Marshal writes x into b (DeviceExportSize bytes).
func (x DeviceExport) Marshal(b []byte) {
	copy(b, x.Handle[:])
	le := binary.LittleEndian
	le.PutUint64(b[IPCHandleSize:], x.Base)
	le.PutUint64(b[IPCHandleSize+8:], x.Size)
	le.PutUint64(b[IPCHandleSize+16:], x.ID)
	le.PutUint64(b[IPCHandleSize+24:], x.PID)
}

// UnmarshalDeviceExport reads what Marshal wrote.
func UnmarshalDeviceExport(b []byte) DeviceExport {
	var x DeviceExport
	copy(x.Handle[:], b)
	le := binary.LittleEndian
	x.Base = le.Uint64(b[IPCHandleSize:])
	x.Size = le.Uint64(b[IPCHandleSize+8:])
	x.ID = le.Uint64(b[IPCHandleSize+16:])
	x.PID = le.Uint64(b[IPCHandleSize+24:])
	return x
}
