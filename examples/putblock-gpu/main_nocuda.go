//go:build !cuda

// Command putblock-gpu is putblock on GPU memory: a kernel whose blocks put
// into the right neighbour's device buffer (see main.go). It needs the CUDA
// backend: build it with -tags cuda.
package main

import (
	"fmt"
	"os"
)

//go:generate nvcc -arch=sm_90 -ptx -O3 -I ../../kernels/cuda putblock.cu -o putblock.ptx

func main() {
	fmt.Fprintln(os.Stderr, "putblock-gpu: built without the CUDA backend; build it with -tags cuda")
	os.Exit(2)
}
