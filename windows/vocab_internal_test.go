package windows

import (
	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/mpitype"
)

// These compile only while windows takes compat's Op, Datatype, Group,
// Request and Info themselves, which are the engine's: were a layer to
// declare its own Op or Datatype again (with its own numbering, as windows
// and compat once did), a value of one could be converted into the other
// and mean something else there; then these assignments stop compiling.
var (
	_ func(compat.Op) mpitype.Op             = func(o compat.Op) mpitype.Op { return o }
	_ func(compat.Datatype) mpitype.Datatype = func(d compat.Datatype) mpitype.Datatype { return d }
	_ func(*Win, compat.Op) error            = func(w *Win, o compat.Op) error { return Accumulate(w, []int64{1}, 0, 0, o) }
	_ func(*Win, compat.Datatype) error      = func(w *Win, d compat.Datatype) error {
		return PutTyped(w, []int64{1}, 1, d, 0, 0, 1, d)
	}
	_ func(*Win, *compat.Group) error                       = func(w *Win, g *compat.Group) error { return w.Post(g, 0) }
	_ func(*Win) (*compat.Request, error)                   = func(w *Win) (*compat.Request, error) { return Rput(w, []int64{1}, 0, 0) }
	_ func(*compat.Comm, compat.Info) (*Win, error)         = func(c *compat.Comm, i compat.Info) (*Win, error) { return Allocate(c, 8, 1, i) }
	_ func(*Win) (*compat.Group, error)                     = (*Win).Group
	_ func(*Win, int64, int, int, compat.Op) (int64, error) = FetchAndOp[int64]
)
