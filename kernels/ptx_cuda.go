//go:build cuda

package kernels

import (
	"errors"
	"fmt"
	"math"

	"github.com/gshmem/gshmem/internal/cudadrv"
	"github.com/gshmem/gshmem/internal/devstate"
	"github.com/gshmem/gshmem/shmem"
)

// This file is the CUDA form of the device-initiated stage: kernels
// written in CUDA C against kernels/cuda/gshmem.cuh, compiled to PTX, and
// loaded and launched here on the GPU of a World whose heap is device
// memory (shmem.WithDevice or GSHMEM_HEAP=device).

// PTXModule is a PTX module loaded into one PE's CUDA context, with the
// PE's state table bound into it: its kernels' gshmem_* calls reach the
// other PEs' heaps. Load one per PE (the state differs per PE, even when
// in-process PEs share a context).
type PTXModule struct {
	w     *shmem.World
	ctx   cudadrv.Context
	mod   cudadrv.Module
	bound bool
	sms   int
}

// LoadPTX loads ptx (text from nvcc -ptx, or a cubin or fatbin) into w's
// GPU context and binds w's state table into the module's gshmemi_state,
// when the module includes gshmem.cuh.
func LoadPTX(w *shmem.World, ptx string) (*PTXModule, error) {
	dev, err := w.Device()
	if err != nil {
		return nil, err
	}
	ctx := cudadrv.ContextFromUintptr(dev.Context())
	mod, err := ctx.LoadModule(ptx)
	if err != nil {
		return nil, fmt.Errorf("kernels: loading a PTX module on GPU %d: %w", dev.Ordinal(), err)
	}
	m := &PTXModule{w: w, ctx: ctx, mod: mod}
	m.sms, _ = cudadrv.DeviceAttribute(dev.Ordinal(), cudadrv.AttrMultiprocessorCount)
	if p, sz, err := ctx.Global(mod, devstate.StateSymbol); err == nil {
		if sz != devstate.StateSize {
			_ = ctx.UnloadModule(mod)
			return nil, fmt.Errorf("kernels: the module's %s is %d bytes, this runtime's is %d: rebuild it against this gshmem.cuh",
				devstate.StateSymbol, sz, devstate.StateSize)
		}
		if err := ctx.CopyHtoD(p, dev.State()); err != nil {
			_ = ctx.UnloadModule(mod)
			return nil, fmt.Errorf("kernels: binding the state table: %w", err)
		}
		m.bound = true
	}
	return m, nil
}

// LoadBuiltin loads the backend's built-in kernels (internal/devstate/builtin.cu).
func LoadBuiltin(w *shmem.World) (*PTXModule, error) { return LoadPTX(w, devstate.BuiltinPTX) }

// Bound reports whether the module includes gshmem.cuh (and so had the
// state table bound).
func (m *PTXModule) Bound() bool { return m.bound }

// World returns the module's World.
func (m *PTXModule) World() *shmem.World { return m.w }

// Close unloads the module.
func (m *PTXModule) Close() error { return m.ctx.UnloadModule(m.mod) }

// Kernel looks up an extern "C" __global__ function of the module.
func (m *PTXModule) Kernel(name string) (*PTXKernel, error) {
	f, err := m.ctx.Function(m.mod, name)
	if err != nil {
		return nil, fmt.Errorf("kernels: %w", err)
	}
	return &PTXKernel{m: m, fn: f, name: name}, nil
}

// PTXKernel is one kernel of a PTXModule.
type PTXKernel struct {
	m    *PTXModule
	fn   cudadrv.Function
	name string
}

// PTXDim is a grid or block shape; zero components count as 1.
type PTXDim struct{ X, Y, Z int }

// PTXLaunch describes one launch.
type PTXLaunch struct {
	Grid, Block PTXDim
	Shared      int     // dynamic shared memory, bytes
	Stream      uintptr // CUstream of the PE's context; 0: the legacy default stream
}

// PTXStruct passes a by-value struct argument: its bytes, laid out as the
// kernel's C struct, and its alignment.
type PTXStruct struct {
	Bytes []byte
	Align int
}

