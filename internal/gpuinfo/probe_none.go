//go:build !(cuda && cgo)

package gpuinfo

// Built reports whether this build can probe GPUs.
const Built = false

// Probe returns ErrAbsent: this build has no NVML.
func Probe() (*Node, error) { return nil, ErrAbsent }
