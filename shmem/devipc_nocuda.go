//go:build !cuda

package shmem

// ExportDevice: see the cuda build. Here no address is device memory.
func (w *World) ExportDevice(p uintptr, n int) (DeviceExport, uint64, bool) {
	return DeviceExport{}, 0, false
}

// ImportDevice: see the cuda build.
func (w *World) ImportDevice(x DeviceExport) (uintptr, func(), error) {
	return 0, nil, errf(ErrUnsupported, "this build has no CUDA backend (-tags cuda)")
}

// ReleaseDeviceImports: see the cuda build.
func (w *World) ReleaseDeviceImports() {}

// ForgetDeviceMemory: see the cuda build.
func ForgetDeviceMemory(base uintptr, n int) {}

// DeviceProbes: see the cuda build.
func DeviceProbes() uint64 { return 0 }
