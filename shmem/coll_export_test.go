package shmem

import (
	"sync"

	"github.com/gshmem/gshmem/shmem/internal/transport"
)

// SetGenericCollectives makes the collectives of w's world and shared teams,
// and of every team split afterwards, use only the Transport's RMA calls
// (Get, Put, Atomic), as if no peer heap were mapped; false restores direct
// access where the heaps are mapped. Every PE must call it at the same point
// of its program, between collectives. Tests only.
func SetGenericCollectives(w *World, on bool) {
	w.teams.generic = on
	for _, t := range []*Team{w.teams.world, w.teams.shared} {
		t.direct = t.mapped && !on
		t.mapHeaps()
	}
}

// TeamSlots returns how many team slots w's heap holds.
func TeamSlots(w *World) int { return w.teams.nslots }

// fakeDevice emulates a heap on a GPU, as the cuda transport presents it:
// offsets from limit on live in memory that only Get, Put and Atomic reach
// (one block per PE, shared by the in-process PEs), the runtime's own area
// below limit stays in the host heap, and Mapped returns nil. w.heap holds
// nothing at the objects' offsets, so a collective that reads or writes
// them through w.heap gets zeros or loses its writes.
type fakeDevice struct {
	host  transport.Transport
	limit uint64
	mem   [][]byte
}

var (
	fakeMu   sync.Mutex
	fakeMems = map[*byte][][]byte{}
)

// UseFakeDevice moves w's objects to an emulated device heap (see
// fakeDevice). Every PE of an in-process job must call it first thing,
// before allocating. Tests only.
func UseFakeDevice(w *World) error {
	probe, err := w.alloc.Alloc(64, 64)
	if err != nil {
		return err
	}
	if _, err := w.alloc.Free(probe); err != nil {
		return err
	}
	key := &w.tr.Mapped(0)[0]
	fakeMu.Lock()
	mem := fakeMems[key]
	if len(mem) != w.npes || uint64(len(mem[0])) != w.opts.SymmetricSize {
		mem = make([][]byte, w.npes)
		for i := range mem {
			mem[i] = make([]byte, w.opts.SymmetricSize)
		}
		fakeMems[key] = mem
	}
	fakeMu.Unlock()
	w.setTransport(&fakeDevice{host: w.tr, limit: probe, mem: mem})
	return nil
}

func (f *fakeDevice) Mapped(int) []byte { return nil }

func (f *fakeDevice) Put(pe int, off uint64, src []byte) error {
	if off < f.limit {
		return f.host.Put(pe, off, src)
	}
	fakeMu.Lock()
	copy(f.mem[pe][off:], src)
	fakeMu.Unlock()
	f.host.Notify(pe)
	return nil
}

func (f *fakeDevice) PutNBI(pe int, off uint64, src []byte) error { return f.Put(pe, off, src) }

func (f *fakeDevice) Get(pe int, off uint64, dst []byte) error {
	if off < f.limit {
		return f.host.Get(pe, off, dst)
	}
	fakeMu.Lock()
	copy(dst, f.mem[pe][off:])
	fakeMu.Unlock()
	return nil
}

func (f *fakeDevice) GetNBI(pe int, off uint64, dst []byte) error { return f.Get(pe, off, dst) }

func (f *fakeDevice) Atomic(pe int, off uint64, width int, op transport.AtomicOp, operand, compare uint64) (uint64, error) {
	if off < f.limit {
		return f.host.Atomic(pe, off, width, op, operand, compare)
	}
	return 0, errf(ErrUnsupported, "atomics on the fake device heap")
}

func (f *fakeDevice) Notify(pe int) { f.host.Notify(pe) }
func (f *fakeDevice) Fence() error  { return f.host.Fence() }
func (f *fakeDevice) Quiet() error  { return f.host.Quiet() }
func (f *fakeDevice) Close() error  { return f.host.Close() }
