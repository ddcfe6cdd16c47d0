package main

/*
#include "abi.h"
*/
import "C"

import (
	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/mpierr"
)

// The data access calls of MPI-IO: every positioning (explicit offsets,
// individual and shared file pointers, ordered), blocking, nonblocking and
// split collective, each in its int and large-count (_c) form. Each entry
// point names its compat.FileOp and goes to one of four bodies below.

// fileBuf checks a buffer argument (buf, count, datatype) and returns the
// bytes count instances span.
func fileBuf(buf C.uintptr_t, count int64, dtype C.uintptr_t) ([]byte, compat.Datatype, error) {
	dt, ok := typeOf(dtype, true)
	if !ok {
		return nil, dt, mpierr.Errorf(mpierr.ClassType, "invalid or uncommitted datatype")
	}
	if count < 0 {
		return nil, dt, mpierr.Errorf(mpierr.ClassCount, "count %d", count)
	}
	b, ok := tbuf(buf, dt, int(count))
	if !ok {
		return nil, dt, mpierr.Errorf(mpierr.ClassBuffer, "buffer %#x for %d elements", uintptr(buf), count)
	}
	return b, dt, nil
}

func fileAccess(call string, fh C.uintptr_t, op compat.FileOp, off C.MPI_Offset, buf C.uintptr_t, count int64, dtype C.uintptr_t, st *C.MPI_Status) C.int {
	return fileCall(fh, call, func(o *fileObj) error {
		if s, ok, err := convertedAccess(o, op, int64(off), buf, count, dtype); ok {
			if err == nil {
				setStatus(st, s)
			}
			return err
		}
		b, dt, err := fileBuf(buf, count, dtype)
		if err != nil {
			return err
		}
		s, err := compat.FileAccess(o.f, op, int64(off), b, int(count), dt)
		if err == nil {
			setStatus(st, s)
		}
		return err
	})
}

func fileStart(call string, fh C.uintptr_t, op compat.FileOp, off C.MPI_Offset, buf C.uintptr_t, count int64, dtype C.uintptr_t, req *C.uintptr_t) C.int {
	return fileCall(fh, call, func(o *fileObj) error {
		if req == nil {
			return argErr("request is NULL")
		}
		// Through a program's conversion functions the access runs now,
		// and its request is complete when it returns.
		if s, ok, err := convertedAccess(o, op, int64(off), buf, count, dtype); ok {
			if err != nil {
				return err
			}
			r, err := env.e.GrequestStart(func(st *compat.Status) error { *st = s; return nil })
			if err == nil {
				r.GrequestComplete()
				*req = newOwnedRequest(r, fh, C.ABI_KIND_FILE, nil)
			}
			return err
		}
		b, dt, err := fileBuf(buf, count, dtype)
		if err != nil {
			return err
		}
		r, err := compat.FileStart(o.f, op, int64(off), b, int(count), dt)
		if err == nil {
			*req = newOwnedRequest(r, fh, C.ABI_KIND_FILE, nil)
		}
		return err
	})
}

// splitResult is a split collective made through a program's conversion
// functions: done at its begin, returned at its end.
type splitResult struct {
	op  compat.FileOp
	st  compat.Status
	err error
}

func fileBegin(call string, fh C.uintptr_t, op compat.FileOp, off C.MPI_Offset, buf C.uintptr_t, count int64, dtype C.uintptr_t) C.int {
	return fileCall(fh, call, func(o *fileObj) error {
		if o.split != nil {
			return mpierr.Errorf(mpierr.ClassOther, "a split collective is already active on the file")
		}
		if s, ok, err := convertedAccess(o, op, int64(off), buf, count, dtype); ok {
			o.split = &splitResult{op, s, err}
			return nil
		}
		b, dt, err := fileBuf(buf, count, dtype)
		if err != nil {
			return err
		}
		return compat.FileBegin(o.f, op, int64(off), b, int(count), dt)
	})
}

