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
}

// globalState is abi_state, the one abi_global.
type globalState struct {
	Initialized int32      `c:"initialized"`
	Finalized   int32      `c:"finalized"`
	ThreadLevel int32      `c:"thread_level"`
	LastUsed    int32      `c:"last_used_code"`
	CommWorld   *commState `c:"comm_world"`
	CommSelf    *commState `c:"comm_self"`
}

// The handle of a communicator or window is the address of its state.
func (s *commState) handle() uintptr { return uintptr(unsafe.Pointer(s)) }
func (s *winState) handle() uintptr  { return uintptr(unsafe.Pointer(s)) }
