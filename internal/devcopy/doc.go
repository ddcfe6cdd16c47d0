// Package devcopy moves bytes between device addresses of this process for
// the MPI layers (compat's point-to-point, windows' RMA) on a World whose
// heap is GPU memory: a buffer of the caller's (cudaMalloc), a peer's heap
// mapped by CUDA IPC, another in-process PE's buffer. shmem's own copies
// take a symmetric object on one side; these take two addresses. Without
// -tags cuda no World has a device heap and the calls fail with
// ErrUnsupported.
package devcopy

import "errors"

// ErrUnsupported: this build has no CUDA backend.
var ErrUnsupported = errors.New("devcopy: this build has no CUDA backend (-tags cuda)")
