package shmem

import (
	"encoding/binary"
	"reflect"
)

// Team collectives on device heaps. When the heap is GPU memory and every
// member's heap is mapped in this PE's context (CUDA IPC, the same pointer
// for a PE of this process, peer access), the collectives run as kernels
// that read the peers' heaps directly (the cuda backend's coll.cuh): the
// host only checks the arguments (the entry barrier every collective
// starts with) and launches them on the PE's stream. The on-stream forms
// below launch them on the caller's stream and do not wait at all.
//
// The kernels synchronize through counters in the device copy of the
// team's slot (device memory below the first allocatable offset, unused
// otherwise), zeroed when the heap is made and when a team is destroyed.
// The host counts the team's device barriers (devEpoch); every member
// counts the same, as long as every member issues the team's device
// collectives in the same order.

// devTeam is a team as the device collectives see it.
type devTeam struct {
	members []int
	me      int
	syncOff uint64
	epoch   *uint64
	handle  uintptr // the descriptor for kernels, once written (0 before)
}

// The device copy of a team's slot: the counters of the collectives the
// host launches (one word per member, from 0), then those of the kernels'
// block-scoped collectives (gshmem.cuh's GSHMEMI_TEAM_*), this PE's counts
// of the latter, the team's descriptor, which DeviceHandle points to, and
// the landing slots of the kernels' one-round reductions.
const (
	devTeamCtr   = 512
	devTeamEpoch = 1024
	devTeamDesc  = 1088
	devTeamArea  = 4096 // what a team's destruction zeroes
	devTeamMagic = 0x6d61657467736867
)

// devTeamBytes is what a team of np members takes in the device copy of
// its slot (at most 64 members: 8 bytes each below devTeamCtr).
func devTeamBytes(int) uint64 { return devTeamArea }

// onDevice reports whether t's collectives run as kernels.
func (t *Team) onDevice() bool {
	if t.w.dev == nil {
		return false
	}
	if t.devOK == 0 {
		t.devOK = 2
		if t.w.dev.collReachable(t.members) && devTeamBytes(len(t.members)) <= t.w.teams.slotSize {
			t.devOK = 1
		}
	}
	return t.devOK == 1
}

func (t *Team) devTeam() devTeam {
	return devTeam{members: t.members, me: t.me, syncOff: t.slotOff, epoch: &t.devEpoch, handle: t.devHandle}
}

// blocking runs launch on the PE's stream and waits for it.
func (t *Team) blocking(launch func(s uintptr) error) error {
	s := t.w.dev.stream()
	if err := launch(s); err != nil {
		return err
	}
	return t.w.dev.syncStream(s)
}

// pullDevice runs a gathering collective's pieces on stream s, and waits
// for them when wait is set.
func (t *Team) pullDevice(s uintptr, ps []piece, wait bool) error {
	if err := t.w.dev.collPull(s, t.devTeam(), ps); err != nil {
		return err
	}
	if wait {
		return t.w.dev.syncStream(s)
	}
	return nil
}

// reduceDevice is Reduce on a team whose collectives run as kernels.
func reduceDevice[T Reducible](t *Team, op ReduceOp, dst, src Sym[T], n int) error {
	d, lerr := reduceDesc(t, op, dst, src, n)
	t.open()
	if err := t.agree(&d, lerr); err != nil {
		return err
	}
	if n == 0 || elemSize[T]() == 0 {
		return nil
	}
	// The smallest reductions go through the team's descriptor (one
	// round); it is written once, here, on every member alike.
	if _, err := t.DeviceHandle(); err != nil {
		return err
	}
	return t.blocking(func(s uintptr) error {
		return t.w.dev.collReduce(s, t.devTeam(), devType[T](), int(op), devSize[T](), dst.off, src.off, devCount[T](n), false)
	})
}

// devType is T's element type code for the reduction kernels.
func devType[T Reducible]() int {
	sz := elemSize[T]()
	lg := map[uint64]int{1: 0, 2: 1, 4: 2, 8: 3}[sz]
	switch reflect.TypeFor[T]().Kind() {
	case reflect.Float32, reflect.Complex64:
		return devF32
	case reflect.Float64, reflect.Complex128:
		return devF64
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return devU8 + lg
	}
	return devI8 + lg
}