func fileEnd(call string, fh C.uintptr_t, op compat.FileOp, st *C.MPI_Status) C.int {
	return fileCall(fh, call, func(o *fileObj) error {
		if sp := o.split; sp != nil {
			if sp.op != op {
				return mpierr.Errorf(mpierr.ClassOther, "the active split collective is %v", sp.op)
			}
			o.split = nil
			if sp.err == nil {
				setStatus(st, sp.st)
			}
			return sp.err
		}
		s, err := compat.FileEnd(o.f, op)
		if err == nil {
			setStatus(st, s)
		}
		return err
	})
}

//export abigo_File_read_at
func abigo_File_read_at(fh C.uintptr_t, off C.MPI_Offset, buf C.uintptr_t, count C.int, dtype C.uintptr_t, st *C.MPI_Status) C.int {
	return fileAccess("MPI_File_read_at", fh, compat.FileOp{Pos: compat.AtOffset}, off, buf, int64(count), dtype, st)
}

//export abigo_File_iread_at
func abigo_File_iread_at(fh C.uintptr_t, off C.MPI_Offset, buf C.uintptr_t, count C.int, dtype C.uintptr_t, req *C.uintptr_t) C.int {
	return fileStart("MPI_File_iread_at", fh, compat.FileOp{Pos: compat.AtOffset}, off, buf, int64(count), dtype, req)
}

//export abigo_File_read_at_c
func abigo_File_read_at_c(fh C.uintptr_t, off C.MPI_Offset, buf C.uintptr_t, count C.MPI_Count, dtype C.uintptr_t, st *C.MPI_Status) C.int {
	return fileAccess("MPI_File_read_at_c", fh, compat.FileOp{Pos: compat.AtOffset}, off, buf, int64(count), dtype, st)
}

//export abigo_File_iread_at_c
func abigo_File_iread_at_c(fh C.uintptr_t, off C.MPI_Offset, buf C.uintptr_t, count C.MPI_Count, dtype C.uintptr_t, req *C.uintptr_t) C.int {
	return fileStart("MPI_File_iread_at_c", fh, compat.FileOp{Pos: compat.AtOffset}, off, buf, int64(count), dtype, req)
}

//export abigo_File_write_at
func abigo_File_write_at(fh C.uintptr_t, off C.MPI_Offset, buf C.uintptr_t, count C.int, dtype C.uintptr_t, st *C.MPI_Status) C.int {
	return fileAccess("MPI_File_write_at", fh, compat.FileOp{Pos: compat.AtOffset, Write: true}, off, buf, int64(count), dtype, st)
}

//export abigo_File_iwrite_at
func abigo_File_iwrite_at(fh C.uintptr_t, off C.MPI_Offset, buf C.uintptr_t, count C.int, dtype C.uintptr_t, req *C.uintptr_t) C.int {
	return fileStart("MPI_File_iwrite_at", fh, compat.FileOp{Pos: compat.AtOffset, Write: true}, off, buf, int64(count), dtype, req)
}

//export abigo_File_write_at_c
func abigo_File_write_at_c(fh C.uintptr_t, off C.MPI_Offset, buf C.uintptr_t, count C.MPI_Count, dtype C.uintptr_t, st *C.MPI_Status) C.int {
	return fileAccess("MPI_File_write_at_c", fh, compat.FileOp{Pos: compat.AtOffset, Write: true}, off, buf, int64(count), dtype, st)
}

//export abigo_File_iwrite_at_c
func abigo_File_iwrite_at_c(fh C.uintptr_t, off C.MPI_Offset, buf C.uintptr_t, count C.MPI_Count, dtype C.uintptr_t, req *C.uintptr_t) C.int {
	return fileStart("MPI_File_iwrite_at_c", fh, compat.FileOp{Pos: compat.AtOffset, Write: true}, off, buf, int64(count), dtype, req)
}

//export abigo_File_read_at_all
func abigo_File_read_at_all(fh C.uintptr_t, off C.MPI_Offset, buf C.uintptr_t, count C.int, dtype C.uintptr_t, st *C.MPI_Status) C.int {
	return fileAccess("MPI_File_read_at_all", fh, compat.FileOp{Pos: compat.AtOffset, Collective: true}, off, buf, int64(count), dtype, st)
}

