// Package bootstrap sets a job up: it tells a PE its rank and the job's size
// and gives it the few slow collectives (allgather, barrier) needed to find
// its peers. It is used only during setup and teardown; the data path never
// touches it. Implementations: inproc (goroutines of one process), local
// (processes started by `gshmem run`) and singleton (a program started
// without a launcher is a job of one PE).
package bootstrap

import (
	"context"
	"errors"
)

// ErrAborted reports that the job was stopped by a global exit or a failure.
var ErrAborted = errors.New("bootstrap: job aborted")

// Bootstrap is the seam between the runtime and whatever started the PEs.
type Bootstrap interface {
	// Name says which implementation this is ("inproc", "local", ...).
	Name() string
	Rank() int
	Size() int
	// LocalRank and LocalSize place this PE among the PEs of its node.
	LocalRank() int
	LocalSize() int
	// Allgather returns every PE's data, indexed by rank. Lengths may differ.
	Allgather(ctx context.Context, data []byte) ([][]byte, error)
	// Barrier returns when every PE has entered it.
	Barrier(ctx context.Context) error
	// Abort stops the whole job with the exit code. Other PEs see their
	// pending and future bootstrap calls fail with ErrAborted (inproc) or
	// are terminated by the launcher (processes).
	Abort(code int, msg string) error
	// Close leaves the job.
	Close() error
}
