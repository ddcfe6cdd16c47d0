package compat

import (
	"strings"
	"sync"

	"github.com/gshmem/gshmem/internal/mpitype"
)

// Data representations (MPI-4.1 section 14.5): how a view's data lies in
// the file. "native" and "internal" are the bytes of memory; "external32"
// is big-endian (every basic element's bytes reversed on this
// little-endian host, a complex number's and a pair type's parts each on
// its own); RegisterDatarep adds representations with the user's
// conversion functions.

// DatarepConversion converts count instances of dt between userbuf
// (memory, laid out by dt) and filebuf (the file's bytes, packed), at
// position, in instances of dt, within the current access
// (MPI_Datarep_conversion_function).
type DatarepConversion func(userbuf []byte, dt Datatype, count int, filebuf []byte, position int64) error

// DatarepExtent returns the extent in the file of a basic datatype
// (MPI_Datarep_extent_function).
type DatarepExtent func(dt Datatype) (int64, error)

type userDatarep struct {
	read, write DatarepConversion
	extent      DatarepExtent
}

var dataReps = struct {
	mu   sync.Mutex
	user map[string]userDatarep
}{user: map[string]userDatarep{}}

// RegisterDatarep adds a data representation named name
// (MPI_Register_datarep): read and write convert between memory and the
// file (nil: the bytes of memory, as MPI_CONVERSION_FN_NULL), extent gives
// each basic datatype's size in the file. A name already known is
// ErrDupDatarep. The file's layout follows the view's displacements in
// memory's sizes, so a representation whose basic sizes differ from
// memory's is ErrUnsupportedDatarep when a view selects it.
func RegisterDatarep(name string, read, write DatarepConversion, extent DatarepExtent) error {
	if name == "" || len(name) >= 128 {
		return errorf(ClassArg, "RegisterDatarep: name %q (1 to 127 bytes)", name)
	}
	if extent == nil {
		return errorf(ClassArg, "RegisterDatarep(%q): no extent function", name)
	}
	dataReps.mu.Lock()
	defer dataReps.mu.Unlock()
	if _, err := lookupDatarepLocked(name); err == nil {
		return errorf(ClassDupDatarep, "RegisterDatarep: %q is already a data representation", name)
	}
	dataReps.user[name] = userDatarep{read, write, extent}
	return nil
}

func lookupDatarep(name string) (string, error) {
	dataReps.mu.Lock()
	defer dataReps.mu.Unlock()
	return lookupDatarepLocked(name)
}

func lookupDatarepLocked(name string) (string, error) {
	switch n := strings.ToLower(name); n {
	case "native", "internal", "external32":
		return n, nil
	}
	if _, ok := dataReps.user[name]; ok {
		return name, nil
	}
	return "", errorf(ClassUnsupportedDatarep, "data representation %q", name)
}

func userRep(name string) (userDatarep, bool) {
	dataReps.mu.Lock()
	defer dataReps.mu.Unlock()
	u, ok := dataReps.user[name]
	return u, ok
}

// datarepExtent is dt's extent in the file under rep.
func datarepExtent(rep string, dt Datatype) (int64, error) {
	m := mapOf(dt)
	if u, ok := userRep(rep); ok {
		b := mpitype.Predefined(m.Basic())
		e, err := u.extent(b)
		if err != nil {
			return 0, errorf(ClassConversion, "datarep %q: extent function: %v", rep, err)
		}
		if e != int64(m.Basic().Size()) {
			return 0, errorf(ClassUnsupportedDatarep, "datarep %q: %v is %d bytes in the file and %d in memory", rep, m.Basic(), e, m.Basic().Size())
		}
	}
	if rep == "external32" && !sameExternalLayout(m) {
		if !m.Predefined() {
			return 0, errorf(ClassUnsupportedDatarep, "TypeExtent: %v is laid out otherwise in external32 than in memory", dt)
		}
		return int64(m.ExternalSize(1)), nil
	}
	return int64(m.Extent()), nil
}

// toFile returns count instances of dt, packed in stream, as the file
// holds them under rep: stream itself for native data, else a converted
// copy (the caller's memory is never changed). mem and memDT are the
// user's buffer and datatype, which a user conversion function reads.
func toFile(rep string, stream []byte, dt Datatype, count int, mem []byte, pos int64) ([]byte, error) {
	switch rep {
	case "native", "internal":
		return stream, nil
	case "external32":
		m := mapOf(dt)
		out := make([]byte, m.ExternalSize(count))
		m.PackExternal(out, mem, count)
		return out, nil
	}
	u, _ := userRep(rep)
	if _, err := datarepExtent(rep, dt); err != nil {
		return nil, err
	}
	if u.write == nil {
		return stream, nil
	}
	out := make([]byte, len(stream))
	if err := u.write(mem, dt, count, out, pos); err != nil {
		return nil, errorf(ClassConversion, "datarep %q: write conversion: %v", rep, err)
	}
	return out, nil
}

// fromFile turns file bytes read under rep into memory's representation,
// in place (user functions write the user's buffer themselves: done
// reports that they did).
func fromFile(rep string, data []byte, dt Datatype, count int, mem []byte, pos int64) (done bool, err error) {
	switch rep {
	case "native", "internal":
		return false, nil
	case "external32":
		m := mapOf(dt)
		if ext := m.ExternalSize(1); ext > 0 {
			whole := len(data) / ext
			m.UnpackExternal(mem, data[:whole*ext], whole)
		}
		return true, nil
	}
	u, _ := userRep(rep)
	if _, err := datarepExtent(rep, dt); err != nil {
		return false, err
	}
	if u.read == nil {
		return false, nil
	}
	if err := u.read(mem, dt, count, data, pos); err != nil {
		return false, errorf(ClassConversion, "datarep %q: read conversion: %v", rep, err)
	}
	return true, nil
}

// sameExternalLayout reports whether m's data lies in external32 as in
// memory: every basic element takes its memory extent (not a C long, 4
// bytes in external32; not a pair type, whose padding external32 drops).
func sameExternalLayout(m *mpitype.Map) bool {
	same := true
	m.EachSeg(1, func(s mpitype.Seg) bool {
		bm := mpitype.BasicMap(s.B)
		same = int(s.Ext) == bm.Extent()
		return same
	})
	return same
}

// nativeOfExternal is the bytes in memory of the basic elements wholly in
// the first n bytes of instances of m in external32: a read's data in the
// status's terms.
func nativeOfExternal(m *mpitype.Map, n int64) int64 {
	ext := int64(m.ExternalSize(1))
	if ext == 0 {
		return 0
	}
	whole, rest := n/ext, n%ext
	out := whole * int64(m.Size())
	m.EachSeg(1, func(s mpitype.Seg) bool {
		for range s.N {
			if rest < int64(s.Ext) {
				return false
			}
			rest -= int64(s.Ext)
			out += int64(s.B.Size())
		}
		return true
	})
	return out
}
