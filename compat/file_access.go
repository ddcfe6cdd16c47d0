package compat

import "io"

// Data access (MPI-4.1 section 14.4): every read and write of a File goes
// through File.do, named by how it positions (an explicit offset, the
// individual file pointer, the shared one, or the shared one in rank order)
// and whether it is collective.

// Positioning is how a data access finds its place in the view.
type Positioning int

const (
	// AtOffset: an explicit offset in etypes (MPI_File_read_at, ...).
	AtOffset Positioning = iota
	// Individual: the member's own file pointer (MPI_File_read, ...).
	Individual
	// Shared: the file pointer the members share (MPI_File_read_shared).
	Shared
	// Ordered: the shared pointer, collectively, in rank order
	// (MPI_File_read_ordered).
	Ordered
)

// FileOp names a data access: its positioning, its direction, and whether
// every member of the file's communicator makes it together.
type FileOp struct {
	Pos        Positioning
	Write      bool
	Collective bool
	// Converted: the buffer is in the file's representation already (the
	// C library ran a user data representation's conversion itself), so
	// the access neither converts it nor asks the representation's extent
	// function about the buffer's datatype.
	Converted bool
}

func (op FileOp) String() string {
	s := [...]string{"ReadAt", "Read", "ReadShared", "ReadOrdered"}[op.Pos]
	if op.Write {
		s = [...]string{"WriteAt", "Write", "WriteShared", "WriteOrdered"}[op.Pos]
	}
	if op.Collective && op.Pos != Ordered {
		s += "All"
	}
	return s
}

// FileAccess moves count instances of dt between buf and the file by op
// (off, in etypes of the view, for AtOffset; ignored otherwise) and returns
// a Status whose Bytes are the bytes moved: fewer than asked when a read
// reaches the end of the file. It is the one body of every data access
// call; FileReadAt and the others name it.
func FileAccess[T Elem](f *File, op FileOp, off int64, buf []T, count int, dt Datatype) (Status, error) {
	if err := f.check(op.String()); err != nil {
		return Status{}, err
	}
	vw := view[T]
	if op.Write { // a write only reads the buffer, whose type may overlap
		vw = srcView[T]
	}
	b, _, err := vw(buf, count, dt, op.String())
	if err != nil {
		return Status{}, err
	}
	return f.do(op, off, b, count, dt)
}

func (f *File) do(op FileOp, off int64, b []byte, count int, dt Datatype) (Status, error) {
	a, err := f.prepare(op, off, b, count, dt)
	if err != nil {
		return Status{}, err
	}
	return f.run(a)
}

// access is a data access prepared to run: its place in the stream, its
// data in the file's representation, and what makes its Status.
type access struct {
	op     FileOp
	v      fileView
	h      fileHints
	aggs   []int // a collective access's aggregators
	atomic bool
	s      int64  // the stream offset it starts at
	data   []byte // the stream: a write's source, a read's destination
	// done finishes the access once moved bytes have moved: a read's
	// conversion and unpacking into the buffer; it returns the Status.
	done func(moved int64) (Status, error)
}

// run moves an access's bytes and finishes it.
func (f *File) run(a *access) (Status, error) {
	var moved int64
	var err error
	if a.op.Collective {
		moved, err = f.collective(a, f.comm)
	} else {
		moved, err = f.access(a.op.Write, &a.v, a.h, a.atomic, a.s, a.data)
	}
	if err != nil {
		return Status{}, err
	}
	return a.done(moved)
}

// prepare checks an access, packs a write's data and claims its place
// (the file pointers move at once, by the amount asked, as MPI says they
// do when an access starts).
func (f *File) prepare(op FileOp, off int64, b []byte, count int, dt Datatype) (*access, error) {
	what := op.String()
	switch {
	case op.Write && f.amode&ModeRdonly != 0:
		return nil, errorf(ClassReadOnly, "%s of a file opened read-only", what)
	case !op.Write && f.amode&ModeWronly != 0:
		return nil, errorf(ClassAccess, "%s of a file opened write-only", what)
	case f.amode&ModeSequential != 0 && (op.Pos == AtOffset || op.Pos == Individual):
		return nil, errorf(ClassUnsupportedOperation, "%s of a file opened SEQUENTIAL: only the shared file pointer may be used", what)
	case op.Pos == AtOffset && off < 0:
		return nil, errorf(ClassArg, "%s at offset %d", what, off)
	}
	f.mu.Lock()
	v, h, atomic := f.view, f.hints, f.atomic
	var aggs []int
	if op.Collective {
		aggs = f.aggregators()
	}
	f.mu.Unlock()
	em, mm := mapOf(v.etype), mapOf(dt)
	if em.Basic() != BasicByte && mm.Basic() != BasicByte && mm.Size() > 0 && em.Basic() != mm.Basic() {
		return nil, errorf(ClassType, "%s: datatype %v does not match the view's etype %v", what, dt, v.etype)
	}
	size := int64(count) * v.unit(mm) // the access's bytes in the file's representation
	if size%v.esize != 0 {
		return nil, errorf(ClassType, "%s: %d x %v is not a whole number of etypes %v", what, count, dt, v.etype)
	}
	var data []byte
	direct := false
	if op.Write {
		data = packed(b, mm, count)
		var err error
		if !op.Converted {
			if data, err = toFile(v.datarep, data, dt, count, b, 0); err != nil {
				return nil, err
			}
		}
	} else if mm.Contiguous() && (op.Converted || v.datarep == "native" || v.datarep == "internal") {
		data, direct = b[:size], true
	} else {
		data = make([]byte, size)
	}
	s, err := f.position(op, off, v, size)
	if err != nil {
		return nil, err
	}
	done := func(moved int64) (Status, error) {
		if !op.Write {
			done, cerr := false, error(nil)
			if !op.Converted {
				done, cerr = fromFile(v.datarep, data[:moved], dt, count, b, 0)
			}
			if cerr != nil {
				return Status{}, cerr
			}
			if !done && !direct {
				place(b, mm, count, data[:moved])
			}
		}
		if v.datarep == "external32" { // the status counts memory's bytes
			moved = nativeOfExternal(mm, moved)
		}
		return Status{Source: ProcNull, Tag: AnyTag, bytes: int(moved)}, nil
	}
	return &access{op: op, v: v, h: h, aggs: aggs, atomic: atomic, s: s, data: data, done: done}, nil
}

