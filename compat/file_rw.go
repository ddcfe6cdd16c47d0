package compat

import (
	"errors"
	"io"
)

// Independent data access: a member's bytes moved between its stream
// (the contiguous, packed data of count instances of the memory datatype)
// and the file ranges its view maps them to.

// piece is one file range of an access and where its bytes lie in the
// access's data.
type piece struct{ off, at, n int64 }

// pieces lists the file ranges of n stream bytes from stream offset s; at
// counts from 0 at s.
func (v *fileView) pieces(s, n int64) []piece {
	var ps []piece
	v.extents(s, n, func(off, st, k int64) { ps = append(ps, piece{off, st - s, k}) })
	return ps
}

// piecesSpan is the file range pieces cover, first byte to last (the
// pieces of a read-only view with overlapping entries may end before the
// span does).
func piecesSpan(ps []piece) (lo, hi int64) {
	if len(ps) == 0 {
		return 0, 0
	}
	lo = ps[0].off
	for _, p := range ps {
		lo, hi = min(lo, p.off), max(hi, p.off+p.n)
	}
	return lo, hi
}

// sieve reports whether pieces are better moved through one window over
// their span (data sieving) than one system call each: many small pieces
// close together. mode is the romio_ds_* hint.
func sieve(ps []piece, window int, mode string) bool {
	switch {
	case mode == "disable" || len(ps) < 2:
		return false
	case mode == "enable":
		return true
	}
	lo, hi := piecesSpan(ps)
	var data int64
	for _, p := range ps {
		data += p.n
	}
	avg := data / int64(len(ps))
	// Small pieces that fill at least half of their span.
	return avg < int64(window)/16 && 2*data >= hi-lo
}

// readPieces reads the pieces into data and returns how many bytes of
// data, from its start, were read before the end of the file.
func (f *File) readPieces(ps []piece, data []byte, h fileHints) (int64, error) {
	if sieve(ps, h.indRdBuffer, h.dsRead) {
		return f.sieveRead(ps, data, int64(h.indRdBuffer))
	}
	var got int64
	for _, p := range ps {
		n, err := f.fd.ReadAt(data[p.at:p.at+p.n], p.off)
		if got == p.at {
			got += int64(n)
		}
		if errors.Is(err, io.EOF) {
			return got, nil
		}
		if err != nil {
			return got, ioError(err, "read of %q", f.path)
		}
	}
	return got, nil
}

// sieveRead reads windows of at most window bytes over the pieces' span
// and copies the pieces out.
func (f *File) sieveRead(ps []piece, data []byte, window int64) (int64, error) {
	buf := make([]byte, min(window, func() int64 { lo, hi := piecesSpan(ps); return hi - lo }()))
	var got int64
	for i := 0; i < len(ps); {
		lo := ps[i].off
		hi := lo + int64(len(buf))
		if ps[i].n > int64(len(buf)) { // a piece larger than the window: read it alone
			n, err := f.fd.ReadAt(data[ps[i].at:ps[i].at+ps[i].n], ps[i].off)
			if got == ps[i].at {
				got += int64(n)
			}
			if err != nil {
				return got, eofOK(err, f.path)
			}
			i++
			continue
		}
		j, end := i, lo
		for j < len(ps) && ps[j].off >= lo && ps[j].off+ps[j].n <= hi {
			end = max(end, ps[j].off+ps[j].n) // not the last piece's end where pieces overlap
			j++
		}
		n, err := f.fd.ReadAt(buf[:end-lo], lo)
		for _, p := range ps[i:j] {
			avail := min(max(int64(n)-(p.off-lo), 0), p.n)
			copy(data[p.at:p.at+avail], buf[p.off-lo:])
			if got == p.at {
				got += avail
			}
		}
		if err != nil {
			return got, eofOK(err, f.path)
		}
		i = j
	}
	return got, nil
}

func eofOK(err error, path string) error {
	if errors.Is(err, io.EOF) {
		return nil
	}
	return ioError(err, "read of %q", path)
}

// writePieces writes data's pieces. Sieved writes read, patch and write
// back a window under a write lock over it, so that the bytes between the
// pieces, which other members may be writing, are not lost; locked tells
// that the caller (atomic mode) already holds a lock over the whole span.
func (f *File) writePieces(ps []piece, data []byte, h fileHints, locked bool) error {
	if f.noRead || !sieve(ps, h.indWrBuffer, h.dsWrite) {
		for _, p := range ps {
			if _, err := f.fd.WriteAt(data[p.at:p.at+p.n], p.off); err != nil {
				return ioError(err, "write of %q", f.path)
			}
		}
		return nil
	}
	window := int64(h.indWrBuffer)
	buf := make([]byte, window)
	for i := 0; i < len(ps); {
		if ps[i].n > window {
			if _, err := f.fd.WriteAt(data[ps[i].at:ps[i].at+ps[i].n], ps[i].off); err != nil {
				return ioError(err, "write of %q", f.path)
			}
			i++
			continue
		}
		lo := ps[i].off
		j := i
		for j < len(ps) && ps[j].off+ps[j].n <= lo+window {
			j++
		}
		end := ps[j-1].off + ps[j-1].n
		w := buf[:end-lo]
		if !locked {
			if err := lockRange(f.fd, lo, end-lo, true); err != nil {
				return ioError(err, "locking %q for a sieved write", f.path)
			}
		}
		n, err := f.fd.ReadAt(w, lo)
		if err != nil && !errors.Is(err, io.EOF) {
			if !locked {
				unlockRange(f.fd, lo, end-lo)
			}
			return ioError(err, "read of %q for a sieved write", f.path)
		}
		clear(w[n:])
		for _, p := range ps[i:j] {
			copy(w[p.off-lo:], data[p.at:p.at+p.n])
		}
		_, err = f.fd.WriteAt(w, lo)
		if !locked {
			unlockRange(f.fd, lo, end-lo)
		}
		if err != nil {
			return ioError(err, "write of %q", f.path)
		}
		i = j
	}
	return nil
}

// access moves one member's data at stream offset s independently: data
// is the stream (write) or where it goes (read). It returns the data
// bytes moved.
func (f *File) access(write bool, v *fileView, h fileHints, atomic bool, s int64, data []byte) (int64, error) {
	ps := v.pieces(s, int64(len(data)))
	if len(ps) == 0 {
		return 0, nil
	}
	if atomic {
		lo, hi := piecesSpan(ps)
		if err := lockRange(f.fd, lo, hi-lo, write); err != nil {
			return 0, ioError(err, "locking %q (atomic mode)", f.path)
		}
		defer unlockRange(f.fd, lo, hi-lo)
	}
	if write {
		if err := f.writePieces(ps, data, h, atomic); err != nil {
			return 0, err
		}
		return int64(len(data)), nil
	}
	return f.readPieces(ps, data, h)
}
