package shmem

import (
	"errors"
	"os"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/gshmem/gshmem/internal/placement"
)

// bindCPU pins this process to the CPU placement.Pick chooses, if mode asks for
// it, and returns that CPU (-1 when placement is left to the scheduler)
// and the CPUs it chose from.
// Pinned, a PE keeps the core whose caches hold the lines it polls, and the
// scheduler can neither move a spinning PE nor wake a sleeping one onto the
// CPU of the peer it waits for: with 4 PEs on 2 CPUs, pinned barriers took
// 3.3-4.1 us where unpinned ones took 3.2-3.4 or 7.5-8.4 us, depending on
// where the scheduler happened to put the PEs. "auto" always pins;
// "oversubscribed" (the default) only when the job's PEs on this node
// fill or outnumber the CPUs they may use: the round-robin then covers every CPU,
// so two jobs that share the machine still spread alike, where two jobs
// pinned below one PE per CPU would crowd onto its first CPUs.
func bindCPU(mode string, localRank, localPEs int) (int, []int, error) {
	if mode != "auto" && mode != "oversubscribed" {
		return -1, nil, nil
	}
	cpus, err := placement.Allowed()
	if err != nil {
		return -1, nil, err
	}
	if !placement.Binds(mode, localPEs, len(cpus)) {
		return -1, nil, nil
	}
	cpu := placement.Pick(cpus, localRank, localPEs)
	if cpu < 0 {
		return -1, nil, nil
	}
	var one unix.CPUSet
	one.Set(cpu)
	// Affinity belongs to threads: set it on every thread the runtime has
	// made, until a pass finds no new one (a thread made by a pinned one
	// inherits the pin).
	done := map[int]bool{}
	for range 4 {
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return -1, nil, err
		}
		fresh := false
		for _, t := range tasks {
			tid, err := strconv.Atoi(t.Name())
			if err != nil || done[tid] {
				continue
			}
			if err := unix.SchedSetaffinity(tid, &one); err != nil && !errors.Is(err, unix.ESRCH) { // ESRCH: the thread ended
				return -1, nil, err
			}
			done[tid], fresh = true, true
		}
		if !fresh {
			break
		}
	}
	return cpu, cpus, nil
}

// nodeCPUs returns the CPU that every PE of this PE's node was pinned to,
// -1 for PEs of other nodes: each local PE pins itself by placement.Pick over
// the CPUs it may use, so this PE repeats the choice for its peers over
// its own (a launcher gives a job's PEs one set; where it did not, the
// guess costs a wait policy's polls, not correctness). node is every PE's
// node number, me this PE and local the count of PEs on its node.
func nodeCPUs(allowed []int, node []int, me, local int) []int {
	cpus, r := make([]int, len(node)), 0
	for pe, n := range node {
		cpus[pe] = -1
		if n == node[me] {
			cpus[pe] = placement.Pick(allowed, r, local)
			r++
		}
	}
	return cpus
}
