package main

/*
#include "abi.h"
int abi_call_datarep_conv(uintptr_t fn, int large, void *userbuf, uintptr_t datatype, int64_t count, void *filebuf, int64_t position, uintptr_t extra);
int abi_call_datarep_extent(uintptr_t fn, uintptr_t datatype, MPI_Aint *extent, uintptr_t extra);
*/
import "C"

import (
	"sync"
	"unsafe"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/mpierr"
)

// User data representations (MPI_Register_datarep). compat knows the name
// and the file extents; the conversions run here, where the program's
// datatype handle is at hand: a write converts the user's buffer into a
// packed file buffer that compat writes as bytes, a read lets compat read
// bytes and converts them into the user's buffer.

type cDatarep struct {
	read, write, extent C.uintptr_t
	extra               C.uintptr_t
	large               bool // the _c conversion functions
}

var cDatareps sync.Map // name -> cDatarep

// canonicalType is the handle a program's extent function is asked about
// for a basic type: the C name of its size and kind.
var canonicalType = map[compat.Basic]C.uintptr_t{
	compat.BasicInt8: 0x243, compat.BasicInt16: 0x208, compat.BasicInt32: 0x209, compat.BasicInt64: 0x20a,
	compat.BasicUint8: 0x245, compat.BasicUint16: 0x20c, compat.BasicUint32: 0x20d, compat.BasicUint64: 0x20e,
	compat.BasicFloat32: 0x210, compat.BasicFloat64: 0x214, compat.BasicComplex64: 0x212, compat.BasicComplex128: 0x216,
	compat.BasicBool: 0x238, compat.BasicByte: 0x247, compat.BasicFloatInt: 0x228, compat.BasicDoubleInt: 0x229,
	compat.BasicLongInt: 0x22a, compat.BasicTwoInt: 0x22b, compat.BasicShortInt: 0x22c, compat.BasicTwoReal: 0x230,
	compat.BasicTwoDouble: 0x231,
}

func registerDatarep(call string, name *C.char, read, write, extent, extra C.uintptr_t, large bool) C.int {
	if name == nil {
		return failFileCode(0x118, call, C.MPI_ERR_ARG, "datarep is NULL")
	}
	n := C.GoString(name)
	ext := func(dt compat.Datatype) (int64, error) {
		var e C.MPI_Aint
		if rc := C.abi_call_datarep_extent(extent, canonicalType[dt.Basic()], &e, extra); rc != C.MPI_SUCCESS {
			return 0, mpierr.Errorf(mpierr.ClassConversion, "the extent function returned %d", int(rc))
		}
		return int64(e), nil
	}
	if extent == 0 {
		ext = nil
	}
	if err := compat.RegisterDatarep(n, nil, nil, ext); err != nil {
		return failFile(0x118, call, err)
	}
	cDatareps.Store(n, cDatarep{read: read, write: write, extent: extent, extra: extra, large: large})
	return C.MPI_SUCCESS
}

//export abigo_Register_datarep
func abigo_Register_datarep(name *C.char, read, write, extent, extra C.uintptr_t) C.int {
	return registerDatarep("MPI_Register_datarep", name, read, write, extent, extra, false)
}

//export abigo_Register_datarep_c
func abigo_Register_datarep_c(name *C.char, read, write, extent, extra C.uintptr_t) C.int {
	return registerDatarep("MPI_Register_datarep_c", name, read, write, extent, extra, true)
}

// convertedAccess makes an access through a user data representation with
// conversion functions, or reports ok false when the view's has none.
func convertedAccess(o *fileObj, op compat.FileOp, off int64, buf C.uintptr_t, count int64, dtype C.uintptr_t) (st compat.Status, ok bool, err error) {
	_, _, _, rep, err := o.f.View()
	if err != nil {
		return st, false, err
	}
	v, found := cDatareps.Load(rep)
	if !found {
		return st, false, nil
	}
	r := v.(cDatarep)
	fn := r.read
	if op.Write {
		fn = r.write
	}
	if fn == 0 {
		return st, false, nil
	}
	b, dt, err := fileBuf(buf, count, dtype)
	if err != nil {
		return st, true, err
	}
	// The extent function is asked about the program's datatype (the
	// bytes below go through as already converted: MPI_BYTE is none of the
	// program's business).
	if _, err := o.f.TypeExtent(dt); err != nil {
		return st, true, err
	}
	op.Converted = true
	size := count * int64(dt.Size())
	fb := make([]byte, size)
	call := func() error {
		if size == 0 {
			return nil
		}
		if rc := C.abi_call_datarep_conv(fn, boolInt(r.large), unsafe.Pointer(unsafe.SliceData(b)), dtype, C.int64_t(count), unsafe.Pointer(&fb[0]), 0, r.extra); rc != C.MPI_SUCCESS {
			return mpierr.Errorf(mpierr.ClassConversion, "datarep %q: the conversion function returned %d", rep, int(rc))
		}
		return nil
	}
	if op.Write {
		if err := call(); err != nil {
			return st, true, err
		}
	}
	st, err = compat.FileAccess(o.f, op, off, fb, int(size), compat.Byte)
	if err == nil && !op.Write {
		err = call()
	}
	return st, true, err
}
