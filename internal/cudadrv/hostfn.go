//go:build cuda

package cudadrv

// #include <stddef.h>
// #include <cuda.h>
// CUresult gs_launch_host_func(CUcontext c, CUstream s, size_t handle);
import "C"

import (
	"runtime/cgo"
	"unsafe"
)

//export gsHostFn
func gsHostFn(p unsafe.Pointer) {
	h := cgo.Handle(uintptr(p))
	fn := h.Value().(func())
	h.Delete()
	fn()
}

// LaunchHostFunc runs fn on a driver thread when s reaches it; the stream
// waits for fn to return. fn must not call CUDA.
func (c Context) LaunchHostFunc(s Stream, fn func()) error {
	h := cgo.NewHandle(fn)
	if err := check(C.gs_launch_host_func(c.c(), s.c(), C.size_t(h))); err != nil {
		h.Delete()
		return err
	}
	return nil
}
