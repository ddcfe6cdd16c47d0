//go:build cuda && cgo

package gpuinfo

import (
	"fmt"
	"strings"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/gshmem/gshmem/internal/cudadrv"
)

// Built reports whether this build can probe GPUs.
const Built = true

// Probe asks NVML for this node's GPUs and the paths between them, and
// the CUDA driver for its numbering. It fails with the driver's message
// when NVML cannot start (no driver: libnvidia-ml.so.1 absent).
func Probe() (*Node, error) {
	if r := nvml.Init(); r != nvml.SUCCESS {
		return nil, fmt.Errorf("gpuinfo: NVML: %v", nvml.ErrorString(r))
	}
	defer nvml.Shutdown()
	n := &Node{}
	if v, r := nvml.SystemGetDriverVersion(); r == nvml.SUCCESS {
		n.Driver = v
	}
	count, r := nvml.DeviceGetCount()
	if r != nvml.SUCCESS {
		return nil, fmt.Errorf("gpuinfo: NVML device count: %v", nvml.ErrorString(r))
	}
	devs := make([]nvml.Device, count)
	for i := range count {
		d, r := nvml.DeviceGetHandleByIndex(i)
		if r != nvml.SUCCESS {
			return nil, fmt.Errorf("gpuinfo: NVML device %d: %v", i, nvml.ErrorString(r))
		}
		devs[i] = d
		g := GPU{Index: i}
		g.Name, _ = d.GetName()
		if p, r := d.GetPciInfo(); r == nvml.SUCCESS {
			g.BusID = cstr(p.BusId[:])
		}
		if m, r := d.GetMemoryInfo(); r == nvml.SUCCESS {
			g.MemoryMiB = m.Total >> 20
		}
		for l := range nvml.NVLINK_MAX_LINKS {
			if s, r := d.GetNvLinkState(l); r == nvml.SUCCESS && s == nvml.FEATURE_ENABLED {
				g.NVLinks++
			}
		}
		n.GPUs = append(n.GPUs, g)
	}
	n.Paths = make([][]Path, count)
	for i := range count {
		n.Paths[i] = make([]Path, count)
		for j := range count {
			n.Paths[i][j] = path(devs[i], devs[j], i == j)
		}
	}
	n.cudaToNVML = cudaOrdinals(n.GPUs)
	return n, nil
}

func path(a, b nvml.Device, same bool) Path {
	if same {
		return PathSame
	}
	if s, r := nvml.DeviceGetP2PStatus(a, b, nvml.P2P_CAPS_INDEX_NVLINK); r == nvml.SUCCESS && s == nvml.P2P_STATUS_OK {
		return PathNVLink
	}
	if s, r := nvml.DeviceGetP2PStatus(a, b, nvml.P2P_CAPS_INDEX_READ); r == nvml.SUCCESS && s == nvml.P2P_STATUS_OK {
		return PathPCIe
	}
	return PathHost
}

// cudaOrdinals matches each CUDA ordinal to an NVML GPU by PCI address;
// nil when the CUDA driver cannot be loaded.
func cudaOrdinals(gpus []GPU) []int {
	if cudadrv.Load() != nil {
		return nil
	}
	count, err := cudadrv.DeviceCount()
	if err != nil {
		return nil
	}
	out := make([]int, count)
	for ord := range count {
		out[ord] = -1
		dom, err1 := cudadrv.DeviceAttribute(ord, cudadrv.AttrPCIDomainID)
		bus, err2 := cudadrv.DeviceAttribute(ord, cudadrv.AttrPCIBusID)
		dev, err3 := cudadrv.DeviceAttribute(ord, cudadrv.AttrPCIDeviceID)
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		want := fmt.Sprintf("%08x:%02x:%02x.0", dom, bus, dev)
		for _, g := range gpus {
			if strings.EqualFold(g.BusID, want) || strings.EqualFold(strings.TrimPrefix(g.BusID, "0000"), want[4:]) {
				out[ord] = g.Index
			}
		}
	}
	return out
}

// cstr is a NUL-terminated C char array as a string.
func cstr(b []int8) string {
	s := make([]byte, 0, len(b))
	for _, c := range b {
		if c == 0 {
			break
		}
		s = append(s, byte(c))
	}
	return string(s)
}
