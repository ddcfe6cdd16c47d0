// Package gpuinfo describes the GPUs of this node and the paths between
// them, for gshmem info: through NVML (github.com/NVIDIA/go-nvml) in a
// cgo build with -tags cuda, and not at all in the pure-Go build, which
// says so (ErrAbsent).
//
// The CUDA backend gives PE p the GPU of CUDA ordinal GSHMEM_DEVICE, or
// its local rank modulo the GPUs it sees; NVML numbers GPUs in PCI order
// and CUDA by speed unless CUDA_DEVICE_ORDER=PCI_BUS_ID, so the two are
// matched by PCI address (Node.Ordinal).
package gpuinfo

import (
	"errors"
	"fmt"
)

// ErrAbsent is returned by Probe in a build without GPU discovery.
var ErrAbsent = errors.New("gpuinfo: GPU discovery is not in this build (a cgo build with -tags cuda uses NVML)")

// GPU is one device as NVML names it.
type GPU struct {
	Index     int    // NVML index (PCI order)
	Name      string // "NVIDIA H200"
	BusID     string // PCI address, "00000000:3B:00.0"
	MemoryMiB uint64
	NVLinks   int // active NVLink links
}

// Path is how one GPU reaches another's memory.
type Path int

// The paths, best first.
const (
	PathSame   Path = iota // the same GPU
	PathNVLink             // peer access over NVLink
	PathPCIe               // peer access over PCIe
	PathHost               // no peer access: through host memory
)

// Letter is the path's one-letter form for matrices.
func (p Path) Letter() byte { return "=NPh"[p] }

func (p Path) String() string {
	return [...]string{"same GPU", "NVLink", "PCIe peer-to-peer", "through host memory"}[p]
}

// Node is what Probe found.
type Node struct {
	Driver string // the driver's version
	GPUs   []GPU
	// Paths[i][j] is how GPU i reaches GPU j (NVML indices).
	Paths [][]Path
	// cudaToNVML maps a CUDA ordinal to an NVML index (-1 unknown).
	cudaToNVML []int
}

// Ordinal returns the NVML index of the GPU that CUDA numbers ord, or an
// error when CUDA's view is not known (no CUDA driver) or ord is out of
// range.
func (n *Node) Ordinal(ord int) (int, error) {
	if ord < 0 || ord >= len(n.cudaToNVML) || n.cudaToNVML[ord] < 0 {
		return -1, fmt.Errorf("gpuinfo: CUDA device %d is not among the %d CUDA sees", ord, len(n.cudaToNVML))
	}
	return n.cudaToNVML[ord], nil
}

// CUDACount is the number of GPUs CUDA sees (CUDA_VISIBLE_DEVICES applies).
func (n *Node) CUDACount() int { return len(n.cudaToNVML) }
