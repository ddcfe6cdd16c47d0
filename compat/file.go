package compat

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Access modes of OpenFile (MPI_MODE_*), at the values of the MPI-5.0 ABI
// so that the C library passes them through.
const (
	ModeAppend        = 1
	ModeCreate        = 2
	ModeDeleteOnClose = 4
	ModeExcl          = 8
	ModeRdonly        = 16
	ModeRdwr          = 32
	ModeSequential    = 64
	ModeUniqueOpen    = 128
	ModeWronly        = 256
)

// Whence values of File.Seek and File.SeekShared (MPI_SEEK_*), at the ABI's
// values.
const (
	SeekCur = 401
	SeekEnd = 402
	SeekSet = 403
)

// DisplacementCurrent is SetView's displacement that means the current
// position of the shared file pointer (MPI_DISPLACEMENT_CURRENT), for files
// opened ModeSequential.
const DisplacementCurrent = -1

// File is a file opened collectively over a communicator (MPI_File): MPI-4.1
// chapter 14 over a POSIX file. Every member has its own descriptor, its own
// individual file pointer and its view; the shared file pointer lives in a
// small side file next to the data (or in the temporary directory when the
// data's directory is not writable) under a byte-range lock, so that it
// works wherever the file itself is shared. Collective accesses go through
// two-phase collective buffering (file_coll.go), the nonblocking ones as
// rounds of point-to-point messages moved on at test and wait
// (file_nbcoll.go); non-contiguous independent
// accesses through data sieving (file_rw.go). A File's calls are safe to
// make from one goroutine at a time per member, as MPI's are.
type File struct {
	comm   *Comm // a duplicate of the opener's: collective I/O's messages stay apart
	path   string
	amode  int
	fd     *os.File
	noRead bool // opened WRONLY where the file could not be opened for reading too
	hints  fileHints
	nodes  []int64 // per member, a key of its node
	aggs   []int   // the collective accesses' aggregators (file_coll.go)

	mu       sync.Mutex
	view     fileView
	pos      int64 // the individual file pointer, in etypes of the view
	atomic   bool
	shfp     *os.File // the shared file pointer's side file
	shfpPath string
	split    *splitState // a split collective in progress
	nbSeq    uint64      // nonblocking collective accesses started (file_nbcoll.go)
	closed   bool
}

// OpenFile opens the file at path on every member of c (MPI_File_open).
// It is collective: amode must be the same everywhere, and so must path (a
// prefix "ufs:" or "nfs:" naming the file system, as ROMIO takes, is
// dropped). Info's hints are those of SetInfo; "file_perm" (octal) sets the
// permissions of a file CREATE makes. An error on any member fails the call
// on every member, with the class the first failing member saw.
func OpenFile(c *Comm, path string, amode int, info Info) (*File, error) {
	if err := c.check("OpenFile"); err != nil {
		return nil, err
	}
	for _, p := range []string{"ufs:", "nfs:", "file:"} {
		path = strings.TrimPrefix(path, p)
	}
	if err := checkAmode(amode); err != nil {
		return nil, err
	}
	hints, err := parseHints(info, defaultHints())
	if err != nil {
		return nil, err
	}
	h := fnv.New64a()
	h.Write([]byte(path))
	mine := []int64{int64(amode), int64(h.Sum64() >> 1)}
	all := make([]int64, 2*c.Size())
	if err := Allgather(c, mine, 2, Int64, all, 2, Int64); err != nil {
		return nil, err
	}
	for r := 0; r < c.Size(); r++ {
		if all[2*r] != mine[0] {
			return nil, errorf(ClassNotSame, "OpenFile: access mode %#x here, %#x on rank %d", amode, all[2*r], r)
		}
		if all[2*r+1] != mine[1] {
			return nil, errorf(ClassNotSame, "OpenFile: rank %d opens another file name than %q", r, path)
		}
	}
	d, err := c.Dup()
	if err != nil {
		return nil, err
	}
	f := &File{comm: d, path: path, amode: amode, hints: hints}
	f.view = nativeView()
	// A write-only file is opened for reading too where permissions
	// allow: sieved and collective writes read what lies between their
	// pieces. MPI's rules on reads are checked by the calls.
	flags := os.O_RDONLY
	if amode&(ModeRdwr|ModeWronly) != 0 {
		flags = os.O_RDWR
	}
	open := func(fl int, perm os.FileMode) (*os.File, error) {
		fd, err := os.OpenFile(path, fl, perm)
		if err != nil && amode&ModeWronly != 0 && errors.Is(err, fs.ErrPermission) {
			fd, err = os.OpenFile(path, fl&^os.O_RDWR|os.O_WRONLY, perm)
			f.noRead = err == nil
		}
		return fd, err
	}
	// The first member creates the file (EXCL is decided there, once);
	// the others open what it made.
	var openErr error
	if d.Rank() == 0 {
		fl := flags
		if amode&ModeCreate != 0 {
			fl |= os.O_CREATE
		}
		if amode&ModeExcl != 0 {
			fl |= os.O_EXCL
		}
		f.fd, openErr = open(fl, hints.perm)
	}
	if err := agree(d, openErr, "OpenFile %q", path); err != nil {
		f.close()
		d.Free()
		return nil, err
	}
	if d.Rank() != 0 {
		f.fd, openErr = open(flags, 0)
	}
	if err := agree(d, openErr, "OpenFile %q", path); err != nil {
		f.close()
		d.Free()
		return nil, err
	}
	if err := f.learnNodes(); err != nil {
		f.close()
		d.Free()
		return nil, err
	}
	if err := f.openShared(); err != nil {
		f.close()
		d.Free()
		return nil, err
	}
	if amode&ModeAppend != 0 {
		// Both pointers start at the end (in bytes: the default view's
		// etype is a byte).
		st, err := f.fd.Stat()
		if err == nil {
			f.pos = st.Size()
			if d.Rank() == 0 {
				err = f.storeShared(st.Size())
			}
		}
		if err := agree(d, err, "OpenFile %q", path); err != nil {
			f.Close()
			return nil, err
		}
	}
	return f, nil
}

