//go:build cuda

package main

import (
	"fmt"

	"github.com/gshmem/gshmem/internal/cudadrv"
	"github.com/gshmem/gshmem/internal/devstate"
	"github.com/gshmem/gshmem/shmem"
)

// kernSharers counts the PEs whose heap is on this PE's GPU (this one
// included): their collective launches run at once and must fit together.
func kernSharers(dev *shmem.Device) (int, error) {
	ctx := cudadrv.ContextFromUintptr(dev.Context())
	n := 0
	for pe := range dev.World().NPEs() {
		b := dev.HeapBase(pe)
		if b == 0 {
			continue
		}
		ord, err := ctx.PointerDevice(cudadrv.DevPtr(b))
		if err != nil {
			return 0, fmt.Errorf("the GPU of PE %d's heap: %w", pe, err)
		}
		if ord == dev.Ordinal() {
			n++
		}
	}
	return max(n, 1), nil
}

// kernBindModule writes the state into a module's gshmemi_state, or zeroes
// it (fin). The module must live in the PE's context, the GPU's primary
// context, which is also the CUDA runtime's.
func kernBindModule(dev *shmem.Device, module uintptr, fin bool) error {
	ctx := cudadrv.ContextFromUintptr(dev.Context())
	p, sz, err := ctx.Global(cudadrv.ModuleFromUintptr(module), devstate.StateSymbol)
	if err != nil {
		return fmt.Errorf("the module has no %s (built without gshmem.cuh, or loaded in a context other than GPU %d's primary context): %w",
			devstate.StateSymbol, dev.Ordinal(), err)
	}
	st := dev.State()
	if sz != uint64(len(st)) {
		return fmt.Errorf("the module's %s is %d bytes, this library's is %d: rebuild it against this installation's gshmem.cuh",
			devstate.StateSymbol, sz, len(st))
	}
	if fin {
		st = make([]byte, len(st))
	}
	if err := ctx.CopyHtoD(p, st); err != nil {
		return fmt.Errorf("writing the module's %s: %w", devstate.StateSymbol, err)
	}
	return nil
}
