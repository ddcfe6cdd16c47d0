package guard

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// DefaultInterval is how often a listener under a flood of refusals says
// how many it refused.
const DefaultInterval = 10 * time.Second

// maxReasons bounds the distinct reasons one summary names; reasons often
// carry a number (a claimed rank), and a hostile peer could vary it.
const maxReasons = 8

// Refusals reports refused connections at a bounded rate: the first one
// after a quiet interval is logged at once with its source and reason, the
// rest as one line per interval with their count and reasons. It never
// goes silent for good, so a long attack stays visible.
type Refusals struct {
	what     string
	logf     func(format string, args ...any)
	interval time.Duration

	mu      sync.Mutex
	timer   *time.Timer // non-nil while an interval is open
	count   int
	reasons map[string]int
	closed  bool
}

// NewRefusals logs through logf, naming the listener as what (e.g. "tcp
// transport"); interval <= 0 means DefaultInterval.
func NewRefusals(what string, logf func(format string, args ...any), interval time.Duration) *Refusals {
	if interval <= 0 {
		interval = DefaultInterval
	}
	if logf == nil {
		logf = func(string, ...any) {}
	}
	return &Refusals{what: what, logf: logf, interval: interval, reasons: map[string]int{}}
}

// Refuse records one refused connection from from (an address, or "" where
// the listener has none to give).
func (r *Refusals) Refuse(from, reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	if r.timer == nil {
		src := ""
		if from != "" {
			src = " from " + from
		}
		r.logf("%s: refused a connection%s: %s", r.what, src, reason)
		r.timer = time.AfterFunc(r.interval, r.tick)
		return
	}
	r.count++
	if _, ok := r.reasons[reason]; !ok && len(r.reasons) >= maxReasons {
		reason = "other reasons"
	}
	r.reasons[reason]++
}

func (r *Refusals) tick() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	if r.count == 0 {
		r.timer = nil // quiet: the next refusal is logged at once
		return
	}
	r.flushLocked()
	r.timer = time.AfterFunc(r.interval, r.tick)
}

func (r *Refusals) flushLocked() {
	keys := make([]string, 0, len(r.reasons))
	for k := range r.reasons {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if r.reasons[keys[i]] != r.reasons[keys[j]] {
			return r.reasons[keys[i]] > r.reasons[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s (%d)", k, r.reasons[k])
	}
	r.logf("%s: refused %d more connection(s) in the last %v: %s", r.what, r.count, r.interval, strings.Join(parts, "; "))
	r.count = 0
	clear(r.reasons)
}

// Close logs what is still counted and stops the timer.
func (r *Refusals) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	r.closed = true
	if r.timer != nil {
		r.timer.Stop()
	}
	if r.count > 0 {
		r.flushLocked()
	}
}
