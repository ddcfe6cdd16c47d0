// Package placement is the rule that puts a node's process PEs on its
// CPUs (GSHMEM_BIND). The PEs apply it to themselves (shmem pins each
// process by it) and gshmem run applies it ahead of them (it starts the
// PEs that will share a CPU in one session: internal/launcher's keeper),
// so both sides must compute the same answer: this package is that
// answer, and imports nothing of gshmem.
package placement

import "golang.org/x/sys/unix"

// DefaultMode is GSHMEM_BIND's value when it is unset.
const DefaultMode = "oversubscribed"

// Binds reports whether mode pins the process PEs of a node running
// localPEs of them on ncpus allowed CPUs: "auto" always, "oversubscribed"
// only when the PEs fill or outnumber the CPUs (the round-robin then
// covers every CPU, so two jobs that share the machine still spread
// alike), "none" never. "" means DefaultMode.
//
// A node exactly full is pinned too: left to the scheduler, its PEs were
// put on one CPU while busy processes held the others, where each message
// waited out the sender's spin and slice on the one CPU (issue 38:
// unmodified osu_latency 8 B, 2 PEs on 2 CPUs with a busy loop per CPU,
// five runs unpinned 344, 0.29, 102, 0.10, 0.27 us, pinned 0.05-0.30 us;
// Open MPI --bind-to none 87, 6.6, 66, 0.15, 0.14 us). No wake-up was
// lost there (no sleep ended by its timeout with its condition true).
func Binds(mode string, localPEs, ncpus int) bool {
	if mode == "" {
		mode = DefaultMode
	}
	return mode == "auto" || mode == "oversubscribed" && localPEs >= ncpus
}

// Pick returns the CPU of allowed (ascending) that local rank r of n
// takes, round-robin; -1 when the launcher left a single CPU (it pinned
// the process itself) or r is not one of the n.
func Pick(allowed []int, r, n int) int {
	if len(allowed) <= 1 || r < 0 || r >= n {
		return -1
	}
	return allowed[r%len(allowed)]
}

// Allowed returns the CPUs the calling thread may run on, ascending.
func Allowed() ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, err
	}
	var cpus []int
	for c := range 8 * 1024 {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	return cpus, nil
}

// Shared groups the n local ranks of a node by the CPU Pick gives them
// under mode, in rank order, keeping only the groups of two or more: the
// PEs that will share a CPU. It returns nil when mode pins nothing.
func Shared(mode string, allowed []int, n int) [][]int {
	if !Binds(mode, n, len(allowed)) {
		return nil
	}
	byCPU := map[int][]int{}
	var order []int
	for r := range n {
		c := Pick(allowed, r, n)
		if c < 0 {
			return nil
		}
		if byCPU[c] == nil {
			order = append(order, c)
		}
		byCPU[c] = append(byCPU[c], r)
	}
	var groups [][]int
	for _, c := range order {
		if len(byCPU[c]) > 1 {
			groups = append(groups, byCPU[c])
		}
	}
	return groups
}