// isComplex reports whether T is a complex type.
func isComplex[T any]() bool {
	k := reflect.TypeFor[T]().Kind()
	return k == reflect.Complex64 || k == reflect.Complex128
}

// The reduction kernels fold scalars element by element. A complex sum is
// that, on the real and imaginary parts as floats: a complex object of n
// elements goes to the kernels as 2n floats. A complex product mixes the
// parts and has no kernel: checkDevOp refuses it.

// devSize is the size of the elements the kernels fold for T.
func devSize[T any]() uint64 {
	if isComplex[T]() {
		return elemSize[T]() / 2
	}
	return elemSize[T]()
}

// devCount is the number of kernel elements n elements of T make.
func devCount[T any](n int) int {
	if isComplex[T]() {
		return 2 * n
	}
	return n
}

// checkDevOp refuses a reduction the kernels cannot do: a complex product
// on a device heap.
func checkDevOp[T any](op ReduceOp) error {
	if isFloat2[T]() {
		return errf(ErrUnsupported, "%s reduction of %v on a device heap: the reduction kernels have no 2-byte float", op, reflect.TypeFor[T]())
	}
	if op == ReduceProd && isComplex[T]() {
		return errf(ErrUnsupported, "prod reduction of %v on a device heap: the reduction kernels fold scalars, and a complex product is not one", reflect.TypeFor[T]())
	}
	return nil
}

// The reduction kernels' type codes (cuda.TypeI8...).
const (
	devI8  = 0
	devU8  = 4
	devF32 = 8
	devF64 = 9
)

func alltoallPieces(t *Team, dstOff, srcOff, blk uint64) []piece {
	np := len(t.members)
	ps := make([]piece, 0, np)
	for i := 1; i <= np; i++ {
		p := (t.me + i) % np
		ps = append(ps, piece{p, srcOff + uint64(t.me)*blk, dstOff + uint64(p)*blk, blk})
	}
	return ps
}

// DeviceHandle returns the team's handle for kernels (gshmem_team_t in
// kernels/cuda/gshmem.cuh): the device address, in this PE's heap, of the
// team's descriptor, which the block-scoped collectives
// (gshmemx_<type>_<op>_reduce_block, gshmemx_broadcastmem_block, ...,
// gshmemx_barrier_block) take. It is valid until the team is destroyed. It
// fails with ErrUnsupported unless the heap is device memory mapping every
// member's heap here. The first call writes the descriptor on the PE's
// stream: make it before launching kernels that wait for this PE (a copy
// queued behind a kernel waiting for this PE's would never run).
func (t *Team) DeviceHandle() (uintptr, error) {
	if err := t.usable(); err != nil {
		return 0, err
	}
	if !t.onDevice() {
		return 0, errf(ErrUnsupported, "kernels reach %s only on a device heap that maps every member's heap", t)
	}
	if t.devHandle == 0 {
		b := make([]byte, 24+4*64)
		binary.LittleEndian.PutUint64(b, devTeamMagic)
		binary.LittleEndian.PutUint32(b[8:], uint32(len(t.members)))
		binary.LittleEndian.PutUint32(b[12:], uint32(t.me))
		if !t.w.dev.collSameGPU(t.members) {
			binary.LittleEndian.PutUint32(b[16:], 1)
		}
		for i, pe := range t.members {
			binary.LittleEndian.PutUint32(b[24+4*i:], uint32(pe))
		}
		if err := t.w.dev.writeLocal(t.slotOff+devTeamDesc, b); err != nil {
			return 0, err
		}
		t.devHandle = t.w.dev.base(t.w.pe) + uintptr(t.slotOff+devTeamDesc)
	}
	return t.devHandle, nil
}

// clearDevice zeroes the team's device counters for the next team of its
// slot (Destroy, once no member uses the team).
func (t *Team) clearDevice() error {
	if t.w.dev == nil {
		return nil
	}
	return t.w.dev.clear(t.slotOff, devTeamBytes(len(t.members)))
}
