package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/gshmem/gshmem/internal/gpuinfo"
)

// The GPU part of gshmem info: this node's GPUs and the paths between
// them (NVML, in a cgo build with -tags cuda), and, in a job, which GPU
// each PE of this node would use and how each pair of them reaches the
// other.

// gpuNode probes once per process.
var gpuNode = sync.OnceValues(gpuinfo.Probe)

// printGPUs prints this node's GPUs and their path matrix.
func printGPUs(out io.Writer) {
	n, err := gpuNode()
	if err != nil {
		if gpuinfo.Built {
			fmt.Fprintf(out, "GPUs: none usable here (%v)\n", err)
		} else {
			fmt.Fprintln(out, "GPUs: not probed by this build (host backend; a cgo build with -tags cuda lists them through NVML)")
		}
		return
	}
	fmt.Fprintf(out, "GPUs: %d (driver %s, CUDA sees %d)\n", len(n.GPUs), orDash(n.Driver), n.CUDACount())
	for _, g := range n.GPUs {
		fmt.Fprintf(out, "  GPU %d  %s  %s  %d MiB  %d NVLink links\n", g.Index, g.Name, g.BusID, g.MemoryMiB, g.NVLinks)
	}
	if len(n.GPUs) > 1 {
		fmt.Fprintln(out, "  paths GPU i -> j (= same, N NVLink, P PCIe peer-to-peer, h through host memory):")
		for i, row := range n.Paths {
			b := make([]byte, len(row))
			for j, p := range row {
				b[j] = p.Letter()
			}
			fmt.Fprintf(out, "  %-3d %s\n", i, b)
		}
	}
}

// myGPU is the NVML index of the GPU the CUDA backend would give this PE
// (GSHMEM_DEVICE, else its local rank modulo the GPUs CUDA sees), or -1.
func myGPU(localRank int) int {
	n, err := gpuNode()
	if err != nil || n.CUDACount() == 0 {
		return -1
	}
	ord := localRank % n.CUDACount()
	if v := strings.TrimSpace(os.Getenv("GSHMEM_DEVICE")); v != "" {
		if o, err := strconv.Atoi(v); err == nil {
			ord = o
		}
	}
	idx, err := n.Ordinal(ord)
	if err != nil {
		return -1
	}
	return idx
}

// localRank is pe's rank among the PEs of its node.
func localRank(node []int, pe int) int {
	r := 0
	for q := range pe {
		if node[q] == node[pe] {
			r++
		}
	}
	return r
}

// printPEGPUs prints, for the PEs on PE 0's node, the GPU each would use
// and the path between each pair. gpu[pe] is an NVML index or -1.
func printPEGPUs(out io.Writer, node, gpu []int) {
	n, err := gpuNode()
	if err != nil {
		return
	}
	var pes []int
	for pe := range node {
		if node[pe] == node[0] && gpu[pe] >= 0 && gpu[pe] < len(n.GPUs) {
			pes = append(pes, pe)
		}
	}
	if len(pes) == 0 {
		return
	}
	fmt.Fprintf(out, "GPU of each PE on node %d, and the path between them (CUDA backend; = same GPU, N NVLink, P PCIe, h host):\n", node[0])
	for _, a := range pes {
		b := make([]byte, len(pes))
		for k, c := range pes {
			b[k] = n.Paths[gpu[a]][gpu[c]].Letter()
		}
		fmt.Fprintf(out, "  PE %-3d GPU %d (%s)  %s\n", a, gpu[a], n.GPUs[gpu[a]].BusID, b)
	}
}
