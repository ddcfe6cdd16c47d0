package streams

import (
	"sync"

	"github.com/gshmem/gshmem/shmem"
)

// A PE's collective calls share state in its World (barrier epochs,
// allocation sequence) and must not run at the same time. Collectives issued
// on different streams of one PE, or from kernels, are serialized by the
// World's own lock (shmem.World.CollectiveLock). This keeps the World's
// state intact; it does not make PEs that issue collectives in different
// orders agree (that is still the caller's job, as on the host).

// CollectiveLock returns the lock that serializes the collective
// operations issued by streams and kernels on w's PE: w's own
// (w.CollectiveLock). Code that runs its own collectives on a stream
// (Enqueue) should hold it while they run.
func CollectiveLock(w *shmem.World) *sync.Mutex { return w.CollectiveLock() }

func collective(w *shmem.World, fn func() error) error {
	mu := w.CollectiveLock()
	mu.Lock()
	defer mu.Unlock()
	return fn()
}
