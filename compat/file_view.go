package compat

import (
	"math"
	"sort"
	"strings"

	"github.com/gshmem/gshmem/internal/mpitype"
)

// fileView is a file view (MPI-4.1 section 14.3): the file seen from a
// displacement as a stream of etypes, tiled by the filetype, whose data
// runs are the bytes this member sees. Positions (offsets and file
// pointers) count etypes of the stream; the stream's byte s lies in tile
// s/tsize at the run holding s%tsize.
type fileView struct {
	disp    int64
	etype   Datatype
	ftype   Datatype
	datarep string
	unit    func(m *mpitype.Map) int64 // bytes one instance of a memory type takes in the file
	esize   int64                       // bytes of one etype in the file
	tsize   int64  // data bytes of one filetype instance
	textent int64  // bytes from one filetype instance to the next
	runs    []frun // the filetype's data, in type-map order
}

// frun is a run of a filetype: off bytes from the tile's start, n bytes,
// the tile's data bytes before it at start.
type frun struct{ off, n, start int64 }

// nativeView is the view a file opens with: bytes from offset 0.
func nativeView() fileView {
	return fileView{etype: Byte, ftype: Byte, datarep: "native", unit: nativeUnit, esize: 1, tsize: 1, textent: 1, runs: []frun{{0, 1, 0}}}
}

// contiguous reports whether the view's stream is the file's bytes from
// disp on.
func (v *fileView) contiguous() bool {
	return len(v.runs) == 1 && v.runs[0].off == 0 && v.runs[0].n == v.textent
}

// newView checks and builds a view; writable tells whether the file was
// opened for writing, where MPI forbids overlapping etypes and filetypes
// (MPI-4.1 14.3; a read-only file may read a byte twice). fe and ff are
// the etype and filetype as the file lays them out: etype and ftype
// themselves, except for an external32 view of basic types whose
// external32 sizes differ from memory's (SetViewExternal).
//
// A filetype's (and an etype's) blocks must start at non-negative,
// nondecreasing displacements. Those layout errors are MPI_ERR_IO, as
// ROMIO (MPICH's and most codes' reference) reports them; a filetype that
// is not made of the etype is MPI_ERR_TYPE.
func newView(disp int64, etype, ftype, fe, ff Datatype, datarep string, writable bool) (fileView, error) {
	for _, t := range []Datatype{etype, ftype, fe, ff} {
		if err := t.Err(); err != nil {
			return fileView{}, err
		}
	}
	if disp < 0 {
		return fileView{}, errorf(ClassArg, "SetView: displacement %d", disp)
	}
	rep, err := lookupDatarep(datarep)
	if err != nil {
		return fileView{}, err
	}
	em, fm := mapOf(etype), mapOf(ftype)
	fem, ffm := mapOf(fe), mapOf(ff)
	v := fileView{disp: disp, etype: etype, ftype: ftype, datarep: rep, unit: nativeUnit, esize: int64(fem.Size()), tsize: int64(ffm.Size()), textent: int64(ffm.Extent())}
	if rep == "external32" {
		v.unit = externalUnit
		for _, p := range [][2]Datatype{{etype, fe}, {ftype, ff}} {
			m, fl := mapOf(p[0]), mapOf(p[1])
			switch {
			case p[0] == p[1] && !sameExternalLayout(m):
				return fileView{}, errorf(ClassUnsupportedDatarep, "SetView: %v is laid out otherwise in external32 than in memory: SetViewExternal takes its layout in the file", p[0])
			case m.ExternalSize(1) != fl.Size():
				return fileView{}, errorf(ClassArg, "SetView: %v takes %d bytes in external32, and its layout in the file %d", p[0], m.ExternalSize(1), fl.Size())
			}
		}
	} else if fe != etype || ff != ftype {
		return fileView{}, errorf(ClassArg, "SetView: file layouts of other types are for external32 views")
	}
	switch {
	case v.esize == 0:
		return fileView{}, errorf(ClassType, "SetView: etype %v has no data", etype)
	case v.tsize%v.esize != 0:
		return fileView{}, errorf(ClassType, "SetView: filetype %v is not made of whole etypes %v", ftype, etype)
	case em.Basic() != BasicByte && fm.Basic() != BasicByte && fm.Size() > 0 && em.Basic() != fm.Basic():
		return fileView{}, errorf(ClassType, "SetView: filetype %v is not made of etype %v", ftype, etype)
	}
	if _, err := layoutRuns(fem, etype, "etype", writable); err != nil {
		return fileView{}, err
	}
	if v.runs, err = layoutRuns(ffm, ftype, "filetype", writable); err != nil {
		return fileView{}, err
	}
	if len(v.runs) == 0 {
		return fileView{}, errorf(ClassType, "SetView: filetype %v has no data", ftype)
	}
	hi := int64(0)
	for _, r := range v.runs {
		hi = max(hi, r.off+r.n)
	}
	if writable && hi-v.runs[0].off > v.textent {
		return fileView{}, errorf(ClassIO, "SetView: filetype %v's extent %d is shorter than its data's span: its tiles would overlap", ftype, v.textent)
	}
	return v, nil
}

