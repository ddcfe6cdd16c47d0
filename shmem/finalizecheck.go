package shmem

import (
	"errors"
	"sync"
)

// Layers above the core hold work that Finalize would cut short (a stream
// still waiting for a signal): they register a check, and Finalize reports
// what the checks find instead of ending that work silently. The checks
// live beside the World rather than in it so that the core knows nothing
// of the layers.
var finalizeChecks struct {
	mu   sync.Mutex
	next uint64
	by   map[*World]map[uint64]func() error
}

// AtFinalize registers check, which Finalize calls before it finalizes:
// a non-nil error is returned by Finalize (joined with any other), which
// still finalizes the World. remove unregisters check; call it when the
// work it watches is over (a stream's Close).
func (w *World) AtFinalize(check func() error) (remove func()) {
	f := &finalizeChecks
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.by == nil {
		f.by = map[*World]map[uint64]func() error{}
	}
	if f.by[w] == nil {
		f.by[w] = map[uint64]func() error{}
	}
	f.next++
	id := f.next
	f.by[w][id] = check
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		delete(f.by[w], id)
		if len(f.by[w]) == 0 {
			delete(f.by, w)
		}
	}
}

// runFinalizeChecks calls and forgets w's checks.
func (w *World) runFinalizeChecks() error {
	f := &finalizeChecks
	f.mu.Lock()
	checks := f.by[w]
	delete(f.by, w)
	f.mu.Unlock()
	var errs []error
	for _, c := range checks {
		errs = append(errs, c())
	}
	return errors.Join(errs...)
}