// checkAmode applies MPI-4.1 section 14.2.1's rules to an access mode.
func checkAmode(amode int) error {
	known := ModeAppend | ModeCreate | ModeDeleteOnClose | ModeExcl | ModeRdonly | ModeRdwr | ModeSequential | ModeUniqueOpen | ModeWronly
	n := 0
	for _, m := range []int{ModeRdonly, ModeRdwr, ModeWronly} {
		if amode&m != 0 {
			n++
		}
	}
	switch {
	case amode&^known != 0:
		return errorf(ClassAmode, "access mode %#x has unknown bits", amode)
	case n != 1:
		return errorf(ClassAmode, "access mode %#x: exactly one of RDONLY, RDWR and WRONLY is required", amode)
	case amode&ModeRdonly != 0 && amode&(ModeCreate|ModeExcl) != 0:
		return errorf(ClassAmode, "access mode %#x: CREATE and EXCL need write access", amode)
	case amode&ModeRdwr != 0 && amode&ModeSequential != 0:
		return errorf(ClassAmode, "access mode %#x: SEQUENTIAL with RDWR", amode)
	}
	return nil
}

// agree makes one member's error every member's: the collective calls of
// a File succeed everywhere or fail everywhere, so that no member goes on
// to a later collective alone.
func agree(c *Comm, err error, format string, args ...any) error {
	code := int64(ClassSuccess)
	if err != nil {
		code = int64(ClassOf(ioError(err, format, args...)))
	}
	all := make([]int64, c.Size())
	if e := Allgather(c, []int64{code}, 1, Int64, all, 1, Int64); e != nil {
		return e
	}
	if err != nil {
		return ioError(err, format, args...)
	}
	for r, cl := range all {
		if cl != int64(ClassSuccess) {
			return errorf(Class(cl), "%s: failed on rank %d", fmt.Sprintf(format, args...), r)
		}
	}
	return nil
}

// Close closes the file on every member (MPI_File_close); collective. A
// file opened ModeDeleteOnClose is deleted once every member has closed it.
func (f *File) Close() error {
	if err := f.check("Close"); err != nil {
		return err
	}
	f.mu.Lock()
	f.closed = true
	f.mu.Unlock()
	err := f.fd.Sync() // MPI_File_close synchronizes, as MPI_File_sync does
	if f.amode&(ModeWronly|ModeRdwr) == 0 {
		err = nil // fsync of a read-only descriptor can fail harmlessly
	}
	f.close()
	if e := f.comm.Barrier(); e != nil && err == nil {
		err = e
	}
	if f.comm.Rank() == 0 {
		if f.shfpPath != "" {
			os.Remove(f.shfpPath)
		}
		if f.amode&ModeDeleteOnClose != 0 {
			if e := os.Remove(f.path); e != nil && err == nil {
				err = ioError(e, "Close: deleting %q", f.path)
			}
		}
	}
	if e := f.comm.Free(); e != nil && err == nil {
		err = e
	}
	return ioError(err, "Close %q", f.path)
}