//export abigo_File_iread_at_all
func abigo_File_iread_at_all(fh C.uintptr_t, off C.MPI_Offset, buf C.uintptr_t, count C.int, dtype C.uintptr_t, req *C.uintptr_t) C.int {
	return fileStart("MPI_File_iread_at_all", fh, compat.FileOp{Pos: compat.AtOffset, Collective: true}, off, buf, int64(count), dtype, req)
}

//export abigo_File_read_at_all_begin
func abigo_File_read_at_all_begin(fh C.uintptr_t, off C.MPI_Offset, buf C.uintptr_t, count C.int, dtype C.uintptr_t) C.int {
	return fileBegin("MPI_File_read_at_all_begin", fh, compat.FileOp{Pos: compat.AtOffset, Collective: true}, off, buf, int64(count), dtype)
}

//export abigo_File_read_at_all_c
func abigo_File_read_at_all_c(fh C.uintptr_t, off C.MPI_Offset, buf C.uintptr_t, count C.MPI_Count, dtype C.uintptr_t, st *C.MPI_Status) C.int {
	return fileAccess("MPI_File_read_at_all_c", fh, compat.FileOp{Pos: compat.AtOffset, Collective: true}, off, buf, int64(count), dtype, st)
}

//export abigo_File_iread_at_all_c
func abigo_File_iread_at_all_c(fh C.uintptr_t, off C.MPI_Offset, buf C.uintptr_t, count C.MPI_Count, dtype C.uintptr_t, req *C.uintptr_t) C.int {
	return fileStart("MPI_File_iread_at_all_c", fh, compat.FileOp{Pos: compat.AtOffset, Collective: true}, off, buf, int64(count), dtype, req)
}

//export abigo_File_read_at_all_begin_c
func abigo_File_read_at_all_begin_c(fh C.uintptr_t, off C.MPI_Offset, buf C.uintptr_t, count C.MPI_Count, dtype C.uintptr_t) C.int {
	return fileBegin("MPI_File_read_at_all_begin_c", fh, compat.FileOp{Pos: compat.AtOffset, Collective: true}, off, buf, int64(count), dtype)
}

//export abigo_File_read_at_all_end
func abigo_File_read_at_all_end(fh C.uintptr_t, buf C.uintptr_t, st *C.MPI_Status) C.int {
	return fileEnd("MPI_File_read_at_all_end", fh, compat.FileOp{Pos: compat.AtOffset, Collective: true}, st)
}

//export abigo_File_write_at_all
func abigo_File_write_at_all(fh C.uintptr_t, off C.MPI_Offset, buf C.uintptr_t, count C.int, dtype C.uintptr_t, st *C.MPI_Status) C.int {
	return fileAccess("MPI_File_write_at_all", fh, compat.FileOp{Pos: compat.AtOffset, Write: true, Collective: true}, off, buf, int64(count), dtype, st)
}

//export abigo_File_iwrite_at_all
func abigo_File_iwrite_at_all(fh C.uintptr_t, off C.MPI_Offset, buf C.uintptr_t, count C.int, dtype C.uintptr_t, req *C.uintptr_t) C.int {
	return fileStart("MPI_File_iwrite_at_all", fh, compat.FileOp{Pos: compat.AtOffset, Write: true, Collective: true}, off, buf, int64(count), dtype, req)
}

//export abigo_File_write_at_all_begin
func abigo_File_write_at_all_begin(fh C.uintptr_t, off C.MPI_Offset, buf C.uintptr_t, count C.int, dtype C.uintptr_t) C.int {
	return fileBegin("MPI_File_write_at_all_begin", fh, compat.FileOp{Pos: compat.AtOffset, Write: true, Collective: true}, off, buf, int64(count), dtype)
}

//export abigo_File_write_at_all_c
func abigo_File_write_at_all_c(fh C.uintptr_t, off C.MPI_Offset, buf C.uintptr_t, count C.MPI_Count, dtype C.uintptr_t, st *C.MPI_Status) C.int {
	return fileAccess("MPI_File_write_at_all_c", fh, compat.FileOp{Pos: compat.AtOffset, Write: true, Collective: true}, off, buf, int64(count), dtype, st)
}

