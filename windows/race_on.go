//go:build race

package windows

import (
	"runtime"
	"unsafe"
)

// rmaToken is where the race detector learns the order of RMA between
// goroutine PEs: a window of Go memory (MPI_Win_create, dynamic
// attachments) is written by peers' plain copies, ordered by the
// window's synchronization, which goes through shared words the detector
// does not see. Each copy into a peer's memory releases the token and
// each synchronization call (and each copy out) acquires it, so the
// detector sees what MPI's epochs guarantee. Race builds only.
var rmaToken byte

func raceWrote()  { runtime.RaceRelease(unsafe.Pointer(&rmaToken)) }
func raceSynced() { runtime.RaceAcquire(unsafe.Pointer(&rmaToken)) }
