package main

/*
#include <stdlib.h>
#include "abi.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gshmem/gshmem/shmem"
)

// The symmetric heap's C host API (gshmem.h): its setup, heap and the
// state its C paths read (abi_shm, state.h). The job's World is one: MPI
// and gshmem share it whichever starts first, so a code that mixes MPI
// calls and gshmem calls sees one set of PEs and one heap.

var shm struct {
	mu        sync.Mutex
	w         *shmem.World
	own       bool // gshmem_init made w: gshmem_finalize (or MPI_Finalize after it) finalizes it
	finalized bool // gshmem_finalize has run
	probe     shmem.Sym[byte]
	sync      shmem.Sym[byte]            // the world's barrier words (abi_shm.sync), on a host heap
	objs      map[uint64]shmem.Sym[byte] // the live objects of gshmem_malloc, by offset
	list      []shmObj                   // the same, sorted by offset (published in abi_shm.objs)
	cur       unsafe.Pointer             // the C array behind abi_shm.objs
	cap       int                        // its entries
	retired   []unsafe.Pointer           // older C arrays a reader may still hold
	peers     []uintptr                  // C arrays behind abi_shm.peers and .bells
	bells     []uintptr
	teams     []*shmem.Team // by handle: world, shared, node, then gshmem_team_split_strided's
}

// shmC is abi_shm, the state the C side reads.
var shmC = (*shmState)(unsafe.Pointer(&C.abi_shm))

// shmCSpinMax bounds the polls of a wait in C (shm_wait, the active-set
// collectives' waits) before it goes to Go's wait, which polls on by the
// World's policy and then sleeps: some tens of microseconds, as p2p.c's
// receive spins, so that a word on its way is seen without the C->Go call
// and the Go wait's own setup, while a longer wait is the World's (its
// yields, sleeps and checks for a lost peer). A crowded node's policy
// spins less (a few polls), and so does C.
const shmCSpinMax = 1 << 14

// The handles of the predefined teams (gshmem.h).
const (
	teamWorld   = 0
	teamShared  = 1
	teamNode    = 2
	teamInvalid = ^uint64(0)
)

// shmPE is this PE for messages, -1 before init.
func shmPE() int {
	if shmC.NPEs != 0 {
		return int(shmC.MyPE)
	}
	return -1
}

//export abiint_shmem_fatal
func abiint_shmem_fatal(call, msg *C.char) {
	shmFatal(C.GoString(call), "%s", C.GoString(msg))
}

// shmFatal ends the job as NVSHMEM does on a bad argument: a message
// naming the call and the PE, then every process ends.
func shmFatal(call, format string, args ...any) {
	fmt.Fprintf(os.Stderr, "gshmem: %s: PE %d: %s\n", call, shmPE(), fmt.Sprintf(format, args...))
	if w := shmExit.Load(); w != nil {
		w.GlobalExit(1) // tells the launcher, then exits
	}
	os.Exit(1)
}

// shmExit is the World whose job shmFatal ends, read without shm.mu (a
// fatal error may come while it is held).
var shmExit atomic.Pointer[shmem.World]

//export abiint_shmem_global_exit
func abiint_shmem_global_exit(status C.int) {
	if w := shmExit.Load(); w != nil {
		w.GlobalExit(int(status))
	}
	os.Exit(int(status))
}

// mpiWorld is the World of MPI when MPI_Init has run and MPI_Finalize
// not, else nil.
func mpiWorld() *shmem.World {
	env.mu.Lock()
	defer env.mu.Unlock()
	if env.e == nil || env.finalized {
		return nil
	}
	return env.e.World()
}

// shmOwnWorld is the World gshmem_init made, for MPI_Init to run on (so
// that the job has one heap), or nil.
func shmOwnWorld() *shmem.World {
	shm.mu.Lock()
	defer shm.mu.Unlock()
	if shm.own && !shm.finalized {
		return shm.w
	}
	return nil
}

// shmBeforeMPIFinalize ends gshmem's use of MPI's World w when the code
// calls MPI_Finalize without gshmem_finalize first (NVSHMEM's order):
// MPI_Finalize unmaps the heap, so every gshmem call after it must stop
// at shm_ready's check rather than store into it.
func shmBeforeMPIFinalize(w *shmem.World) {
	shm.mu.Lock()
	defer shm.mu.Unlock()
	if shm.w == w && !shm.own && !shm.finalized {
		kernUnpublish()
		atomic.StoreInt32(&shmC.Initialized, 0)
		shmStaticRelease()
		shm.finalized, shm.w = true, nil
		shmExit.Store(nil)
	}
}

// shmAfterMPIFinalize finalizes the World gshmem_init made once both
// gshmem_finalize and MPI_Finalize have run, whichever came last.
func shmAfterMPIFinalize() error {
	shm.mu.Lock()
	defer shm.mu.Unlock()
	if shm.own && shm.finalized && shm.w != nil {
		w := shm.w
		shm.w = nil
		shmExit.Store(nil)
		return w.Finalize()
	}
	return nil
}

// abiint_shmem_init is gshmem_init (withComm 0) and gshmemx_init_attr with
// GSHMEMX_INIT_WITH_MPI_COMM (the communicator in comm). It returns 0, or
// 1 after printing why.
//
//export abiint_shmem_init
func abiint_shmem_init(withComm C.int, comm C.uintptr_t) C.int {
	call := "gshmem_init"
	if withComm != 0 {
		call = "gshmemx_init_attr"
	}
	refuse := func(format string, args ...any) C.int {
		fmt.Fprintf(os.Stderr, "gshmem: %s: %s\n", call, fmt.Sprintf(format, args...))
		return 1
	}
	mw := mpiWorld()
	if withComm != 0 {
		if mw == nil {
			return refuse("GSHMEMX_INIT_WITH_MPI_COMM needs MPI_Init first")
		}
		o, ok := lookup(uintptr(comm), C.ABI_KIND_COMM)
		if !ok {
			return refuse("attr->mpi_comm does not point to a valid communicator")
		}
		c := o.val.(*commObj).c
		if c.Size() != mw.NPEs() {
			return refuse("the communicator has %d of the job's %d processes: the symmetric heap runs on every process of MPI_COMM_WORLD (pass MPI_COMM_WORLD, or make teams with gshmem_team_split_strided)", c.Size(), mw.NPEs())
		}
		for p := range mw.NPEs() {
			if c.RankOf(p) != p {
				return refuse("the communicator orders the processes unlike MPI_COMM_WORLD: PEs are numbered as MPI_COMM_WORLD's ranks (pass MPI_COMM_WORLD)")
			}
		}
	}
	return shmStart(call, mw, nil)
}

// shmStart makes the heap's World: mw (MPI_Init's) where there is one,
// else a World of its own, joined with shmHeapOptions and extra. It
// returns 0, or 1 after printing why.
func shmStart(call string, mw *shmem.World, extra []shmem.Option) C.int {
	refuse := func(format string, args ...any) C.int {
		fmt.Fprintf(os.Stderr, "gshmem: %s: %s\n", call, fmt.Sprintf(format, args...))
		return 1
	}
	shm.mu.Lock()
	defer shm.mu.Unlock()
	if shm.finalized {
		return refuse("gshmem_finalize has run: the heap cannot be initialized again")
	}
	if shm.w != nil {
		return 0 // already initialized: as NVSHMEM, a second init does nothing
	}
	w, own := mw, false
	if w == nil {
		var err error
		if w, err = shmem.Init(context.Background(), append(shmHeapOptions(), extra...)...); err != nil {
			return refuse("%v", err)
		}
		own = true
	} else {
		if err := shmLateSize(w); err != nil {
			return refuse("%v", err)
		}
		shmNoteHostHeap(call, w)
	}
	if err := shmNoteNVSHMEM(call, w.MyPE()); err != nil {
		if own {
			_ = w.Finalize()
		}
		return refuse("%v", err)
	}
	if err := shmSetup(w); err != nil {
		if own {
			_ = w.Finalize()
		}
		return refuse("%v", err)
	}
	shm.w, shm.own = w, own
	shmExit.Store(w)
	go func(done <-chan struct{}) {
		<-done
		atomic.StoreInt32(&shmC.Aborted, 1)
	}(w.Context().Done())
	atomic.StoreInt32(&shmC.Initialized, 1)
	if err := kernPublish(w); err != nil {
		shmFatal(call, "%v", err)
	}
	return 0
}

// shmLateSize checks GSHMEM_SYMMETRIC_SIZE (or NVSHMEM's
// NVSHMEM_SYMMETRIC_SIZE) as C sees it against the heap
// MPI_Init made: NVSHMEM programs set it (setenv) between MPI_Init and
// gshmemx_init_attr, NVIDIA's Jacobi among them, and Go's copy of the
// environment, taken when the library loaded, never shows that. A size
// the heap holds is met; a larger one is refused with the fix, since the
// heap cannot grow.
func shmLateSize(w *shmem.World) error {
	var v *C.char
	var from string
	for _, from = range []string{"GSHMEM_SYMMETRIC_SIZE", "NVSHMEM_SYMMETRIC_SIZE"} {
		name := C.CString(from)
		v = C.getenv(name)
		C.free(unsafe.Pointer(name))
		if v != nil {
			break
		}
	}
	if v == nil {
		return nil
	}
	s := C.GoString(v)
	n, err := shmem.ParseSize(s)
	if err != nil {
		return fmt.Errorf("%s=%q: %w", from, s, err)
	}
	if have := w.Options().SymmetricSize; n > have {
		return fmt.Errorf("%s=%s asks for %d bytes of heap, but MPI_Init made it with %d: set the size in the job's environment, before MPI_Init", from, s, n, have)
	}
	return nil
}

// shmSetup allocates the probe object (which tells where each PE's heap
// is mapped here) and publishes abi_shm. shm.mu is held.
func shmSetup(w *shmem.World) error {
	probe, err := shmem.Alloc[byte](w, 64)
	if err != nil {
		return err
	}
	local := probe.Local()
	if local == nil && !w.HeapOnDevice() {
		_ = shmem.Free(probe)
		return fmt.Errorf("the symmetric heap has no host view")
	}
	n := w.NPEs()
	peers := C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(uintptr(0))))
	bells := C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(uintptr(0))))
	if peers == nil || bells == nil {
		C.free(peers)
		C.free(bells)
		_ = shmem.Free(probe)
		return fmt.Errorf("out of memory")
	}
	shm.probe = probe
	shm.objs = map[uint64]shmem.Sym[byte]{}
	shm.list = nil
	shm.teams = []*shmem.Team{w.TeamWorld(), w.TeamShared(), w.TeamShared()}
	shm.peers = unsafe.Slice((*uintptr)(peers), n)
	shm.bells = unsafe.Slice((*uintptr)(bells), n)
	shmC.MyPE, shmC.NPEs = int32(w.MyPE()), int32(n)
	shmC.Peers, shmC.Bells = uintptr(peers), uintptr(bells)
	shmC.Spin = int64(min(max(w.WaitPolicy().Spin, 1), shmCSpinMax))
	shmC.Objs, shmC.NObjs = 0, 0
	if w.HeapOnDevice() {
		return shmSetupDevice(w)
	}
	shmC.Base = uintptr(unsafe.Pointer(&local[0])) - uintptr(probe.Offset())
	// The world's barrier words (gshmem_sync.c): an object of the heap, so
	// that C's atomics and waits find them as they find the program's.
	sync, err := shmem.Calloc[byte](w, C.ABI_SHM_SYNC_WORDS*8)
	if err != nil {
		_ = shmem.Free(probe)
		return fmt.Errorf("the barrier's words: %w", err)
	}
	shm.sync = sync
	shm.objs[sync.Offset()] = sync
	shmPublish([]shmObj{{Off: sync.Offset(), Size: uint64(sync.Len())}})
	shmMapPeers(w)
	shmC.Sync = shmC.Base + uintptr(sync.Offset())
	return nil
}

// shmMapPeers publishes the heaps of PEs mapped here that were not yet
// (a transport may map a peer's heap late); C reads peers[p] with
// acquire, so the bell is there first. A device heap maps none.
func shmMapPeers(w *shmem.World) {
	if w.HeapOnDevice() {
		return
	}
	for p := range shm.peers {
		if atomic.LoadUintptr(&shm.peers[p]) != 0 {
			continue
		}
		m := shmem.Ptr(shm.probe, p)
		bell := w.Mapped(p).Doorbell()
		if m == nil || bell == nil {
			continue
		}
		shm.bells[p] = uintptr(bell)
		atomic.StoreUintptr(&shm.peers[p], uintptr(unsafe.Pointer(&m[0]))-uintptr(shm.probe.Offset()))
	}
}

//export abiint_shmem_finalize
func abiint_shmem_finalize() {
	shm.mu.Lock()
	w := shm.w
	if w == nil || shm.finalized {
		shm.mu.Unlock()
		return
	}
	shm.mu.Unlock()
	// Every PE's operations complete before any PE's heap goes.
	if err := w.BarrierAll(); err != nil {
		shmFatal("gshmem_finalize", "%v", err)
	}
	shm.mu.Lock()
	kernUnpublish()
	atomic.StoreInt32(&shmC.Initialized, 0)
	shmStaticRelease()
	for _, t := range shm.teams[teamNode+1:] {
		if t != nil {
			_ = t.Destroy()
		}
	}
	shm.teams = nil
	shmC.Sync = 0
	err := shmem.Free(shm.probe)
	if shm.sync.Len() > 0 {
		err = errors.Join(err, shmem.Free(shm.sync))
		shm.sync = shmem.Sym[byte]{}
	}
	shmPublish(nil)
	for _, p := range shm.retired {
		C.free(p)
	}
	shm.retired = nil
	C.free(shm.cur)
	shm.cur, shm.cap = nil, 0
	shmC.Objs, shmC.NObjs = 0, 0
	shmC.Peers, shmC.Bells = 0, 0
	shmFinalizeDevice()
	C.free(unsafe.Pointer(unsafe.SliceData(shm.peers)))
	C.free(unsafe.Pointer(unsafe.SliceData(shm.bells)))
	shm.peers, shm.bells, shm.objs = nil, nil, nil
	shm.finalized = true
	own := shm.own
	shm.mu.Unlock()
	if err != nil {
		shmFatal("gshmem_finalize", "%v", err)
	}
	if !own || mpiWorld() == w {
		return // MPI's World, or MPI still runs on ours: MPI_Finalize ends it
	}
	shm.mu.Lock()
	shm.w = nil
	shm.mu.Unlock()
	shmExit.Store(nil)
	if err := w.Finalize(); err != nil {
		fmt.Fprintf(os.Stderr, "gshmem: gshmem_finalize: %v\n", err)
	}
}

// shmPublish writes list as abi_shm.objs under the seqlock. shm.mu is
// held. The C array grows by doubling; an outgrown one is kept until
// gshmem_finalize, since a C reader may still hold it.
func shmPublish(list []shmObj) {
	atomic.AddUint64(&shmC.Seq, 1) // odd: readers wait
	if len(list) > shm.cap {
		c := max(2*shm.cap, 16, len(list))
		p := C.calloc(C.size_t(c), C.size_t(unsafe.Sizeof(shmObj{})))
		if p == nil {
			atomic.AddUint64(&shmC.Seq, 1)
			shmFatal("gshmem_malloc", "out of memory for the object list")
		}
		if shm.cur != nil {
			shm.retired = append(shm.retired, shm.cur)
		}
		shm.cur, shm.cap = p, c
		shmC.Objs = uintptr(p)
	}
	if shm.cap > 0 {
		copy(unsafe.Slice((*shmObj)(shm.cur), shm.cap), list)
	}
	shmC.NObjs = int64(len(list))
	shm.list = list
	atomic.AddUint64(&shmC.Seq, 1)
}

// abiint_shmem_alloc is gshmem_malloc, calloc and align: collective. It
// returns the object's address, or 0 (NULL) for size 0 or when the heap
// has no room or the PEs disagree (shmem's error), as NVSHMEM.
//
//export abiint_shmem_alloc
func abiint_shmem_alloc(call *C.char, size, align C.size_t, zero C.int) C.uintptr_t {
	shm.mu.Lock()
	w := shm.w
	shm.mu.Unlock()
	var s shmem.Sym[byte]
	var err error
	switch {
	case align != 0:
		if align&(align-1) != 0 {
			shmFatal(C.GoString(call), "alignment %d is not a power of two", uint64(align))
		}
		s, err = shmem.Align[byte](w, uint64(align), int(size))
	case zero != 0:
		s, err = shmem.Calloc[byte](w, int(size))
	default:
		s, err = shmem.Alloc[byte](w, int(size))
	}
	if err != nil {
		if os.Getenv("GSHMEM_DEBUG") != "" {
			fmt.Fprintf(os.Stderr, "gshmem: %s: PE %d: %v\n", C.GoString(call), shmPE(), err)
		}
		return 0
	}
	if size == 0 {
		// NULL, as OpenSHMEM says, after the collective allocation all
		// the same: a PE that asked for 0 while the others asked for
		// more makes every PE's call fail (size mismatch), not hang.
		shmCheck(C.GoString(call), shmem.Free(s))
		return 0
	}
	return shmHandOut(w, s)
}

// abiint_shmem_free is gshmem_free: collective; NULL does nothing.
//
//export abiint_shmem_free
func abiint_shmem_free(ptr C.uintptr_t) {
	if ptr == 0 {
		return
	}
	shm.mu.Lock()
	off := uint64(uintptr(ptr) - shmC.Base)
	s, ok := shm.objs[off]
	shm.mu.Unlock()
	if !ok || uintptr(ptr) < shmC.Base {
		shmFatal("gshmem_free", "%#x is not an object of gshmem_malloc (or was freed)", uintptr(ptr))
	}
	shmTrack(s, false)
	if err := shmem.Free(s); err != nil {
		shmFatal("gshmem_free", "%v", err)
	}
}

// abiint_shmem_realloc is gshmem_realloc of a live object to size > 0
// bytes: collective, shmem's Realloc (the contents kept, the old object
// freed). NULL when the heap has no room; the old object then stays.
//
//export abiint_shmem_realloc
func abiint_shmem_realloc(ptr C.uintptr_t, size C.size_t) C.uintptr_t {
	shm.mu.Lock()
	off := uint64(uintptr(ptr) - shmC.Base)
	s, ok := shm.objs[off]
	w := shm.w
	shm.mu.Unlock()
	if !ok || uintptr(ptr) < shmC.Base {
		shmFatal("gshmem_realloc", "%#x is not an object of gshmem_malloc (or was freed)", uintptr(ptr))
	}
	// The C paths must not use the old object while shmem moves it:
	// it leaves the list first, and comes back if Realloc fails.
	shmTrack(s, false)
	n, err := shmem.Realloc(s, int(size))
	if err != nil {
		shmTrack(s, true)
		if os.Getenv("GSHMEM_DEBUG") != "" {
			fmt.Fprintf(os.Stderr, "gshmem: gshmem_realloc: PE %d: %v\n", shmPE(), err)
		}
		return 0
	}
	return shmHandOut(w, n)
}

// shmHandOut publishes a new object to C (the object list, and any peer
// heap a transport mapped since) and returns its address for the caller.
func shmHandOut(w *shmem.World, s shmem.Sym[byte]) C.uintptr_t {
	shmTrack(s, true)
	shm.mu.Lock()
	shmMapPeers(w)
	shm.mu.Unlock()
	return C.uintptr_t(shmC.Base + uintptr(s.Offset()))
}

// shmTrack adds s to the objects (add) or takes it out, for Go and C.
func shmTrack(s shmem.Sym[byte], add bool) {
	shm.mu.Lock()
	defer shm.mu.Unlock()
	list := make([]shmObj, 0, len(shm.list)+1)
	for _, o := range shm.list {
		if o.Off != s.Offset() {
			list = append(list, o)
		}
	}
	delete(shm.objs, s.Offset())
	if add {
		shm.objs[s.Offset()] = s
		i := sort.Search(len(list), func(i int) bool { return list[i].Off > s.Offset() })
		list = append(list[:i], append([]shmObj{{Off: s.Offset(), Size: uint64(s.Len())}}, list[i:]...)...)
	}
	shmPublish(list)
}

// shmObjAt is the object at offset obj (C found it) and its bytes
// [off, off+n) as a Sym.
func shmObjAt(call string, obj, off uint64, n int) shmem.Sym[byte] {
	shm.mu.Lock()
	s, ok := shm.objs[obj]
	shm.mu.Unlock()
	if !ok {
		shmFatal(call, "the object at heap offset %#x was freed", obj)
	}
	lo := int(off - obj)
	return s.Slice(lo, lo+n)
}

// shmLocateRest is shmLocate of the bytes from addr to the end of its
// object (a collect's dest, whose size only the collective knows).
func shmLocateRest(call, what string, addr uintptr) shmem.Sym[byte] {
	addr = shmStaticAddr(addr)
	shm.mu.Lock()
	base, list := shmC.Base, shm.list
	shm.mu.Unlock()
	if addr >= base {
		off := uint64(addr - base)
		i := sort.Search(len(list), func(i int) bool { return list[i].Off > off }) - 1
		if i >= 0 && off-list[i].Off < list[i].Size {
			return shmObjAt(call, list[i].Off, off, int(list[i].Size-(off-list[i].Off)))
		}
	}
	shmFatal(call, "%s %#x is not symmetric on this PE (inside no object of the heap, nor a global shmem_init made symmetric)", what, addr)
	return shmem.Sym[byte]{}
}

// shmLocate finds addr's n bytes among the objects, for the Go-only calls
// (collectives), or ends the job naming what.
func shmLocate(call, what string, addr uintptr, n int) shmem.Sym[byte] {
	addr = shmStaticAddr(addr)
	shm.mu.Lock()
	base, list := shmC.Base, shm.list
	shm.mu.Unlock()
	if addr >= base {
		off := uint64(addr - base)
		i := sort.Search(len(list), func(i int) bool { return list[i].Off > off }) - 1
		if i >= 0 && off-list[i].Off < list[i].Size && uint64(n) <= list[i].Size-(off-list[i].Off) {
			return shmObjAt(call, list[i].Off, off, n)
		}
	}
	shmFatal(call, "%s %#x (%d bytes) is not symmetric on this PE (inside no object of the heap, nor a global shmem_init made symmetric)", what, addr, n)
	return shmem.Sym[byte]{}
}