func packArgs(args []any) (*cudadrv.Args, error) {
	var a cudadrv.Args
	for i, v := range args {
		switch x := v.(type) {
		case uintptr:
			a.U64(uint64(x))
		case uint64:
			a.U64(x)
		case int64:
			a.I64(x)
		case int32:
			a.I32(x)
		case uint32:
			a.U32(x)
		case float32:
			a.F32(x)
		case float64:
			a.F64(x)
		case int:
			if x < math.MinInt32 || x > math.MaxInt32 {
				return nil, fmt.Errorf("kernels: argument %d: int %d does not fit a C int (pass int64)", i, x)
			}
			a.I32(int32(x))
		case PTXStruct:
			a.Bytes(x.Bytes, max(x.Align, 1))
		default:
			return nil, fmt.Errorf("kernels: argument %d: unsupported type %T (use uintptr, uint64, int64, int32, uint32, int, float32, float64 or PTXStruct)", i, v)
		}
	}
	return &a, nil
}

func (l PTXLaunch) dims() (cudadrv.Dim3, cudadrv.Dim3) {
	return cudadrv.Dim3{X: l.Grid.X, Y: l.Grid.Y, Z: l.Grid.Z}, cudadrv.Dim3{X: l.Block.X, Y: l.Block.Y, Z: l.Block.Z}
}

// Launch starts the kernel with args (C int for Go int; device pointers as
// uintptr, e.g. from shmem.DevicePtr). It returns once the launch is
// queued on l.Stream.
func (k *PTXKernel) Launch(l PTXLaunch, args ...any) error {
	a, err := packArgs(args)
	if err != nil {
		return err
	}
	g, b := l.dims()
	if err := k.m.ctx.Launch(k.fn, g, b, l.Shared, cudadrv.StreamFromUintptr(l.Stream), a, false); err != nil {
		return fmt.Errorf("kernels: launching %s: %w", k.name, err)
	}
	return nil
}

// MaxCollectiveGrid returns the most blocks of this kernel that can be
// resident at once on the GPU for a block of blockThreads threads,
// divided among sharers PEs that launch on the same GPU at the same time.
func (k *PTXKernel) MaxCollectiveGrid(blockThreads, shared, sharers int) (int, error) {
	per, err := k.m.ctx.MaxActiveBlocksPerSM(k.fn, blockThreads, shared)
	if err != nil {
		return 0, err
	}
	return per * k.m.sms / max(sharers, 1), nil
}

// LaunchCollective launches a kernel that synchronizes with the other PEs
// (device barriers, waits on their puts), as nvshmemx_collective_launch:
// every PE must launch it, and all of its blocks must be resident at once,
// which a cooperative launch guarantees (or refuses). sharers is the number
// of PEs that launch on the same GPU at the same time (their grids must
// fit together; 1 for a GPU of its own).
func (k *PTXKernel) LaunchCollective(l PTXLaunch, sharers int, args ...any) error {
	limit, err := k.MaxCollectiveGrid(l.Block.X*max(l.Block.Y, 1)*max(l.Block.Z, 1), l.Shared, sharers)
	if err != nil {
		return err
	}
	g, b := l.dims()
	if g.Count() > limit {
		return fmt.Errorf("%w: collective launch of %s with %d blocks: at most %d fit at once for %d PE(s) on this GPU",
			shmem.ErrInvalid, k.name, g.Count(), limit, sharers)
	}
	a, err := packArgs(args)
	if err != nil {
		return err
	}
	err = k.m.ctx.Launch(k.fn, g, b, l.Shared, cudadrv.StreamFromUintptr(l.Stream), a, true)
	if errors.Is(err, cudadrv.ErrorNotSupported) {
		// No cooperative launches here (an MPS client may lack them): the
		// occupancy check above already showed that the grid fits.
		err = k.m.ctx.Launch(k.fn, g, b, l.Shared, cudadrv.StreamFromUintptr(l.Stream), a, false)
	}
	if err != nil {
		return fmt.Errorf("kernels: collective launch of %s: %w", k.name, err)
	}
	return nil
}
