package perf

import (
	"context"
	"fmt"
	"strings"

	"github.com/gshmem/gshmem/shmem"
)

// Datatypes are the --datatype values, as NVSHMEM's perftests name them
// after the C types.
var Datatypes = []string{"int32", "int64", "uint32", "uint64", "float32", "float64"}

// number is the element types a test can be instantiated with.
type number interface {
	~int32 | ~int64 | ~uint32 | ~uint64 | ~float32 | ~float64
}

func elemSize(dt string) (int, error) {
	switch dt {
	case "int32", "uint32", "float32":
		return 4, nil
	case "int64", "uint64", "float64":
		return 8, nil
	}
	return 0, fmt.Errorf("perf: datatype %q: want one of %s", dt, strings.Join(Datatypes, ", "))
}

// typed holds one instantiation of a generic test per datatype.
type typed struct {
	i32, i64, u32, u64, f32, f64 Func
}

// byDatatype returns a Func that runs the instantiation for cfg's datatype.
func byDatatype(t typed) Func {
	return func(ctx context.Context, w *shmem.World, cfg Config) ([]Row, error) {
		var f Func
		switch cfg.Datatype {
		case "int32":
			f = t.i32
		case "int64":
			f = t.i64
		case "uint32":
			f = t.u32
		case "uint64":
			f = t.u64
		case "float32":
			f = t.f32
		case "float64":
			f = t.f64
		}
		if f == nil {
			_, err := elemSize(cfg.Datatype)
			if err == nil {
				err = fmt.Errorf("perf: datatype %s is not supported by this test", cfg.Datatype)
			}
			return nil, err
		}
		rows, err := f(ctx, w, cfg)
		for i := range rows {
			if rows[i].Datatype == "" {
				rows[i].Datatype = cfg.Datatype
			}
		}
		return rows, err
	}
}
