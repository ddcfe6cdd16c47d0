package compat

// The data access calls by name, each FileAccess with its FileOp; the
// nonblocking forms; the split collectives.

// FileReadAt reads count instances of dt into buf from offset off, in
// etypes of the view (MPI_File_read_at). The Status's Bytes are fewer than
// asked when the file ends first.
func FileReadAt[T Elem](f *File, off int64, buf []T, count int, dt Datatype) (Status, error) {
	return FileAccess(f, FileOp{Pos: AtOffset}, off, buf, count, dt)
}

// FileWriteAt writes count instances of dt from buf at offset off
// (MPI_File_write_at).
func FileWriteAt[T Elem](f *File, off int64, buf []T, count int, dt Datatype) (Status, error) {
	return FileAccess(f, FileOp{Pos: AtOffset, Write: true}, off, buf, count, dt)
}

// FileReadAtAll is FileReadAt made by every member together
// (MPI_File_read_at_all): collective buffering gathers the members' pieces
// into large reads.
func FileReadAtAll[T Elem](f *File, off int64, buf []T, count int, dt Datatype) (Status, error) {
	return FileAccess(f, FileOp{Pos: AtOffset, Collective: true}, off, buf, count, dt)
}

// FileWriteAtAll is FileWriteAt made by every member together
// (MPI_File_write_at_all).
func FileWriteAtAll[T Elem](f *File, off int64, buf []T, count int, dt Datatype) (Status, error) {
	return FileAccess(f, FileOp{Pos: AtOffset, Write: true, Collective: true}, off, buf, count, dt)
}

// FileRead reads at the individual file pointer and moves it past what was
// read (MPI_File_read).
func FileRead[T Elem](f *File, buf []T, count int, dt Datatype) (Status, error) {
	return FileAccess(f, FileOp{Pos: Individual}, 0, buf, count, dt)
}

// FileWrite writes at the individual file pointer and moves it
// (MPI_File_write).
func FileWrite[T Elem](f *File, buf []T, count int, dt Datatype) (Status, error) {
	return FileAccess(f, FileOp{Pos: Individual, Write: true}, 0, buf, count, dt)
}

// FileReadAll is FileRead made by every member together
// (MPI_File_read_all).
func FileReadAll[T Elem](f *File, buf []T, count int, dt Datatype) (Status, error) {
	return FileAccess(f, FileOp{Pos: Individual, Collective: true}, 0, buf, count, dt)
}

// FileWriteAll is FileWrite made by every member together
// (MPI_File_write_all).
func FileWriteAll[T Elem](f *File, buf []T, count int, dt Datatype) (Status, error) {
	return FileAccess(f, FileOp{Pos: Individual, Write: true, Collective: true}, 0, buf, count, dt)
}

// FileReadShared reads at the shared file pointer and moves it past what
// was read, atomically with respect to the other members' shared-pointer
// accesses (MPI_File_read_shared).
func FileReadShared[T Elem](f *File, buf []T, count int, dt Datatype) (Status, error) {
	return FileAccess(f, FileOp{Pos: Shared}, 0, buf, count, dt)
}

// FileWriteShared writes at the shared file pointer and moves it
// (MPI_File_write_shared).
func FileWriteShared[T Elem](f *File, buf []T, count int, dt Datatype) (Status, error) {
	return FileAccess(f, FileOp{Pos: Shared, Write: true}, 0, buf, count, dt)
}

// FileReadOrdered reads at the shared file pointer, collectively, the
// members' data one after the other in rank order (MPI_File_read_ordered).
func FileReadOrdered[T Elem](f *File, buf []T, count int, dt Datatype) (Status, error) {
	return FileAccess(f, FileOp{Pos: Ordered, Collective: true}, 0, buf, count, dt)
}

// FileWriteOrdered writes at the shared file pointer in rank order
// (MPI_File_write_ordered).
func FileWriteOrdered[T Elem](f *File, buf []T, count int, dt Datatype) (Status, error) {
	return FileAccess(f, FileOp{Pos: Ordered, Write: true, Collective: true}, 0, buf, count, dt)
}

// FileStart starts a nonblocking data access (MPI_File_iread_at,
// MPI_File_iwrite_all, ...: op names which) and returns its Request. The
// file pointers move as though the access were complete when FileStart
// returns. An independent access runs in the background and completes the
// request when its last byte has moved. A collective one (MPI-3.1's
// MPI_File_iread_all and the others) starts without waiting for the other
// members and moves on whenever the program tests or waits on a request
// (file_nbcoll.go), so that a member may exchange messages with others
// between its start and its completion; the Ordered positioning, which has
// no nonblocking form in MPI, agrees on its place before FileStart returns.
func FileStart[T Elem](f *File, op FileOp, off int64, buf []T, count int, dt Datatype) (*Request, error) {
	if err := f.check("I" + op.String()); err != nil {
		return nil, err
	}
	vw := view[T]
	if op.Write {
		vw = srcView[T]
	}
	b, _, err := vw(buf, count, dt, "I"+op.String())
	if err != nil {
		return nil, err
	}
	e := f.comm.env
	if op.Collective {
		a, err := f.prepare(op, off, b, count, dt)
		if err != nil {
			return nil, err
		}
		return f.startCollective(a)
	}
	var st Status
	var aerr error
	r, err := e.GrequestStart(func(s *Status) error { *s = st; return aerr })
	if err != nil {
		return nil, err
	}
	a, err := f.prepare(op, off, b, count, dt)
	if err != nil {
		return nil, err
	}
	go func() {
		st, aerr = f.run(a)
		r.GrequestComplete()
	}()
	return r, nil
}

// splitState is a split collective in progress (MPI_File_read_all_begin
// ... _end): its op and outcome.
type splitState struct {
	op  FileOp
	st  Status
	err error
}

// FileBegin begins a split collective access (MPI_File_read_at_all_begin,
// MPI_File_write_ordered_begin, ...; op.Collective must be set). Only one
// may be active on a file at a time: ErrOther for a second. The data moves
// here; FileEnd returns its Status.
func FileBegin[T Elem](f *File, op FileOp, off int64, buf []T, count int, dt Datatype) error {
	if err := f.check(op.String() + "Begin"); err != nil {
		return err
	}
	if !op.Collective {
		return errorf(ClassArg, "%vBegin: split collectives are collective", op)
	}
	f.mu.Lock()
	busy := f.split != nil
	f.mu.Unlock()
	if busy {
		return errorf(ClassOther, "%vBegin: a split collective is already active on the file", op)
	}
	st, err := FileAccess(f, op, off, buf, count, dt)
	if err != nil && ClassOf(err) == ClassFile {
		return err
	}
	f.mu.Lock()
	f.split = &splitState{op: op, st: st, err: err}
	f.mu.Unlock()
	return nil
}

// FileEnd ends the split collective FileBegin began with the same op and
// returns its Status (MPI_File_read_all_end, ...).
func FileEnd(f *File, op FileOp) (Status, error) {
	if err := f.check(op.String() + "End"); err != nil {
		return Status{}, err
	}
	f.mu.Lock()
	s := f.split
	if s != nil && s.op == op {
		f.split = nil
	}
	f.mu.Unlock()
	switch {
	case s == nil:
		return Status{}, errorf(ClassOther, "%vEnd without %vBegin", op, op)
	case s.op != op:
		return Status{}, errorf(ClassOther, "%vEnd: the active split collective is %v", op, s.op)
	}
	return s.st, s.err
}
