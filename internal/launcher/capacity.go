package launcher

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// Capacity is what a node offers a job: the CPUs this process may run on
// and the memory available (MemAvailable) in bytes, 0 when unknown.
type Capacity struct {
	CPUs     int
	MemBytes uint64
}

// NodeCapacity reads this node's capacity.
func NodeCapacity() Capacity {
	return Capacity{CPUs: runtime.NumCPU(), MemBytes: memAvailable()}
}

// MaxPerCPU is how many PEs gshmem run starts per CPU without
// --oversubscribe. Open MPI's mpirun refuses more processes than slots
// outright; gshmem's waits yield when a node's PEs outnumber its CPUs
// (the wait policy), and a development machine of 2 CPUs runs 4- and
// 8-PE jobs well, so a small factor is allowed and a job that cannot make
// progress (hundreds of PEs per CPU) is refused.
const MaxPerCPU = 4

// PEBytes estimates the memory one PE of an n-PE job takes: the Go
// runtime and the program (about 8 MiB resident, measured with
// test/perf/initfini) plus, per peer, its heap's mapping, its page tables
// once touched and the liveness link (16 KiB, generously). A peer's heap is
// mapped only when first touched, so this bounds a PE that talks to every
// peer (an all-to-all); one that only initializes and finalizes maps log2 n.
func PEBytes(n int) uint64 { return 8<<20 + uint64(n)*16<<10 }

// CheckCapacity refuses a job of n PEs that the node cannot hold, in one
// line that says why and what overrides it. Only the gshmem run command
// calls it: the launcher as a library (tests, gshmem perf) starts what it
// is asked to.
// A count below 1 is refused whatever --oversubscribe says.
func CheckCapacity(n int, c Capacity, oversubscribe bool) error {
	if n < 1 {
		return fmt.Errorf("%w: -n %d: a job needs at least 1 PE", ErrConfig, n)
	}
	if oversubscribe {
		return nil
	}
	if c.CPUs > 0 && n > MaxPerCPU*c.CPUs {
		return fmt.Errorf("%w: %d PEs on %d CPUs is more than %d per CPU, where they would mostly wait for one another; pass --oversubscribe to start them anyway",
			ErrConfig, n, c.CPUs, MaxPerCPU)
	}
	if need := uint64(n) * PEBytes(n); c.MemBytes > 0 && need > c.MemBytes {
		return fmt.Errorf("%w: %d PEs need about %d MiB of memory (%d MiB each) and the node has %d MiB available; pass --oversubscribe to start them anyway",
			ErrConfig, n, need>>20, PEBytes(n)>>20, c.MemBytes>>20)
	}
	return nil
}

// memAvailable reads MemAvailable from /proc/meminfo, 0 if it cannot.
func memAvailable() uint64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
