package streams

import (
	"runtime"
	"sync"
	"weak"

	"github.com/gshmem/gshmem/shmem"
)

// A PE's collective calls share state in its World (barrier epochs,
// allocation sequence) and must not run at the same time. Collectives issued
// on different streams of one PE, or from kernels, are serialized by one
// lock per World. This keeps the World's state intact; it does not make
// PEs that issue collectives in different orders agree (that is still the
// caller's job, as on the host).
var collectiveLocks sync.Map // weak.Pointer[shmem.World] -> *sync.Mutex

// CollectiveLock returns the lock that serializes the collective
// operations issued by streams and kernels on w's PE. Code that runs its own
// collectives on a stream (Enqueue) should hold it while they run.
func CollectiveLock(w *shmem.World) *sync.Mutex {
	key := weak.Make(w)
	if m, ok := collectiveLocks.Load(key); ok {
		return m.(*sync.Mutex)
	}
	m, loaded := collectiveLocks.LoadOrStore(key, new(sync.Mutex))
	if !loaded {
		runtime.AddCleanup(w, func(k weak.Pointer[shmem.World]) { collectiveLocks.Delete(k) }, key)
	}
	return m.(*sync.Mutex)
}

func collective(w *shmem.World, fn func() error) error {
	mu := CollectiveLock(w)
	mu.Lock()
	defer mu.Unlock()
	return fn()
}
