//go:build cgo

package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gshmem/gshmem/compat"
)

// The info MPI_Alloc_mem reads for the kind of memory (mem.go).
func TestAllocMemKind(t *testing.T) {
	for _, c := range []struct {
		info    compat.Info
		dev, ok bool
	}{
		{nil, false, true},
		{compat.Info{"gshmem_memory": "device"}, true, true},
		{compat.Info{"gshmem_memory": " host "}, false, true},
		{compat.Info{"gshmem_memory": "gpu"}, false, false},
		{compat.Info{"mpi_assert_memory_alloc_kinds": "cuda:device"}, true, true},
		{compat.Info{"mpi_assert_memory_alloc_kinds": "cuda:device, cuda:device:stream"}, true, true},
		{compat.Info{"mpi_assert_memory_alloc_kinds": "cuda:device,system"}, false, true},
		{compat.Info{"mpi_assert_memory_alloc_kinds": "cuda:host"}, false, true},
		{compat.Info{"mpi_assert_memory_alloc_kinds": ""}, false, true},
		{compat.Info{"mpi_memory_alloc_kinds": "cuda:device"}, false, true}, // does not select the kind (MPI-4.1)
		{compat.Info{"gshmem_memory": "host", "mpi_assert_memory_alloc_kinds": "cuda:device"}, false, true},
	} {
		dev, ok := wantsDevice(c.info)
		assert.Equal(t, c.dev, dev, "%v", c.info)
		assert.Equal(t, c.ok, ok, "%v", c.info)
	}
}
