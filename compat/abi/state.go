package main

import (
	"unsafe"

	"github.com/gshmem/gshmem/compat/internal/p2pstate"
)

// Go's view of state.h (abi_p2p and abi_p2p_peer are compat's
// p2pstate.Engine and p2pstate.Peer): every struct Go publishes for the C hot paths,
// field for field. Go writes the C structs (malloc'd, or the C global
// abi_global) through these types; TestStateLayout checks each field's
// offset and size against the C compiler's (the c tag names the C field).
// Change state.h and this file together.

// objHeader is abi_obj, the head of every user handle's struct.
type objHeader struct {
	Magic uint32 `c:"magic"`
	Kind  uint32 `c:"kind"`
	ID    int32  `c:"id"`
	Pad   int32  `c:"pad"`
}

// commState is abi_comm.
type commState struct {
	Hdr        objHeader        `c:"hdr"`
	Rank       int32            `c:"rank"`
	Size       int32            `c:"size"`
	Errhandler uintptr          `c:"errhandler"`
	P2P        *p2pstate.Engine `c:"p2p"`
	PEs        *int32           `c:"pes"`
	Ranks      *int32           `c:"ranks"`
	Ctx        uint32           `c:"ctx"`
	Pad        int32            `c:"pad"`
}

// winState is abi_win.
type winState struct {
	Hdr        objHeader `c:"hdr"`
	Errhandler uintptr   `c:"errhandler"`
	Base       uintptr   `c:"base"`
	Size       int       `c:"size"`
	DispUnit   int32     `c:"disp_unit"`
	Flavor     int32     `c:"flavor"`
	Model      int32     `c:"model"`
	Pad        int32     `c:"pad"`
	N          int32     `c:"n"`
	Me         int32     `c:"me"`
	Fast       int64     `c:"fast"`
	Epoch      uintptr   `c:"epoch"`
	Targets    uintptr   `c:"targets"`
}

// targetState is abi_target.
type targetState struct {
	Data   uintptr `c:"data"`
	Size   int64   `c:"size"`
	Unit   int64   `c:"unit"`
	Lock   uintptr `c:"lock"`
	Bell   uintptr `c:"bell"`
	Mapped int64   `c:"mapped"`
	Table  uintptr `c:"table"`
	DGen   uint64  `c:"dgen"`
	DLo    uint64  `c:"dlo"`
	DN     uint64  `c:"dn"`
}

// epochState is abi_epoch (windows' epoch header).
type epochState struct {
	LockAll uint8 `c:"lock_all"`
	Fence   uint8 `c:"fence"`
	InStart uint8 `c:"in_start"`
	Pad     uint8 `c:"pad"`
	Nlocks  int32 `c:"nlocks"`
}

// globalState is abi_state, the one abi_global.
type globalState struct {
	Initialized int32      `c:"initialized"`
	Finalized   int32      `c:"finalized"`
	ThreadLevel int32      `c:"thread_level"`
	LastUsed    int32      `c:"last_used_code"`
	CommWorld   *commState `c:"comm_world"`
	CommSelf    *commState `c:"comm_self"`
	Aborted     int32      `c:"aborted"`
	Pad         int32      `c:"pad"`
	Down        *uint32    `c:"down"`
}

// The handle of a communicator or window is the address of its state.
func (s *commState) handle() uintptr { return uintptr(unsafe.Pointer(s)) }
func (s *winState) handle() uintptr  { return uintptr(unsafe.Pointer(s)) }

// shmObj is abi_shm_obj.
type shmObj struct {
	Off  uint64 `c:"off"`
	Size uint64 `c:"size"`
}

// shmState is abi_shmem, the one abi_shm.
type shmState struct {
	Initialized int32   `c:"initialized"`
	MyPE        int32   `c:"my_pe"`
	NPEs        int32   `c:"n_pes"`
	Aborted     int32   `c:"aborted"`
	Base        uintptr `c:"base"`
	Peers       uintptr `c:"peers"`
	Bells       uintptr `c:"bells"`
	Seq         uint64  `c:"seq"`
	Objs        uintptr `c:"objs"`
	NObjs       int64   `c:"nobjs"`
	Pending     int64   `c:"pending"`
	Spin        int64   `c:"spin"`
	Sync        uintptr `c:"sync"`
}