func nativeUnit(m *mpitype.Map) int64   { return int64(m.Size()) }
func externalUnit(m *mpitype.Map) int64 { return int64(m.ExternalSize(1)) }

// layoutRuns lists a view type's data runs, in type-map order, checking
// MPI's rules: blocks at non-negative, nondecreasing displacements, and no
// overlap when the file is writable.
func layoutRuns(m *mpitype.Map, t Datatype, what string, writable bool) ([]frun, error) {
	var runs []frun
	cur := m.Cursor(1)
	var start, end int64
	for {
		off, n := cur.Next(math.MaxInt)
		if n == 0 {
			break
		}
		r := frun{int64(off + m.TrueLB()), int64(n), start}
		switch k := len(runs); {
		case r.off < 0:
			return nil, errorf(ClassIO, "SetView: %s %v has a negative displacement (%d)", what, t, r.off)
		case k > 0 && r.off < runs[k-1].off:
			return nil, errorf(ClassIO, "SetView: %s %v has decreasing displacements (%d after %d)", what, t, r.off, runs[k-1].off)
		case k > 0 && r.off < end && writable:
			return nil, errorf(ClassIO, "SetView: %s %v has overlapping entries, which a file opened for writing cannot take", what, t)
		}
		runs = append(runs, r)
		start += r.n
		end = max(end, r.off+r.n)
	}
	return runs, nil
}

// monotone reports whether pieces lie at increasing file offsets without
// overlap (a view without overlapping entries gives such pieces).
func monotone(ps []piece) bool {
	for i := 1; i < len(ps); i++ {
		if ps[i].off < ps[i-1].off+ps[i-1].n {
			return false
		}
	}
	return true
}

// extents calls fn for the file byte ranges of the stream's bytes [s,
// s+n), in stream order, merging ranges that touch.
func (v *fileView) extents(s, n int64, fn func(fileOff, streamOff, n int64)) {
	if n <= 0 {
		return
	}
	if v.contiguous() {
		fn(v.disp+s, s, n)
		return
	}
	tile, r := s/v.tsize, s%v.tsize
	i := sort.Search(len(v.runs), func(i int) bool { return v.runs[i].start+v.runs[i].n > r })
	var pOff, pS, pN int64 = -1, 0, 0
	emit := func(off, st, k int64) {
		if pN > 0 && pOff+pN == off {
			pN += k
			return
		}
		if pN > 0 {
			fn(pOff, pS, pN)
		}
		pOff, pS, pN = off, st, k
	}
	for n > 0 {
		run := v.runs[i]
		in := r - run.start
		k := min(run.n-in, n)
		emit(v.disp+tile*v.textent+run.off+in, s, k)
		s, n, r = s+k, n-k, r+k
		if i++; i == len(v.runs) {
			i, r = 0, 0
			tile++
		}
	}
	if pN > 0 {
		fn(pOff, pS, pN)
	}
}

// byteOffset is the file offset of the stream's byte s (the start of the
// next data byte: past the end of the file's last run when s ends a tile).
func (v *fileView) byteOffset(s int64) int64 {
	if v.contiguous() {
		return v.disp + s
	}
	tile, r := s/v.tsize, s%v.tsize
	i := sort.Search(len(v.runs), func(i int) bool { return v.runs[i].start+v.runs[i].n > r })
	return v.disp + tile*v.textent + v.runs[i].off + r - v.runs[i].start
}