//export abigo_File_iwrite_at_all_c
func abigo_File_iwrite_at_all_c(fh C.uintptr_t, off C.MPI_Offset, buf C.uintptr_t, count C.MPI_Count, dtype C.uintptr_t, req *C.uintptr_t) C.int {
	return fileStart("MPI_File_iwrite_at_all_c", fh, compat.FileOp{Pos: compat.AtOffset, Write: true, Collective: true}, off, buf, int64(count), dtype, req)
}

//export abigo_File_write_at_all_begin_c
func abigo_File_write_at_all_begin_c(fh C.uintptr_t, off C.MPI_Offset, buf C.uintptr_t, count C.MPI_Count, dtype C.uintptr_t) C.int {
	return fileBegin("MPI_File_write_at_all_begin_c", fh, compat.FileOp{Pos: compat.AtOffset, Write: true, Collective: true}, off, buf, int64(count), dtype)
}

//export abigo_File_write_at_all_end
func abigo_File_write_at_all_end(fh C.uintptr_t, buf C.uintptr_t, st *C.MPI_Status) C.int {
	return fileEnd("MPI_File_write_at_all_end", fh, compat.FileOp{Pos: compat.AtOffset, Write: true, Collective: true}, st)
}

//export abigo_File_read
func abigo_File_read(fh C.uintptr_t, buf C.uintptr_t, count C.int, dtype C.uintptr_t, st *C.MPI_Status) C.int {
	return fileAccess("MPI_File_read", fh, compat.FileOp{Pos: compat.Individual}, 0, buf, int64(count), dtype, st)
}

//export abigo_File_iread
func abigo_File_iread(fh C.uintptr_t, buf C.uintptr_t, count C.int, dtype C.uintptr_t, req *C.uintptr_t) C.int {
	return fileStart("MPI_File_iread", fh, compat.FileOp{Pos: compat.Individual}, 0, buf, int64(count), dtype, req)
}

//export abigo_File_read_c
func abigo_File_read_c(fh C.uintptr_t, buf C.uintptr_t, count C.MPI_Count, dtype C.uintptr_t, st *C.MPI_Status) C.int {
	return fileAccess("MPI_File_read_c", fh, compat.FileOp{Pos: compat.Individual}, 0, buf, int64(count), dtype, st)
}

//export abigo_File_iread_c
func abigo_File_iread_c(fh C.uintptr_t, buf C.uintptr_t, count C.MPI_Count, dtype C.uintptr_t, req *C.uintptr_t) C.int {
	return fileStart("MPI_File_iread_c", fh, compat.FileOp{Pos: compat.Individual}, 0, buf, int64(count), dtype, req)
}

//export abigo_File_write
func abigo_File_write(fh C.uintptr_t, buf C.uintptr_t, count C.int, dtype C.uintptr_t, st *C.MPI_Status) C.int {
	return fileAccess("MPI_File_write", fh, compat.FileOp{Pos: compat.Individual, Write: true}, 0, buf, int64(count), dtype, st)
}

//export abigo_File_iwrite
func abigo_File_iwrite(fh C.uintptr_t, buf C.uintptr_t, count C.int, dtype C.uintptr_t, req *C.uintptr_t) C.int {
	return fileStart("MPI_File_iwrite", fh, compat.FileOp{Pos: compat.Individual, Write: true}, 0, buf, int64(count), dtype, req)
}

//export abigo_File_write_c
func abigo_File_write_c(fh C.uintptr_t, buf C.uintptr_t, count C.MPI_Count, dtype C.uintptr_t, st *C.MPI_Status) C.int {
	return fileAccess("MPI_File_write_c", fh, compat.FileOp{Pos: compat.Individual, Write: true}, 0, buf, int64(count), dtype, st)
}

//export abigo_File_iwrite_c
func abigo_File_iwrite_c(fh C.uintptr_t, buf C.uintptr_t, count C.MPI_Count, dtype C.uintptr_t, req *C.uintptr_t) C.int {
	return fileStart("MPI_File_iwrite_c", fh, compat.FileOp{Pos: compat.Individual, Write: true}, 0, buf, int64(count), dtype, req)
}

