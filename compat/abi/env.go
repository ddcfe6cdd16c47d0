package main

/*
#include "abi.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/shmem"
)

// The environment: MPI_Init and MPI_Finalize, versions, thread levels,
// MPI_Abort. One compat.Env per process, made by MPI_Init.

var env struct {
	mu        sync.Mutex
	e         *compat.Env
	world     *commObj
	self      *commObj
	finalized bool
}

// global is abi_global, the state the C side reads (state.h).
var global = (*globalState)(unsafe.Pointer(&C.abi_global))

// providedLevel is the thread level the layer gives: compat takes calls
// from several threads but blocking calls from one at a time.
const providedLevel = C.MPI_THREAD_SERIALIZED

// worldRank is this process's rank in MPI_COMM_WORLD, -1 before MPI_Init.
func worldRank() int {
	if w := global.CommWorld; w != nil && global.Initialized != 0 {
		return int(w.Rank)
	}
	return -1
}

// abortJob ends the whole job with code, as MPI_Abort does.
func abortJob(code int) {
	env.mu.Lock()
	e := env.e
	env.mu.Unlock()
	if e != nil && !env.finalized {
		e.Abort(code) // tells the launcher, then exits
	}
	os.Exit(code)
}

// initialize raises its error only after it let env.mu go: the fatal
// handler's abortJob takes env.mu too, and a failed MPI_Init under
// MPI_ERRORS_ARE_FATAL used to hang there instead of ending the job.
func initialize(call string, required C.int, provided *C.int) C.int {
	code, err := initLocked(required, provided)
	if err != nil {
		if !strings.HasPrefix(err.Error(), "MPI_ERR") {
			err = fmt.Errorf("%s: %w", classText[code], err)
		}
		return raise(C.ABI_KIND_COMM, 0, code, call, err)
	}
	return C.MPI_SUCCESS
}

func initLocked(required C.int, provided *C.int) (C.int, error) {
	env.mu.Lock()
	defer env.mu.Unlock()
	if global.Initialized != 0 || env.finalized {
		return C.MPI_ERR_OTHER, errors.New(classText[C.MPI_ERR_OTHER] + ": MPI is already initialized (or finalized)")
	}
	if env.e == nil { // a session may have brought it up already (session.go)
		if code, err := bringUpLocked(); err != nil {
			return code, err
		}
	}
	level := required
	if level > providedLevel {
		level = providedLevel
	}
	if level < C.MPI_THREAD_SINGLE {
		level = C.MPI_THREAD_SINGLE
	}
	global.ThreadLevel = int32(level)
	if provided != nil {
		*provided = level
	}
	global.Initialized = 1
	fillInfoEnv() // thread_level now known
	return C.MPI_SUCCESS, nil
}

// bringUpLocked makes the process's compat.Env and the predefined
// communicators, for MPI_Init or the first MPI_Session_init; env.mu is held.
func bringUpLocked() (C.int, error) {
	// After gshmem_init, MPI runs on the World it made: one job, one heap.
	var e *compat.Env
	var err error
	if w := shmOwnWorld(); w != nil {
		e, err = compat.New(w)
	} else {
		e, err = compat.Init(context.Background())
	}
	if err != nil {
		return codeOf(err), err
	}
	if err := threadWaits(e.World()); err != nil {
		_ = e.Finalize()
		return codeOf(err), err
	}
	if err := defineEmptyGroup(e.CommWorld()); err != nil {
		_ = e.Finalize()
		return codeOf(err), err
	}
	env.e = e
	env.world = newCommObj(e.CommWorld(), 0x101)
	env.self = newCommObj(e.CommSelf(), 0x102)
	global.CommWorld = env.world.cs
	global.CommSelf = env.self.cs
	global.ThreadLevel = C.MPI_THREAD_SINGLE
	// rma.c's hot paths take the Go path, which reports the loss, once a
	// peer is lost or finalized (the transport's own fast paths' word).
	if d := e.World().DownWord(); d != nil {
		global.Down = d
	}
	// rma.c's hot paths stop when the job ends under them (a lost peer,
	// an abort), so that the Go path reports it.
	go func(done <-chan struct{}) {
		<-done
		atomic.StoreInt32(&global.Aborted, 1)
	}(e.World().Context().Done())
	envLive.Store(true)
	fillInfoEnv() // infoenv.go
	return C.MPI_SUCCESS, nil
}

// threadWaits adapts the World's wait policy to waits that run on C
// threads. A call into the library runs Go on the caller's own thread, and
// the goroutine of such a callback is locked to it: runtime.Gosched, which
// the policy's spin calls every few thousand polls to let the process's
// other goroutines run, then parks the thread and hands its P to another
// one, and the scheduler must wake both again before the wait resumes (tens
// of microseconds on a busy two-CPU host, against a poll's few
// nanoseconds). In osu_allreduce's loop (a barrier after every timed call)
// one PE's late return from such a yield made its peer's wait long enough
// to yield too, and the two took turns for hundreds of iterations at
// 50 us each. The library's other goroutines have the other Ps, so the
// spin polls without yielding; the sleep that ends a long wait, and a
// crowded node's sched_yield phase, stay as the policy chose them.
func threadWaits(w *shmem.World) error {
	p := w.WaitPolicy()
	p.YieldEvery = 1 << 30
	p.Yields = 0
	return w.SetWaitPolicy(p)
}

//export abigo_Init
func abigo_Init(argc *C.int, argv ***C.char) C.int {
	return initialize("MPI_Init", C.MPI_THREAD_SINGLE, nil)
}

//export abigo_Init_thread
func abigo_Init_thread(argc *C.int, argv ***C.char, required C.int, provided *C.int) C.int {
	if provided == nil {
		return failCode(0, "MPI_Init_thread", C.MPI_ERR_ARG, "provided is NULL")
	}
	switch required {
	case C.MPI_THREAD_SINGLE, C.MPI_THREAD_FUNNELED, C.MPI_THREAD_SERIALIZED, C.MPI_THREAD_MULTIPLE:
	default:
		return failCode(0, "MPI_Init_thread", C.MPI_ERR_ARG, "required level %d is not a thread level", int(required))
	}
	return initialize("MPI_Init_thread", required, provided)
}

//export abigo_Initialized
func abigo_Initialized(flag *C.int) C.int {
	if flag == nil {
		return failCode(0, "MPI_Initialized", C.MPI_ERR_ARG, "flag is NULL")
	}
	*flag = C.int(global.Initialized)
	return C.MPI_SUCCESS
}

//export abigo_Finalized
func abigo_Finalized(flag *C.int) C.int {
	if flag == nil {
		return failCode(0, "MPI_Finalized", C.MPI_ERR_ARG, "flag is NULL")
	}
	*flag = C.int(global.Finalized)
	return C.MPI_SUCCESS
}

//export abigo_Finalize
func abigo_Finalize() C.int {
	env.mu.Lock()
	e := env.e
	if e == nil || env.finalized || global.Initialized == 0 || global.Finalized != 0 {
		env.mu.Unlock()
		return failCode(0, "MPI_Finalize", C.MPI_ERR_OTHER, "MPI is not initialized (or already finalized)")
	}
	env.mu.Unlock()
	if rc := deleteSelfAttrs(); rc != C.MPI_SUCCESS { // attr.go: first, while MPI works
		return failCode(0, "MPI_Finalize", rc, "a delete function of an MPI_COMM_SELF attribute failed")
	}
	flushAll()          // MPI_Finalize completes the buffered sends (bsend.go)
	if sessionsOpen() { // session.go: the last MPI_Session_finalize ends it
		global.Finalized = 1
		return C.MPI_SUCCESS
	}
	global.Finalized = 1
	if err := tearDown(e); err != nil {
		return failCode(0, "MPI_Finalize", codeOf(err), "%v", err)
	}
	return C.MPI_SUCCESS
}

// tearDown ends the process's compat.Env: at MPI_Finalize, or at the
// last MPI_Session_finalize after it (or without MPI_Init).
func tearDown(e *compat.Env) error {
	shmBeforeMPIFinalize(e.World())
	err := e.Finalize()
	env.mu.Lock()
	env.finalized = true
	env.mu.Unlock()
	envLive.Store(false)
	if err == nil {
		err = shmAfterMPIFinalize()
	}
	return err
}

//export abigo_Abort
func abigo_Abort(comm C.uintptr_t, code C.int) C.int {
	// MPI allows aborting only comm's processes; gshmem ends the whole job
	// whatever comm is, as most implementations do.
	fmt.Fprintf(os.Stderr, "gshmem MPI: MPI_Abort called by rank %d with error code %d\n", worldRank(), int(code))
	abortJob(int(code))
	return C.MPI_SUCCESS
}

//export abigo_Get_version
func abigo_Get_version(version, subversion *C.int) C.int {
	if version == nil || subversion == nil {
		return failCode(0, "MPI_Get_version", C.MPI_ERR_ARG, "NULL argument")
	}
	*version, *subversion = C.MPI_VERSION, C.MPI_SUBVERSION
	return C.MPI_SUCCESS
}

// libraryVersion is MPI_Get_library_version's string.
const libraryVersion = "gshmem libmpi_abi (MPI-5.0 standard ABI 1.0, over github.com/gshmem/gshmem compat and windows)"

//export abigo_Get_library_version
func abigo_Get_library_version(version *C.char, n *C.int) C.int {
	if version == nil || n == nil {
		return failCode(0, "MPI_Get_library_version", C.MPI_ERR_ARG, "NULL argument")
	}
	*n = putString(version, libraryVersion, C.MPI_MAX_LIBRARY_VERSION_STRING)
	return C.MPI_SUCCESS
}

//export abigo_Get_processor_name
func abigo_Get_processor_name(name *C.char, n *C.int) C.int {
	if name == nil || n == nil {
		return failCode(0, "MPI_Get_processor_name", C.MPI_ERR_ARG, "NULL argument")
	}
	h, err := os.Hostname()
	if err != nil {
		h = "localhost"
	}
	*n = putString(name, h, C.MPI_MAX_PROCESSOR_NAME)
	return C.MPI_SUCCESS
}

//export abigo_Query_thread
func abigo_Query_thread(provided *C.int) C.int {
	if provided == nil {
		return failCode(0, "MPI_Query_thread", C.MPI_ERR_ARG, "provided is NULL")
	}
	*provided = C.int(global.ThreadLevel)
	return C.MPI_SUCCESS
}

//export abigo_Abi_get_version
func abigo_Abi_get_version(major, minor *C.int) C.int {
	if major == nil || minor == nil {
		return failCode(0, "MPI_Abi_get_version", C.MPI_ERR_ARG, "NULL argument")
	}
	*major, *minor = C.MPI_ABI_VERSION, C.MPI_ABI_SUBVERSION
	return C.MPI_SUCCESS
}

// abiInfo is what MPI_Abi_get_info reports: the sizes of the ABI's
// integer types on this platform.
func abiInfo() compat.Info {
	return compat.Info{
		"mpi_aint_size":   fmt.Sprint(unsafe.Sizeof(C.MPI_Aint(0))),
		"mpi_count_size":  fmt.Sprint(unsafe.Sizeof(C.MPI_Count(0))),
		"mpi_offset_size": fmt.Sprint(unsafe.Sizeof(C.MPI_Offset(0))),
	}
}

//export abigo_Abi_get_info
func abigo_Abi_get_info(info *C.uintptr_t) C.int {
	if info == nil {
		return failCode(0, "MPI_Abi_get_info", C.MPI_ERR_ARG, "info is NULL")
	}
	*info = C.uintptr_t(newInfo(abiInfo()))
	return C.MPI_SUCCESS
}
