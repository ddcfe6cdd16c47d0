package windows

import "github.com/gshmem/gshmem/internal/racesync"

// raceWrote and raceSynced tell the race detector the order of RMA
// between goroutine PEs: a window of Go memory (MPI_Win_create, dynamic
// attachments) is written by peers' plain copies, ordered by the
// window's synchronization, which goes through shared words the detector
// does not see. Each copy into a peer's memory releases the process's
// token and each synchronization call (and each copy out) acquires it,
// so the detector sees what MPI's epochs guarantee. Empty outside race
// builds.
func raceWrote()  { racesync.Release() }
func raceSynced() { racesync.Acquire() }