func (f *File) close() {
	if f.fd != nil {
		f.fd.Close()
	}
	if f.shfp != nil {
		f.shfp.Close()
	}
}

func (f *File) check(what string) error {
	if f == nil {
		return errorf(ClassFile, "%s on a nil File", what)
	}
	f.mu.Lock()
	closed := f.closed
	f.mu.Unlock()
	if closed {
		return errorf(ClassFile, "%s on a closed File", what)
	}
	return f.comm.check(what)
}

// DeleteFile deletes the file at path (MPI_File_delete): ErrNoSuchFile
// when there is none. It is not collective.
func DeleteFile(path string) error {
	for _, p := range []string{"ufs:", "nfs:", "file:"} {
		path = strings.TrimPrefix(path, p)
	}
	return ioError(os.Remove(path), "DeleteFile %q", path)
}

// Comm returns the file's own communicator (the opener's group: Group and
// MPI_File_get_group read it).
func (f *File) Comm() *Comm { return f.comm }

// Amode returns the access mode the file was opened with.
func (f *File) Amode() int { return f.amode }

// Path returns the file's name.
func (f *File) Path() string { return f.path }

// Size returns the file's size in bytes (MPI_File_get_size).
func (f *File) Size() (int64, error) {
	if err := f.check("Size"); err != nil {
		return 0, err
	}
	st, err := f.fd.Stat()
	if err != nil {
		return 0, ioError(err, "Size of %q", f.path)
	}
	return st.Size(), nil
}

// SetSize truncates or extends the file to size bytes (MPI_File_set_size);
// collective, with the same size on every member.
func (f *File) SetSize(size int64) error {
	return f.resize("SetSize", size, func() error { return f.fd.Truncate(size) })
}

// Preallocate makes sure the first size bytes of the file have storage
// (MPI_File_preallocate); collective. A larger file is not shrunk.
func (f *File) Preallocate(size int64) error {
	return f.resize("Preallocate", size, func() error {
		err := unix.Fallocate(int(f.fd.Fd()), 0, 0, size)
		if errors.Is(err, unix.EOPNOTSUPP) {
			st, e := f.fd.Stat()
			if e == nil && st.Size() < size {
				return f.fd.Truncate(size)
			}
			return e
		}
		return err
	})
}

func (f *File) resize(what string, size int64, do func() error) error {
	if err := f.check(what); err != nil {
		return err
	}
	if size < 0 {
		return errorf(ClassArg, "%s(%d): a negative size", what, size)
	}
	if f.amode&ModeRdonly != 0 {
		return errorf(ClassReadOnly, "%s of a file opened read-only", what)
	}
	if f.amode&ModeSequential != 0 {
		return errorf(ClassUnsupportedOperation, "%s of a file opened SEQUENTIAL", what)
	}
	all := make([]int64, f.comm.Size())
	if err := Allgather(f.comm, []int64{size}, 1, Int64, all, 1, Int64); err != nil {
		return err
	}
	for r, s := range all {
		if s != size {
			return errorf(ClassNotSame, "%s(%d): rank %d asked for %d", what, size, r, s)
		}
	}
	var err error
	if f.comm.Rank() == 0 {
		err = do()
	}
	return agree(f.comm, err, "%s of %q", what, f.path)
}

// Sync writes the file's data through to storage and makes every member's
// writes visible to every member's later reads (MPI_File_sync);
// collective.
func (f *File) Sync() error {
	if err := f.check("Sync"); err != nil {
		return err
	}
	var err error
	if f.amode&ModeRdonly == 0 {
		err = f.fd.Sync()
	}
	return agree(f.comm, err, "Sync of %q", f.path)
}

// SetAtomicity turns atomic mode on or off (MPI_File_set_atomicity);
// collective, with the same flag everywhere. In atomic mode every access
// holds a byte-range lock over the bytes it spans, so that concurrent
// overlapping accesses by members are sequentially consistent (MPI-4.1
// section 14.6.1).
func (f *File) SetAtomicity(on bool) error {
	if err := f.check("SetAtomicity"); err != nil {
		return err
	}
	v := int64(0)
	if on {
		v = 1
	}
	all := make([]int64, f.comm.Size())
	if err := Allgather(f.comm, []int64{v}, 1, Int64, all, 1, Int64); err != nil {
		return err
	}
	for r, x := range all {
		if x != v {
			return errorf(ClassNotSame, "SetAtomicity(%v): rank %d asked otherwise", on, r)
		}
	}
	f.mu.Lock()
	f.atomic = on
	f.mu.Unlock()
	return nil
}

