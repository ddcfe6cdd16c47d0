package launcher

import (
	"bytes"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// lockedWriter serialises writers that share one mutex, so that a line
// from one PE is never split by another PE's output or a launcher message.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Bounds on waiting for a PE's output after the PE has exited. A pipe stays
// open while any process holds its write end, e.g. a background child of
// the PE; waiting for those forever would keep the job from ending.
var (
	drainIdle = 300 * time.Millisecond // blocked in read this long: nothing more is coming from the PE
	drainMax  = 5 * time.Second        // at most 64 KiB was buffered in the pipe at exit
)

// drain copies one PE stream from a pipe to its destination.
type drain struct {
	r         *os.File
	done      chan struct{}
	readSince atomic.Int64 // unix nanoseconds the pending Read began; 0 outside Read
}

// startDrain returns the write end to hand to the child; the caller closes
// its own copy once the child has started.
func startDrain(dst io.Writer, prefix []byte) (*os.File, *drain, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	d := &drain{r: r, done: make(chan struct{})}
	go d.run(dst, prefix)
	return w, d, nil
}

func (d *drain) read(buf []byte) (int, error) {
	d.readSince.Store(time.Now().UnixNano())
	n, err := d.r.Read(buf)
	d.readSince.Store(0)
	return n, err
}

func (d *drain) run(dst io.Writer, prefix []byte) {
	defer close(d.done)
	defer d.r.Close()
	buf := make([]byte, 32<<10)
	if prefix == nil {
		for {
			n, err := d.read(buf)
			if n > 0 {
				dst.Write(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}
	copyLines(dst, prefix, d.read, buf)
}

// maxLine bounds the memory of a line without a newline; longer lines are
// emitted in pieces, each with its own prefix.
const maxLine = 1 << 20

// copyLines writes every complete line with prefix, batching the lines of
// one read into one Write. A final unterminated line gets a newline so the
// next PE's prefix starts a line.
func copyLines(dst io.Writer, prefix []byte, read func([]byte) (int, error), buf []byte) {
	var pending, out []byte
	for {
		n, err := read(buf)
		data := buf[:n]
		out = out[:0]
		for len(data) > 0 {
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				pending = append(pending, data...)
				break
			}
			out = append(out, prefix...)
			out = append(out, pending...)
			out = append(out, data[:i+1]...)
			pending, data = pending[:0], data[i+1:]
		}
		if len(pending) >= maxLine || (err != nil && len(pending) > 0) {
			out = append(append(append(out, prefix...), pending...), '\n')
			pending = pending[:0]
		}
		if len(out) > 0 {
			dst.Write(out)
		}
		if err != nil {
			return
		}
	}
}

// finish waits for the copy to end after the PE exited at exited, cutting
// it off once the pipe stays idle or drainMax has passed.
func (d *drain) finish(exited time.Time) {
	tick := time.NewTicker(drainIdle / 6)
	defer tick.Stop()
	for {
		select {
		case <-d.done:
			return
		case now := <-tick.C:
			since := d.readSince.Load()
			idle := since != 0 && now.Sub(later(time.Unix(0, since), exited)) > drainIdle
			if idle || now.Sub(exited) > drainMax {
				d.r.SetReadDeadline(now)
				<-d.done
				return
			}
		}
	}
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