//export abigo_File_read_all
func abigo_File_read_all(fh C.uintptr_t, buf C.uintptr_t, count C.int, dtype C.uintptr_t, st *C.MPI_Status) C.int {
	return fileAccess("MPI_File_read_all", fh, compat.FileOp{Pos: compat.Individual, Collective: true}, 0, buf, int64(count), dtype, st)
}

//export abigo_File_iread_all
func abigo_File_iread_all(fh C.uintptr_t, buf C.uintptr_t, count C.int, dtype C.uintptr_t, req *C.uintptr_t) C.int {
	return fileStart("MPI_File_iread_all", fh, compat.FileOp{Pos: compat.Individual, Collective: true}, 0, buf, int64(count), dtype, req)
}

//export abigo_File_read_all_begin
func abigo_File_read_all_begin(fh C.uintptr_t, buf C.uintptr_t, count C.int, dtype C.uintptr_t) C.int {
	return fileBegin("MPI_File_read_all_begin", fh, compat.FileOp{Pos: compat.Individual, Collective: true}, 0, buf, int64(count), dtype)
}

//export abigo_File_read_all_c
func abigo_File_read_all_c(fh C.uintptr_t, buf C.uintptr_t, count C.MPI_Count, dtype C.uintptr_t, st *C.MPI_Status) C.int {
	return fileAccess("MPI_File_read_all_c", fh, compat.FileOp{Pos: compat.Individual, Collective: true}, 0, buf, int64(count), dtype, st)
}

//export abigo_File_iread_all_c
func abigo_File_iread_all_c(fh C.uintptr_t, buf C.uintptr_t, count C.MPI_Count, dtype C.uintptr_t, req *C.uintptr_t) C.int {
	return fileStart("MPI_File_iread_all_c", fh, compat.FileOp{Pos: compat.Individual, Collective: true}, 0, buf, int64(count), dtype, req)
}

//export abigo_File_read_all_begin_c
func abigo_File_read_all_begin_c(fh C.uintptr_t, buf C.uintptr_t, count C.MPI_Count, dtype C.uintptr_t) C.int {
	return fileBegin("MPI_File_read_all_begin_c", fh, compat.FileOp{Pos: compat.Individual, Collective: true}, 0, buf, int64(count), dtype)
}

//export abigo_File_read_all_end
func abigo_File_read_all_end(fh C.uintptr_t, buf C.uintptr_t, st *C.MPI_Status) C.int {
	return fileEnd("MPI_File_read_all_end", fh, compat.FileOp{Pos: compat.Individual, Collective: true}, st)
}

//export abigo_File_write_all
func abigo_File_write_all(fh C.uintptr_t, buf C.uintptr_t, count C.int, dtype C.uintptr_t, st *C.MPI_Status) C.int {
	return fileAccess("MPI_File_write_all", fh, compat.FileOp{Pos: compat.Individual, Write: true, Collective: true}, 0, buf, int64(count), dtype, st)
}

//export abigo_File_iwrite_all
func abigo_File_iwrite_all(fh C.uintptr_t, buf C.uintptr_t, count C.int, dtype C.uintptr_t, req *C.uintptr_t) C.int {
	return fileStart("MPI_File_iwrite_all", fh, compat.FileOp{Pos: compat.Individual, Write: true, Collective: true}, 0, buf, int64(count), dtype, req)
}

//export abigo_File_write_all_begin
func abigo_File_write_all_begin(fh C.uintptr_t, buf C.uintptr_t, count C.int, dtype C.uintptr_t) C.int {
	return fileBegin("MPI_File_write_all_begin", fh, compat.FileOp{Pos: compat.Individual, Write: true, Collective: true}, 0, buf, int64(count), dtype)
}

//export abigo_File_write_all_c
func abigo_File_write_all_c(fh C.uintptr_t, buf C.uintptr_t, count C.MPI_Count, dtype C.uintptr_t, st *C.MPI_Status) C.int {
	return fileAccess("MPI_File_write_all_c", fh, compat.FileOp{Pos: compat.Individual, Write: true, Collective: true}, 0, buf, int64(count), dtype, st)
}