// SetView sets the file's view (MPI_File_set_view); collective, with the
// same datarep and etype size on every member. disp is in bytes
// (DisplacementCurrent on a ModeSequential file: the shared pointer's
// position); both file pointers go back to 0. The filetype must be made of
// etypes at nondecreasing displacements: ErrIO otherwise (and for
// overlapping entries in a file opened for writing); datarep is
// "native", "internal", "external32" or one RegisterDatarep made:
// ErrUnsupportedDatarep otherwise.
func (f *File) SetView(disp int64, etype, ftype Datatype, datarep string, info Info) error {
	return f.SetViewExternal(disp, etype, ftype, etype, ftype, datarep, info)
}

// SetViewExternal is SetView with the etype and filetype as the file
// lays them out, fe and ff, for an external32 view of basic types whose
// external32 size is not their size in memory (a C long: 8 bytes in
// memory, 4 in the file). fe and ff are the same constructions as etype
// and ftype over basic types of the external32 sizes, with byte
// displacements as given and the displacements of portable types scaled
// (MPI-4.1 14.5.2); the C library builds them from the types' envelopes.
// With fe == etype and ff == ftype it is SetView.
func (f *File) SetViewExternal(disp int64, etype, ftype, fe, ff Datatype, datarep string, info Info) error {
	if err := f.check("SetView"); err != nil {
		return err
	}
	if disp == DisplacementCurrent {
		if f.amode&ModeSequential == 0 {
			return errorf(ClassArg, "SetView: DisplacementCurrent on a file not opened SEQUENTIAL")
		}
		f.mu.Lock()
		old := f.view
		f.mu.Unlock()
		p, err := f.updateShared(func(o int64) int64 { return o })
		if err != nil {
			return err
		}
		disp = old.byteOffset(p * old.esize)
	}
	v, verr := newView(disp, etype, ftype, fe, ff, strings.ToLower(datarep), f.amode&ModeRdonly == 0)
	// The same datarep and etype size everywhere (MPI's rule), and one
	// outcome: a member whose view was refused fails every member.
	h := int64(0)
	for _, c := range v.datarep {
		h = h*31 + int64(c)
	}
	code := int64(ClassSuccess)
	if verr != nil {
		code = int64(ClassOf(verr))
	}
	mine := []int64{code, h, v.esize}
	all := make([]int64, 3*f.comm.Size())
	if err := Allgather(f.comm, mine, 3, Int64, all, 3, Int64); err != nil {
		return err
	}
	if verr != nil {
		return verr
	}
	for r := 0; r < f.comm.Size(); r++ {
		switch {
		case all[3*r] != int64(ClassSuccess):
			return errorf(Class(all[3*r]), "SetView: refused on rank %d", r)
		case all[3*r+1] != h:
			return errorf(ClassNotSame, "SetView: rank %d uses another datarep than %q", r, datarep)
		case all[3*r+2] != v.esize:
			return errorf(ClassNotSame, "SetView: rank %d's etype has another size than %d", r, v.esize)
		}
	}
	if _, err := parseHints(info, f.hints); err != nil {
		return err
	}
	f.mu.Lock()
	f.view, f.pos = v, 0
	f.hints, _ = parseHints(info, f.hints)
	f.mu.Unlock()
	if f.comm.Rank() == 0 {
		if err := f.storeShared(0); err != nil {
			return agree(f.comm, err, "SetView")
		}
	}
	return agree(f.comm, nil, "SetView")
}

// View returns the file's view (MPI_File_get_view): displacement, etype,
// filetype and data representation.
func (f *File) View() (disp int64, etype, ftype Datatype, datarep string, err error) {
	if err := f.check("View"); err != nil {
		return 0, Datatype{}, Datatype{}, "", err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.view.disp, f.view.etype, f.view.ftype, f.view.datarep, nil
}

// ByteOffset returns the absolute byte position in the file of the view's
// offset off, in etypes (MPI_File_get_byte_offset).
func (f *File) ByteOffset(off int64) (int64, error) {
	if err := f.check("ByteOffset"); err != nil {
		return 0, err
	}
	if off < 0 {
		return 0, errorf(ClassArg, "ByteOffset(%d): a negative offset", off)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.view.byteOffset(off * f.view.esize), nil
}

// TypeExtent returns the extent of dt in the file's data representation
// (MPI_File_get_type_extent).
func (f *File) TypeExtent(dt Datatype) (int64, error) {
	if err := f.check("TypeExtent"); err != nil {
		return 0, err
	}
	if err := dt.Err(); err != nil {
		return 0, err
	}
	f.mu.Lock()
	rep := f.view.datarep
	f.mu.Unlock()
	return datarepExtent(rep, dt)
}
