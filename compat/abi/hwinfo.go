package main

/*
#include "abi.h"
*/
import "C"

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/gshmem/gshmem/compat"
)

// MPI_Get_hw_resource_info (MPI-4.1 §9.1.2): a new info object whose keys
// name the hardware resource types of the machine the caller runs on, in
// the standard's recommended URI form with hwloc's type names
// (hwloc://Machine, Package, NUMANode, L3Cache, Core, PU), and whose
// value is "true" where the caller is restricted to a single resource of
// that type at the moment of the call (every CPU of its affinity mask in
// one package, one NUMA node, ...), else "false". They are read from
// Linux's sysfs, as hwloc reads them. mpi_shared_memory, the value
// MPI_Comm_split_type's MPI_COMM_TYPE_HW_GUIDED takes, is there too: the
// caller is always within one shared-memory domain.

// hwTypes are the types in the order the info object lists them, each
// with the sysfs file (under cpu/cpuN) naming a CPU's instance of it.
var hwTypes = []struct{ key, file string }{
	{"hwloc://Machine", ""},
	{"hwloc://Package", "topology/physical_package_id"},
	{"hwloc://NUMANode", "node"},
	{"hwloc://L3Cache", "cache/index3/id"},
	{"hwloc://Core", "topology/core_id"},
	{"hwloc://PU", "pu"},
}

// hwResourceInfo returns the info object's pairs for this process now.
func hwResourceInfo() compat.Info {
	var set unix.CPUSet
	cpus := []int{}
	if err := unix.SchedGetaffinity(0, &set); err == nil {
		for c := 0; c < len(set)*64; c++ {
			if set.IsSet(c) {
				cpus = append(cpus, c)
			}
		}
	}
	info := compat.Info{"mpi_shared_memory": "true"}
	for _, t := range hwTypes {
		ids := map[string]bool{}
		known := true
		for _, c := range cpus {
			id, ok := cpuInstance(c, t.file)
			if !ok {
				known = false
				break
			}
			ids[id] = true
		}
		if !known && t.file != "" && t.file != "pu" {
			continue // the machine does not describe this type
		}
		info[t.key] = strconv.FormatBool(known && len(ids) == 1)
	}
	return info
}

// cpuInstance names CPU c's instance of the type file describes: the
// package's id, the core's (within its package), the NUMA node's, the
// L3 cache's, or c itself for a PU.
func cpuInstance(c int, file string) (string, bool) {
	dir := filepath.Join("/sys/devices/system/cpu", "cpu"+strconv.Itoa(c))
	switch file {
	case "":
		return "0", true
	case "pu":
		return strconv.Itoa(c), true
	case "node":
		m, _ := filepath.Glob(filepath.Join(dir, "node[0-9]*"))
		if len(m) != 1 {
			return "", false
		}
		return filepath.Base(m[0]), true
	}
	b, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		return "", false
	}
	id := strings.TrimSpace(string(b))
	if file == "topology/core_id" { // core ids repeat across packages
		p, err := os.ReadFile(filepath.Join(dir, "topology/physical_package_id"))
		if err != nil {
			return "", false
		}
		id = strings.TrimSpace(string(p)) + "/" + id
	}
	return id, true
}

//export abigo_Get_hw_resource_info
func abigo_Get_hw_resource_info(out *C.uintptr_t) C.int {
	const call = "MPI_Get_hw_resource_info"
	if out == nil {
		return failCode(0, call, C.MPI_ERR_ARG, "hw_info is NULL")
	}
	*out = C.uintptr_t(newInfo(hwResourceInfo()))
	return C.MPI_SUCCESS
}