//export abigo_File_iwrite_all_c
func abigo_File_iwrite_all_c(fh C.uintptr_t, buf C.uintptr_t, count C.MPI_Count, dtype C.uintptr_t, req *C.uintptr_t) C.int {
	return fileStart("MPI_File_iwrite_all_c", fh, compat.FileOp{Pos: compat.Individual, Write: true, Collective: true}, 0, buf, int64(count), dtype, req)
}

//export abigo_File_write_all_begin_c
func abigo_File_write_all_begin_c(fh C.uintptr_t, buf C.uintptr_t, count C.MPI_Count, dtype C.uintptr_t) C.int {
	return fileBegin("MPI_File_write_all_begin_c", fh, compat.FileOp{Pos: compat.Individual, Write: true, Collective: true}, 0, buf, int64(count), dtype)
}

//export abigo_File_write_all_end
func abigo_File_write_all_end(fh C.uintptr_t, buf C.uintptr_t, st *C.MPI_Status) C.int {
	return fileEnd("MPI_File_write_all_end", fh, compat.FileOp{Pos: compat.Individual, Write: true, Collective: true}, st)
}

//export abigo_File_read_shared
func abigo_File_read_shared(fh C.uintptr_t, buf C.uintptr_t, count C.int, dtype C.uintptr_t, st *C.MPI_Status) C.int {
	return fileAccess("MPI_File_read_shared", fh, compat.FileOp{Pos: compat.Shared}, 0, buf, int64(count), dtype, st)
}

//export abigo_File_iread_shared
func abigo_File_iread_shared(fh C.uintptr_t, buf C.uintptr_t, count C.int, dtype C.uintptr_t, req *C.uintptr_t) C.int {
	return fileStart("MPI_File_iread_shared", fh, compat.FileOp{Pos: compat.Shared}, 0, buf, int64(count), dtype, req)
}

//export abigo_File_read_shared_c
func abigo_File_read_shared_c(fh C.uintptr_t, buf C.uintptr_t, count C.MPI_Count, dtype C.uintptr_t, st *C.MPI_Status) C.int {
	return fileAccess("MPI_File_read_shared_c", fh, compat.FileOp{Pos: compat.Shared}, 0, buf, int64(count), dtype, st)
}

//export abigo_File_iread_shared_c
func abigo_File_iread_shared_c(fh C.uintptr_t, buf C.uintptr_t, count C.MPI_Count, dtype C.uintptr_t, req *C.uintptr_t) C.int {
	return fileStart("MPI_File_iread_shared_c", fh, compat.FileOp{Pos: compat.Shared}, 0, buf, int64(count), dtype, req)
}

//export abigo_File_write_shared
func abigo_File_write_shared(fh C.uintptr_t, buf C.uintptr_t, count C.int, dtype C.uintptr_t, st *C.MPI_Status) C.int {
	return fileAccess("MPI_File_write_shared", fh, compat.FileOp{Pos: compat.Shared, Write: true}, 0, buf, int64(count), dtype, st)
}

//export abigo_File_iwrite_shared
func abigo_File_iwrite_shared(fh C.uintptr_t, buf C.uintptr_t, count C.int, dtype C.uintptr_t, req *C.uintptr_t) C.int {
	return fileStart("MPI_File_iwrite_shared", fh, compat.FileOp{Pos: compat.Shared, Write: true}, 0, buf, int64(count), dtype, req)
}

//export abigo_File_write_shared_c
func abigo_File_write_shared_c(fh C.uintptr_t, buf C.uintptr_t, count C.MPI_Count, dtype C.uintptr_t, st *C.MPI_Status) C.int {
	return fileAccess("MPI_File_write_shared_c", fh, compat.FileOp{Pos: compat.Shared, Write: true}, 0, buf, int64(count), dtype, st)
}