// Atomicity reports whether atomic mode is on (MPI_File_get_atomicity).
func (f *File) Atomicity() (bool, error) {
	if err := f.check("Atomicity"); err != nil {
		return false, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.atomic, nil
}

// openShared makes the shared file pointer's side file: the first member
// creates it next to the data file (in the temporary directory when that
// cannot be written), every member opens it.
func (f *File) openShared() error {
	c := f.comm
	name := ""
	if c.Rank() == 0 {
		dir, base := filepath.Split(f.path)
		if dir == "" {
			dir = "."
		}
		tmpl := "." + base + ".shfp-*"
		sf, err := os.CreateTemp(dir, tmpl)
		if err != nil {
			sf, err = os.CreateTemp("", strings.ReplaceAll(tmpl, string(filepath.Separator), "_"))
		}
		if err == nil {
			name = sf.Name()
			_, err = sf.WriteAt(make([]byte, 8), 0)
			sf.Close()
		}
		if err != nil {
			name = "\x00" + err.Error()
		}
	}
	b := make([]byte, 4096)
	copy(b, name)
	if err := c.bcastBytes(b, 0); err != nil {
		return err
	}
	name = strings.TrimRight(string(b), "\x00")
	if name == "" || strings.HasPrefix(string(b), "\x00") {
		return errorf(ClassIO, "OpenFile %q: no shared file pointer: %s", f.path, strings.Trim(string(b), "\x00"))
	}
	sf, err := os.OpenFile(name, os.O_RDWR, 0)
	if err := agree(c, err, "OpenFile %q: shared file pointer", f.path); err != nil {
		if sf != nil {
			sf.Close()
		}
		return err
	}
	f.shfp = sf
	if c.Rank() == 0 {
		f.shfpPath = name
	}
	return nil
}

// lockRange takes an open-file-description lock on [off, off+n) of fd:
// such locks belong to the descriptor, so they exclude each other between
// goroutine PEs of one process as well as between processes.
func lockRange(fd *os.File, off, n int64, write bool) error {
	typ := int16(unix.F_RDLCK)
	if write {
		typ = unix.F_WRLCK
	}
	lk := unix.Flock_t{Type: typ, Whence: 0, Start: off, Len: n}
	for {
		err := unix.FcntlFlock(fd.Fd(), unix.F_OFD_SETLKW, &lk)
		if err != unix.EINTR {
			return err
		}
	}
}

func unlockRange(fd *os.File, off, n int64) {
	lk := unix.Flock_t{Type: unix.F_UNLCK, Whence: 0, Start: off, Len: n}
	unix.FcntlFlock(fd.Fd(), unix.F_OFD_SETLK, &lk)
}

// updateShared applies fn to the shared file pointer under its lock and
// returns the value before.
func (f *File) updateShared(fn func(old int64) int64) (int64, error) {
	if err := lockRange(f.shfp, 0, 8, true); err != nil {
		return 0, ioError(err, "shared file pointer of %q", f.path)
	}
	defer unlockRange(f.shfp, 0, 8)
	var b [8]byte
	if _, err := f.shfp.ReadAt(b[:], 0); err != nil {
		return 0, ioError(err, "shared file pointer of %q", f.path)
	}
	old := int64(leUint64(b[:]))
	if nv := fn(old); nv != old {
		putLeUint64(b[:], uint64(nv))
		if _, err := f.shfp.WriteAt(b[:], 0); err != nil {
			return 0, ioError(err, "shared file pointer of %q", f.path)
		}
	}
	return old, nil
}

func (f *File) storeShared(v int64) error {
	_, err := f.updateShared(func(int64) int64 { return v })
	return err
}

func leUint64(b []byte) uint64 {
	var v uint64
	for i := 7; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

func putLeUint64(b []byte, v uint64) {
	for i := range 8 {
		b[i] = byte(v >> (8 * i))
	}
}

// parsePerm reads an octal file_perm hint.
func parsePerm(s string) (os.FileMode, error) {
	v, err := strconv.ParseUint(s, 8, 32)
	if err != nil || v > 0o7777 {
		return 0, errorf(ClassInfoValue, "file_perm %q: octal permissions expected", s)
	}
	return os.FileMode(v), nil
}
