//go:build cuda

package devcopy

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/gshmem/gshmem/internal/cudadrv"
	"github.com/gshmem/gshmem/shmem"
)

// Copies between host and device memory for the MPI layers' small
// messages. Up to BounceSize bytes go through a pinned bounce buffer: the
// copy engine reads and writes pinned memory directly, where pageable
// memory costs the driver a staging copy and, towards the device, a
// synchronization of its own. Larger copies go straight from and to the
// caller's memory.
//
// ToHostAfterCaller runs on the legacy default stream: called in the
// caller's own MPI call, it follows exactly the work the caller queued
// before (a kernel that wrote a send buffer), with no event between two
// streams. FromHost runs on the PE's stream, which the layer has ordered
// after the caller's work when the receive was posted: a copy made later,
// while the caller's thread has queued more work (an Irecv, a kernel, a
// Wait), must not wait for that work.

// BounceSize is the largest copy that goes through a bounce buffer.
const BounceSize = 64 << 10

// maxBounces is how many bounce buffers a context keeps; more copies at
// once take pageable paths.
const maxBounces = 8

// bounces is the free pinned buffers per CUcontext. They live as long as
// the process: the first one retains the GPU's primary context once more,
// so that the last World's finalize does not destroy the context (and the
// buffers with it) under a later World that would find them here.
var bounces = struct {
	sync.Mutex
	free map[uintptr][]unsafe.Pointer
	made map[uintptr]int
}{free: map[uintptr][]unsafe.Pointer{}, made: map[uintptr]int{}}

// getBounce returns a pinned buffer of BounceSize bytes of ctx, or nil
// when every one is in use or pinned memory cannot be had.
func getBounce(ctx cudadrv.Context, ord int) unsafe.Pointer {
	k := ctx.Uintptr()
	bounces.Lock()
	if f := bounces.free[k]; len(f) > 0 {
		p := f[len(f)-1]
		bounces.free[k] = f[:len(f)-1]
		bounces.Unlock()
		return p
	}
	if bounces.made[k] >= maxBounces {
		bounces.Unlock()
		return nil
	}
	first := bounces.made[k] == 0
	bounces.made[k]++
	bounces.Unlock()
	if first {
		if _, err := cudadrv.RetainPrimary(ord); err != nil {
			return nil
		}
	}
	p, err := ctx.MemAllocHost(BounceSize)
	if err != nil || p == nil {
		return nil // made stays counted: no retry on every copy
	}
	return p
}

func putBounce(ctx cudadrv.Context, p unsafe.Pointer) {
	bounces.Lock()
	bounces.free[ctx.Uintptr()] = append(bounces.free[ctx.Uintptr()], p)
	bounces.Unlock()
}

func contextOf(w *shmem.World) (cudadrv.Context, int, error) {
	d, err := w.Device()
	if err != nil {
		return cudadrv.Context{}, 0, err
	}
	return cudadrv.ContextFromUintptr(d.Context()), d.Ordinal(), nil
}

// ToHostAfterCaller copies len(dst) bytes at device address src into dst
// after the caller's default-stream work, and returns when they are there.
func ToHostAfterCaller(w *shmem.World, dst []byte, src uintptr) error {
	n := len(dst)
	if n == 0 {
		return nil
	}
	ctx, ord, err := contextOf(w)
	if err != nil {
		return err
	}
	if n <= BounceSize {
		if b := getBounce(ctx, ord); b != nil {
			defer putBounce(ctx, b)
			if err := ctx.CopyDtoHLegacy(b, cudadrv.DevPtr(src), uint64(n)); err != nil {
				return fmt.Errorf("device-to-host copy of %d bytes: %w", n, err)
			}
			copy(dst, unsafe.Slice((*byte)(b), n))
			return nil
		}
	}
	// To pageable memory the driver returns once the copy is done.
	if err := ctx.CopyDtoHLegacy(unsafe.Pointer(&dst[0]), cudadrv.DevPtr(src), uint64(n)); err != nil {
		return fmt.Errorf("device-to-host copy of %d bytes: %w", n, err)
	}
	return nil
}

// FromHost copies src to device address dst on the PE's stream, after its
// earlier work, and returns when it is there.
func FromHost(w *shmem.World, dst uintptr, src []byte) error {
	n := len(src)
	if n == 0 {
		return nil
	}
	d, err := w.Device()
	if err != nil {
		return err
	}
	ctx, s := cudadrv.ContextFromUintptr(d.Context()), cudadrv.StreamFromUintptr(d.Stream())
	if n <= BounceSize {
		if b := getBounce(ctx, d.Ordinal()); b != nil {
			defer putBounce(ctx, b)
			copy(unsafe.Slice((*byte)(b), n), src)
			if err := ctx.CopyHtoDAsyncPtr(cudadrv.DevPtr(dst), b, uint64(n), s); err != nil {
				return fmt.Errorf("host-to-device copy of %d bytes: %w", n, err)
			}
			if err := ctx.StreamSynchronize(s); err != nil {
				return fmt.Errorf("host-to-device copy of %d bytes: %w", n, err)
			}
			return nil
		}
	}
	// From pageable memory the call may return before the copy lands.
	if err := ctx.CopyHtoDAsync(cudadrv.DevPtr(dst), src, s); err != nil {
		return fmt.Errorf("host-to-device copy of %d bytes: %w", n, err)
	}
	if err := ctx.StreamSynchronize(s); err != nil {
		return fmt.Errorf("host-to-device copy of %d bytes: %w", n, err)
	}
	return nil
}

// SyncCaller waits for the work the caller queued on the legacy default
// stream: a send buffer's bytes are then final.
func SyncCaller(w *shmem.World) error {
	ctx, _, err := contextOf(w)
	if err != nil {
		return err
	}
	return ctx.StreamSynchronize(cudadrv.StreamLegacy)
}