//export abigo_File_iwrite_shared_c
func abigo_File_iwrite_shared_c(fh C.uintptr_t, buf C.uintptr_t, count C.MPI_Count, dtype C.uintptr_t, req *C.uintptr_t) C.int {
	return fileStart("MPI_File_iwrite_shared_c", fh, compat.FileOp{Pos: compat.Shared, Write: true}, 0, buf, int64(count), dtype, req)
}

//export abigo_File_read_ordered
func abigo_File_read_ordered(fh C.uintptr_t, buf C.uintptr_t, count C.int, dtype C.uintptr_t, st *C.MPI_Status) C.int {
	return fileAccess("MPI_File_read_ordered", fh, compat.FileOp{Pos: compat.Ordered, Collective: true}, 0, buf, int64(count), dtype, st)
}

//export abigo_File_read_ordered_begin
func abigo_File_read_ordered_begin(fh C.uintptr_t, buf C.uintptr_t, count C.int, dtype C.uintptr_t) C.int {
	return fileBegin("MPI_File_read_ordered_begin", fh, compat.FileOp{Pos: compat.Ordered, Collective: true}, 0, buf, int64(count), dtype)
}

//export abigo_File_read_ordered_c
func abigo_File_read_ordered_c(fh C.uintptr_t, buf C.uintptr_t, count C.MPI_Count, dtype C.uintptr_t, st *C.MPI_Status) C.int {
	return fileAccess("MPI_File_read_ordered_c", fh, compat.FileOp{Pos: compat.Ordered, Collective: true}, 0, buf, int64(count), dtype, st)
}

//export abigo_File_read_ordered_begin_c
func abigo_File_read_ordered_begin_c(fh C.uintptr_t, buf C.uintptr_t, count C.MPI_Count, dtype C.uintptr_t) C.int {
	return fileBegin("MPI_File_read_ordered_begin_c", fh, compat.FileOp{Pos: compat.Ordered, Collective: true}, 0, buf, int64(count), dtype)
}

//export abigo_File_read_ordered_end
func abigo_File_read_ordered_end(fh C.uintptr_t, buf C.uintptr_t, st *C.MPI_Status) C.int {
	return fileEnd("MPI_File_read_ordered_end", fh, compat.FileOp{Pos: compat.Ordered, Collective: true}, st)
}

//export abigo_File_write_ordered
func abigo_File_write_ordered(fh C.uintptr_t, buf C.uintptr_t, count C.int, dtype C.uintptr_t, st *C.MPI_Status) C.int {
	return fileAccess("MPI_File_write_ordered", fh, compat.FileOp{Pos: compat.Ordered, Write: true, Collective: true}, 0, buf, int64(count), dtype, st)
}

//export abigo_File_write_ordered_begin
func abigo_File_write_ordered_begin(fh C.uintptr_t, buf C.uintptr_t, count C.int, dtype C.uintptr_t) C.int {
	return fileBegin("MPI_File_write_ordered_begin", fh, compat.FileOp{Pos: compat.Ordered, Write: true, Collective: true}, 0, buf, int64(count), dtype)
}

//export abigo_File_write_ordered_c
func abigo_File_write_ordered_c(fh C.uintptr_t, buf C.uintptr_t, count C.MPI_Count, dtype C.uintptr_t, st *C.MPI_Status) C.int {
	return fileAccess("MPI_File_write_ordered_c", fh, compat.FileOp{Pos: compat.Ordered, Write: true, Collective: true}, 0, buf, int64(count), dtype, st)
}

//export abigo_File_write_ordered_begin_c
func abigo_File_write_ordered_begin_c(fh C.uintptr_t, buf C.uintptr_t, count C.MPI_Count, dtype C.uintptr_t) C.int {
	return fileBegin("MPI_File_write_ordered_begin_c", fh, compat.FileOp{Pos: compat.Ordered, Write: true, Collective: true}, 0, buf, int64(count), dtype)
}

//export abigo_File_write_ordered_end
func abigo_File_write_ordered_end(fh C.uintptr_t, buf C.uintptr_t, st *C.MPI_Status) C.int {
	return fileEnd("MPI_File_write_ordered_end", fh, compat.FileOp{Pos: compat.Ordered, Write: true, Collective: true}, st)
}
