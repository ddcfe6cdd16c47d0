//go:build !cuda

package shmem

import (
	"context"

	"github.com/gshmem/gshmem/shmem/internal/transport"
)

// DeviceSupport reports whether this binary can put the heap on a GPU here,
// and why not: this build has no CUDA backend.
func DeviceSupport() error {
	return errf(ErrUnsupported, "this binary was built without the CUDA backend (build with -tags cuda)")
}

func openDevice(_ context.Context, w *World, _ uint64) (deviceDomain, transport.Transport, error) {
	return nil, nil, errf(ErrUnsupported, "PE %d: GSHMEM_HEAP=device, but this binary was built without the CUDA backend (build with -tags cuda)", w.pe)
}
