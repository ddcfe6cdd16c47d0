// Package devstate is the contract between the CUDA backend and the PTX it
// loads: the layout of the per-module state table (gshmem_state_t in
// kernels/cuda/gshmem.cuh) and of the device control area, and the
// backend's own kernels (builtin.cu), compiled to PTX and embedded so that
// a Go binary carries them. The core (shmem/internal/cuda) owns them and
// kernels reads them, so they live in a leaf that both may import; the
// user-facing header stays in kernels/cuda. It is pure Go and builds
// without CUDA.
//
// The PTX is regenerated from builtin.cu with nvcc (Debian's
// nvidia-cuda-toolkit, CUDA 11.8, emits PTX 7.8 for sm_90; the driver
// compiles it when the module is loaded):
//
//	go generate ./internal/devstate
package devstate

import _ "embed"

//go:generate nvcc -arch=sm_90 -ptx -O3 -I../../kernels/cuda builtin.cu -o builtin.ptx

// BuiltinPTX holds the backend's own kernels (builtin.cu): the device forms
// of host-initiated atomics, the stream barrier and waits, and the
// benchmark kernels.
//
//go:embed builtin.ptx
var BuiltinPTX string

// StateSymbol is the name of the per-module state table the loader fills.
const StateSymbol = "gshmemi_state"

// The state table's layout (gshmem_state_t in gshmem.cuh). All fields are
// little-endian.
const (
	StateMagic       = 0x31304d454d485347 // "GSHMEM01"
	StateSize        = 64
	StateOffMagic    = 0
	StateOffMyPE     = 8
	StateOffNPEs     = 12
	StateOffHeapBase = 16
	StateOffHeapSize = 24
	StateOffPeerBase = 32
	StateOffCtrlSize = 40
	StateOffTeamNode = 48
)

// The device control area at the start of every PE's device heap.
const (
	CtrlBarrier = 0    // dissemination counters, 64 bytes apart
	CtrlEpoch   = 2048 // the PE's device barrier epoch
	CtrlMinSize = 4096
)

// State is one PE's state table, as the loader writes it into a module.
type State struct {
	MyPE, NPEs int32
	HeapBase   uint64 // this PE's heap in the module's context
	HeapSize   uint64
	PeerBase   uint64 // device address of an array of NPEs heap addresses
	CtrlSize   uint64
}

// Encode returns the table's bytes.
func (s State) Encode() []byte {
	b := make([]byte, StateSize)
	put64 := func(off int, v uint64) {
		for i := range 8 {
			b[off+i] = byte(v >> (8 * i))
		}
	}
	put32 := func(off int, v uint32) {
		for i := range 4 {
			b[off+i] = byte(v >> (8 * i))
		}
	}
	put64(StateOffMagic, StateMagic)
	put32(StateOffMyPE, uint32(s.MyPE))
	put32(StateOffNPEs, uint32(s.NPEs))
	put64(StateOffHeapBase, s.HeapBase)
	put64(StateOffHeapSize, s.HeapSize)
	put64(StateOffPeerBase, s.PeerBase)
	put64(StateOffCtrlSize, s.CtrlSize)
	return b
}
