package shmem

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Copies between a PE's heap file and the pages AdoptPages and ReturnPages
// move. Through the heap's mapping, a copy into pages the heap never had
// first makes the kernel allocate and clear each one (a fault, or
// MADV_POPULATE_WRITE) and then writes it again; through the memfd itself,
// pwrite allocates a page it fills whole without clearing it, one pass
// instead of two, and SEEK_DATA names the pages a range really holds (a
// page swapped out counts), so that a copy back skips the holes. A
// process PE's heap file stays open while it lives (the transport hands
// it to peers that ask); a goroutine PE's is closed once mapped, and
// those copies go through the mapping.

// heapFile returns a descriptor of this PE's heap file open in this
// process, found by the device and inode its mapping shows, or -1.
func (w *World) heapFile() int {
	if !w.heapShared || len(w.heap) == 0 {
		return -1
	}
	raw, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return -1
	}
	base := uint64(uintptr(unsafe.Pointer(&w.heap[0])))
	var dev, ino uint64
	found := false
	for _, line := range bytes.Split(raw, []byte{'\n'}) {
		f := bytes.Fields(line)
		if len(f) < 5 {
			continue
		}
		rng := bytes.SplitN(f[0], []byte{'-'}, 2)
		lo, _ := strconv.ParseUint(string(rng[0]), 16, 64)
		if lo != base {
			continue
		}
		mm := bytes.SplitN(f[3], []byte{':'}, 2)
		if len(mm) != 2 {
			return -1
		}
		major, _ := strconv.ParseUint(string(mm[0]), 16, 32)
		minor, _ := strconv.ParseUint(string(mm[1]), 16, 32)
		dev = unix.Mkdev(uint32(major), uint32(minor))
		ino, _ = strconv.ParseUint(string(f[4]), 10, 64)
		found = ino != 0
		break
	}
	if !found {
		return -1
	}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		var st unix.Stat_t
		if unix.Fstat(fd, &st) == nil && st.Ino == ino && uint64(st.Dev) == dev && st.Mode&unix.S_IFMT == unix.S_IFREG {
			if fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0); err == nil && fl&unix.O_ACCMODE == unix.O_RDWR {
				return fd
			}
		}
	}
	return -1
}

// writeFile copies n bytes of this process's memory at address at into
// the heap file at offset off (pwrite on the address itself: the memory
// may be no Go object).
func writeFile(fd int, at uintptr, n int, off int64) error {
	for done := 0; done < n; {
		k, _, errno := unix.Syscall6(unix.SYS_PWRITE64, uintptr(fd), at+uintptr(done), uintptr(n-done), uintptr(off+int64(done)), 0, 0)
		if errno != 0 {
			return fmt.Errorf("%w: writing %d bytes of adopted pages into the heap: %v", ErrHeapExhausted, n-done, errno)
		}
		if k == 0 {
			return fmt.Errorf("shmem: writing %d bytes of adopted pages into the heap: no progress", n-done)
		}
		done += int(k)
	}
	return nil
}

// fileData returns the runs of [off, off+n) of the heap file that hold
// data (SEEK_DATA, SEEK_HOLE), in bytes from off; ok is false when the
// kernel does not say.
func fileData(fd int, off int64, n int) (out []span, ok bool) {
	end := off + int64(n)
	for p := off; p < end; {
		d, err := unix.Seek(fd, p, unix.SEEK_DATA)
		if err == unix.ENXIO {
			break // no data past p
		}
		if err != nil {
			return nil, false
		}
		if d >= end {
			break
		}
		h, err := unix.Seek(fd, d, unix.SEEK_HOLE)
		if err != nil {
			return nil, false
		}
		h = min(h, end)
		out = append(out, span{int(d - off), int(h - d)})
		p = h
	}
	return out, true
}

// copyPiece is the most one worker of inParallel copies at a time.
const copyPiece = 16 << 20

// inParallel runs fn on every run, cut into pieces of at most copyPiece
// bytes, on up to 8 threads at once (the kernel allocates a shared page
// and copies into it on the thread that asks: a large move is bound by
// one CPU's speed otherwise). It returns the first error.
func inParallel(runs []span, fn func(span) error) error {
	var pieces []span
	for _, r := range runs {
		for o := 0; o < r.n; o += copyPiece {
			pieces = append(pieces, span{r.at + o, min(copyPiece, r.n-o)})
		}
	}
	workers := min(runtime.NumCPU(), 8, len(pieces))
	if workers <= 1 {
		for _, p := range pieces {
			if err := fn(p); err != nil {
				return err
			}
		}
		return nil
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		next  int
		first error
	)
	for range workers {
		wg.Go(func() {
			for {
				mu.Lock()
				if next == len(pieces) || first != nil {
					mu.Unlock()
					return
				}
				p := pieces[next]
				next++
				mu.Unlock()
				if err := fn(p); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	return first
}
