package shmem

import (
	"bytes"
	"encoding/binary"
	"os"
	"strconv"
)

// dataRuns returns the runs of the page-aligned range [at, at+n) of this
// process that may hold data, in bytes from at: every page of a mapping
// backed by a file, and the pages of an anonymous private mapping that
// are present or swapped out (/proc/self/pagemap). A page of an anonymous
// mapping that is neither was never written: it reads zero and need not
// be copied. Where the kernel does not say, the whole range is returned.
func dataRuns(at uintptr, n int) []span {
	all := []span{{0, n}}
	anon, ok := anonSpans(at, n)
	if !ok {
		return all
	}
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		return all
	}
	defer f.Close()
	page := int(osPage)
	var out []span
	add := func(lo, hi int) {
		if k := len(out); k > 0 && out[k-1].at+out[k-1].n == lo {
			out[k-1].n += hi - lo
			return
		}
		out = append(out, span{lo, hi - lo})
	}
	buf := make([]byte, 8*4096)
	for _, a := range anon {
		if !a.anon {
			add(a.at, a.at+a.n)
			continue
		}
		for p := a.at; p < a.at+a.n; {
			k := min((a.at+a.n-p)/page, len(buf)/8)
			b := buf[:8*k]
			if _, err := f.ReadAt(b, int64((uint64(at)+uint64(p))/osPage*8)); err != nil {
				return all
			}
			for i := range k {
				e := binary.LittleEndian.Uint64(b[8*i:])
				if e&(1<<63|1<<62) != 0 { // present or swapped
					add(p+i*page, p+(i+1)*page)
				}
			}
			p += k * page
		}
	}
	return out
}

// anonRun is a part of a range, in bytes from its start, and whether its
// mapping is anonymous (no file behind it).
type anonRun struct {
	at, n int
	anon  bool
}

// anonSpans splits [at, at+n) by the mappings of /proc/self/maps that
// cover it; ok is false when some byte is not mapped.
func anonSpans(at uintptr, n int) ([]anonRun, bool) {
	var out []anonRun
	ok := coveringMappings(at, n, func(from, to uint64, f [][]byte) bool {
		// Anonymous: inode 0 and no path, or the process's [heap] or [stack].
		anon := len(f) >= 5 && string(f[4]) == "0" && (len(f) == 5 || f[5][0] == '[')
		out = append(out, anonRun{int(from - uint64(at)), int(to - from), anon})
		return true
	})
	if !ok {
		return nil, false
	}
	return out, true
}

// coveringMappings calls fn, in address order, for each mapping of
// /proc/self/maps over [at, at+n), with the part [from, to) of the range it
// covers and its line's fields (range, perms, offset, dev, inode, path). It
// reports whether the mappings cover the whole range with no hole and fn
// accepted every one (false too when the file cannot be read).
func coveringMappings(at uintptr, n int, fn func(from, to uint64, fields [][]byte) bool) bool {
	raw, err := os.ReadFile("/proc/self/maps")
	if err != nil || n <= 0 {
		return false
	}
	next, end := uint64(at), uint64(at)+uint64(n) // next: the first byte not yet covered
	for _, line := range bytes.Split(raw, []byte{'\n'}) {
		f := bytes.Fields(line)
		if len(f) < 2 {
			continue
		}
		rng := bytes.SplitN(f[0], []byte{'-'}, 2)
		if len(rng) != 2 {
			continue
		}
		lo, _ := strconv.ParseUint(string(rng[0]), 16, 64)
		hi, _ := strconv.ParseUint(string(rng[1]), 16, 64)
		if hi <= next || lo >= end {
			continue
		}
		if lo > next { // a hole
			return false
		}
		to := min(hi, end)
		if !fn(next, to, f) {
			return false
		}
		if next = to; next >= end {
			return true
		}
	}
	return false
}
