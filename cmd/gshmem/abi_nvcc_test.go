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