// position returns the stream offset an access of size bytes starts at,
// moving the shared file pointer past it for Shared and Ordered accesses.
func (f *File) position(op FileOp, off int64, v fileView, size int64) (int64, error) {
	switch op.Pos {
	case AtOffset:
		return off * v.esize, nil
	case Individual:
		f.mu.Lock()
		defer f.mu.Unlock()
		p := f.pos
		f.pos += size / v.esize
		return p * v.esize, nil
	case Shared:
		p, err := f.updateShared(func(o int64) int64 { return o + size/v.esize })
		return p * v.esize, err
	}
	// Ordered: the members' accesses follow each other in rank order from
	// the shared pointer; the first member moves it past them all.
	c := f.comm
	sizes := make([]int64, c.Size())
	if err := Allgather(c, []int64{size / v.esize}, 1, Int64, sizes, 1, Int64); err != nil {
		return 0, err
	}
	var before, total int64
	for r, k := range sizes {
		if r < c.Rank() {
			before += k
		}
		total += k
	}
	base := make([]int64, 1)
	var err error
	if c.Rank() == 0 {
		base[0], err = f.updateShared(func(o int64) int64 { return o + total })
	}
	if err := agree(c, err, "%v", op); err != nil {
		return 0, err
	}
	if err := Bcast(c, base, 1, Int64, 0); err != nil {
		return 0, err
	}
	return (base[0] + before) * v.esize, nil
}

// Seek moves the individual file pointer (MPI_File_seek) and returns its
// new position, in etypes: to off (SeekSet, or io.SeekStart), by off
// (SeekCur, io.SeekCurrent), or to off past the end of the file's last
// etype the view reaches (SeekEnd, io.SeekEnd). A position before the
// start is ErrArg.
func (f *File) Seek(off int64, whence int) (int64, error) {
	if err := f.check("Seek"); err != nil {
		return 0, err
	}
	if f.amode&ModeSequential != 0 {
		return 0, errorf(ClassUnsupportedOperation, "Seek on a file opened SEQUENTIAL")
	}
	f.mu.Lock()
	cur := f.pos
	f.mu.Unlock()
	p, err := f.seekTo(cur, off, whence)
	if err != nil {
		return 0, err
	}
	f.mu.Lock()
	f.pos = p
	f.mu.Unlock()
	return p, nil
}

// SeekShared moves the shared file pointer (MPI_File_seek_shared);
// collective, with the same arguments everywhere.
func (f *File) SeekShared(off int64, whence int) error {
	if err := f.check("SeekShared"); err != nil {
		return err
	}
	mine := []int64{off, int64(whence)}
	all := make([]int64, 2*f.comm.Size())
	if err := Allgather(f.comm, mine, 2, Int64, all, 2, Int64); err != nil {
		return err
	}
	for r := 0; r < f.comm.Size(); r++ {
		if all[2*r] != off || all[2*r+1] != int64(whence) {
			return errorf(ClassNotSame, "SeekShared(%d, %d): rank %d asked otherwise", off, whence, r)
		}
	}
	var err error
	if f.comm.Rank() == 0 {
		_, err = f.updateShared(func(cur int64) int64 {
			p, e := f.seekTo(cur, off, whence)
			if e != nil {
				err = e
				return cur
			}
			return p
		})
	}
	return agree(f.comm, err, "SeekShared")
}

func (f *File) seekTo(cur, off int64, whence int) (int64, error) {
	var p int64
	switch whence {
	case SeekSet, io.SeekStart:
		p = off
	case SeekCur, io.SeekCurrent:
		p = cur + off
	case SeekEnd, io.SeekEnd:
		end, err := f.endPosition()
		if err != nil {
			return 0, err
		}
		p = end + off
	default:
		return 0, errorf(ClassArg, "seek whence %d", whence)
	}
	if p < 0 {
		return 0, errorf(ClassArg, "seek to etype %d, before the view's start", p)
	}
	return p, nil
}

// endPosition is the view's position, in etypes, just past the file's
// last byte the view reaches.
func (f *File) endPosition() (int64, error) {
	size, err := f.Size()
	if err != nil {
		return 0, err
	}
	f.mu.Lock()
	v := f.view
	f.mu.Unlock()
	if size <= v.disp {
		return 0, nil
	}
	if v.contiguous() {
		return (size - v.disp + v.esize - 1) / v.esize, nil
	}
	rel := size - v.disp
	tiles := rel / v.textent
	in := rel % v.textent
	var s int64
	for _, r := range v.runs {
		if in <= r.off {
			break
		}
		s = r.start + min(in-r.off, r.n)
	}
	return (tiles*v.tsize + s + v.esize - 1) / v.esize, nil
}

// Position returns the individual file pointer, in etypes
// (MPI_File_get_position).
func (f *File) Position() (int64, error) {
	if err := f.check("Position"); err != nil {
		return 0, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pos, nil
}

// PositionShared returns the shared file pointer, in etypes
// (MPI_File_get_position_shared).
func (f *File) PositionShared() (int64, error) {
	if err := f.check("PositionShared"); err != nil {
		return 0, err
	}
	return f.updateShared(func(o int64) int64 { return o })
}
