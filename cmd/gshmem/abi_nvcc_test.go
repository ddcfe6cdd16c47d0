package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNvccCommand(t *testing.T) {
	link := nvccCommand("nvcc", "/p", []string{"-arch=sm_90", "app.cu", "-o", "app"})
	assert.Equal(t, []string{"nvcc", "-I/p/include", "-arch=sm_90", "app.cu", "-o", "app",
		"-L/p/lib", "-Xlinker", "-rpath,/p/lib", "-lmpi_abi"}, link)
	for _, stop := range []string{"-c", "-ptx", "-cubin", "-fatbin", "-dc", "-dlink", "-lib", "-E", "--device-c"} {
		got := nvccCommand("nvcc -ccbin g++", "/p", []string{stop, "k.cu"})
		assert.Equal(t, []string{"nvcc", "-ccbin", "g++", "-I/p/include", stop, "k.cu"}, got, stop)
	}
	assert.Equal(t, []string{"nvcc", "-I/p/include"}, nvccCommand("nvcc", "/p", nil))
}

func TestDeviceLibCommand(t *testing.T) {
	tail := []string{"-o", "/p/lib/libgshmem_device.a", "/p/include/gshmem_device.cu"}
	got := deviceLibCommand("nvcc", "/p", nil)
	want := append(append([]string{"nvcc", "-I/p/include", "-rdc=true", "-lib"}, defaultDeviceArch...), tail...)
	assert.Equal(t, want, got)
	// The user's architecture replaces the default one.
	for _, arch := range [][]string{{"-arch=sm_90"}, {"-gencode", "arch=compute_90,code=sm_90"}, {"--gpu-architecture=sm_80"}} {
		got := deviceLibCommand("nvcc -ccbin g++", "/p", arch)
		want := append(append([]string{"nvcc", "-ccbin", "g++", "-I/p/include", "-rdc=true", "-lib"}, arch...), tail...)
		assert.Equal(t, want, got, arch)
	}
}
