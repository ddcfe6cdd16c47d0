package kernels

import "fmt"

// WarpSize is the number of threads in a warp, as on NVIDIA GPUs.
const WarpSize = 32

// MaxThreadsPerBlock bounds a block, as on NVIDIA GPUs.
const MaxThreadsPerBlock = 1024

// Dim3 is a grid or block shape, as CUDA's dim3. A zero Y or Z counts as 1,
// so Dim3{X: 128} is 128x1x1.
type Dim3 struct{ X, Y, Z int }

// Dim returns the shape x by y by z, with y and z 1 when left out.
func Dim(x int, yz ...int) Dim3 {
	d := Dim3{X: x, Y: 1, Z: 1}
	if len(yz) > 0 {
		d.Y = yz[0]
	}
	if len(yz) > 1 {
		d.Z = yz[1]
	}
	return d
}

func (d Dim3) norm() Dim3 {
	if d.Y == 0 {
		d.Y = 1
	}
	if d.Z == 0 {
		d.Z = 1
	}
	return d
}

// Count returns X*Y*Z (with zero Y and Z counting as 1).
func (d Dim3) Count() int {
	d = d.norm()
	return d.X * d.Y * d.Z
}

// index returns the coordinates of the linear index i (X fastest).
func (d Dim3) index(i int) Dim3 {
	d = d.norm()
	return Dim3{X: i % d.X, Y: i / d.X % d.Y, Z: i / (d.X * d.Y)}
}

func (d Dim3) String() string { return fmt.Sprintf("(%d,%d,%d)", d.X, d.Y, d.Z) }

func (d Dim3) valid() bool {
	return d.X >= 1 && d.Y >= 0 && d.Z >= 0
}
