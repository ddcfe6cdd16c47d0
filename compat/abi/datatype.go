package main

/*
#include "abi.h"
*/
import "C"

import (
	"sync"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/mpitype"
)

// Datatypes: the ABI's predefined datatypes map onto the engine's basic
// types by size and kind on this platform (LP64: MPI_LONG is 64-bit,
// MPI_WCHAR 32-bit, long double the x87 format in 16 bytes); user
// datatypes are handles over a compat.Datatype, whose type map is any
// MPI type map (internal/mpitype). A buffer's data starts at its pointer
// plus the type's true lower bound (tbuf).

// predefType maps the ABI's predefined datatype handles.
var predefType = map[uintptr]struct {
	dt   compat.Datatype
	name string
}{
	0x201: {compat.Int64, "MPI_AINT"},
	0x202: {compat.Int64, "MPI_COUNT"},
	0x203: {compat.Int64, "MPI_OFFSET"},
	0x207: {compat.Byte, "MPI_PACKED"},
	0x208: {compat.Int16, "MPI_SHORT"},
	0x209: {compat.Int32, "MPI_INT"},
	0x20a: {cLong, "MPI_LONG"},
	0x20b: {compat.Int64, "MPI_LONG_LONG"},
	0x20c: {compat.Uint16, "MPI_UNSIGNED_SHORT"},
	0x20d: {compat.Uint32, "MPI_UNSIGNED"},
	0x20e: {cULong, "MPI_UNSIGNED_LONG"},
	0x20f: {compat.Uint64, "MPI_UNSIGNED_LONG_LONG"},
	0x210: {compat.Float32, "MPI_FLOAT"},
	0x212: {compat.Complex64, "MPI_C_FLOAT_COMPLEX"},
	0x213: {compat.Complex64, "MPI_CXX_FLOAT_COMPLEX"},
	0x214: {compat.Float64, "MPI_DOUBLE"},
	0x216: {compat.Complex128, "MPI_C_DOUBLE_COMPLEX"},
	0x217: {compat.Complex128, "MPI_CXX_DOUBLE_COMPLEX"},
	0x218: {compat.Int32, "MPI_LOGICAL"},
	0x219: {compat.Int32, "MPI_INTEGER"},
	0x21a: {compat.Float32, "MPI_REAL"},
	0x21b: {compat.Complex64, "MPI_COMPLEX"},
	0x21c: {compat.Float64, "MPI_DOUBLE_PRECISION"},
	0x21d: {compat.Complex128, "MPI_DOUBLE_COMPLEX"},
	0x21e: {compat.Int8, "MPI_CHARACTER"},
	0x228: {compat.FloatIntT, "MPI_FLOAT_INT"},
	0x229: {compat.DoubleIntT, "MPI_DOUBLE_INT"},
	0x22a: {compat.LongIntT, "MPI_LONG_INT"},
	0x22b: {compat.TwoIntT, "MPI_2INT"},
	0x22c: {compat.ShortIntT, "MPI_SHORT_INT"},
	0x238: {compat.Bool, "MPI_C_BOOL"},
	0x239: {compat.Bool, "MPI_CXX_BOOL"},
	0x23c: {cWchar, "MPI_WCHAR"},
	0x240: {compat.Int8, "MPI_INT8_T"},
	0x241: {compat.Uint8, "MPI_UINT8_T"},
	0x243: {compat.Int8, "MPI_CHAR"},
	0x244: {compat.Int8, "MPI_SIGNED_CHAR"},
	0x245: {compat.Uint8, "MPI_UNSIGNED_CHAR"},
	0x247: {compat.Byte, "MPI_BYTE"},
	0x248: {compat.Int16, "MPI_INT16_T"},
	0x249: {compat.Uint16, "MPI_UINT16_T"},
	0x250: {compat.Int32, "MPI_INT32_T"},
	0x251: {compat.Uint32, "MPI_UINT32_T"},
	0x258: {compat.Int64, "MPI_INT64_T"},
	0x259: {compat.Uint64, "MPI_UINT64_T"},
	// The sized Fortran types: the ABI groups them by total size, so
	// MPI_COMPLEX8 is COMPLEX*8 (two REAL*4) and MPI_COMPLEX16 two REAL*8.
	// REAL*2, COMPLEX*4 and the 16-byte kinds, which have no arithmetic
	// here, move as opaque bytes of their size (below).
	0x2c0: {compat.Int8, "MPI_LOGICAL1"},
	0x2c1: {compat.Int8, "MPI_INTEGER1"},
	0x2c8: {compat.Int16, "MPI_LOGICAL2"},
	0x2c9: {compat.Int16, "MPI_INTEGER2"},
	0x2d0: {compat.Int32, "MPI_LOGICAL4"},
	0x2d1: {compat.Int32, "MPI_INTEGER4"},
	0x2d2: {compat.Float32, "MPI_REAL4"},
	0x2d8: {compat.Int64, "MPI_LOGICAL8"},
	0x2d9: {compat.Int64, "MPI_INTEGER8"},
	0x2da: {compat.Float64, "MPI_REAL8"},
	0x2db: {compat.Complex64, "MPI_COMPLEX8"},
	0x220: {longDouble, "MPI_LONG_DOUBLE"},
	0x224: {cLongDoubleComplex, "MPI_C_LONG_DOUBLE_COMPLEX"},
	0x225: {cxxLongDoubleComplex, "MPI_CXX_LONG_DOUBLE_COMPLEX"},
	0x22d: {longDoubleInt, "MPI_LONG_DOUBLE_INT"},
	0x230: {compat.TwoRealT, "MPI_2REAL"},
	0x231: {compat.TwoDoubleT, "MPI_2DOUBLE_PRECISION"},
	0x232: {compat.TwoIntT, "MPI_2INTEGER"},
	0x2ca: {mpitype.Opaque(2), "MPI_REAL2"},
	0x2d3: {mpitype.Opaque(4), "MPI_COMPLEX4"},
	0x2e0: {mpitype.Opaque(16), "MPI_LOGICAL16"},
	0x2e1: {mpitype.Opaque(16), "MPI_INTEGER16"},
	0x2e2: {mpitype.Opaque(16), "MPI_REAL16"},
	0x2e3: {compat.Complex128, "MPI_COMPLEX16"},
	0x2eb: {mpitype.Opaque(32), "MPI_COMPLEX32"},
}

// The predefined types of their own: C types whose external32 size
// differs from the type they share a layout with, and the long double
// family (MPI_CXX_LONG_DOUBLE_COMPLEX is a handle apart from the C one).
var (
	cLong                = mpitype.NamedExt(mpitype.BasicInt64, 4)
	cULong               = mpitype.NamedExt(mpitype.BasicUint64, 4)
	cWchar               = mpitype.NamedExt(mpitype.BasicInt32, 2)
	longDouble           = mpitype.Predefined(mpitype.BasicLongDouble)
	cLongDoubleComplex   = mpitype.Predefined(mpitype.BasicComplexLongDouble)
	cxxLongDoubleComplex = mpitype.NamedExt(mpitype.BasicComplexLongDouble, 32)
	longDoubleInt        = mpitype.Predefined(mpitype.BasicLongDoubleInt)
)

// typeObj is a user datatype.
type typeObj struct {
	dt        compat.Datatype
	name      string
	committed bool
	env       envelope // how it was made (envelope.go)
	attrs     map[int]uintptr
	f90       bool // an f90 type: predefined, never freed
}

func init() {
	for h, p := range predefType {
		definePredef(h, C.ABI_KIND_DATATYPE, p.dt, nil)
		if m := mpitype.MapOf(p.dt); m.Contiguous() && h < C.ABI_TYPE_TABLE {
			C.abi_type_size[h] = C.int32_t(m.Size())
			C.abi_type_red[h] = C.uint8_t(redKind(m.Basic()))
		}
	}
}

// typeOf returns the datatype behind h; user datatypes must be committed
// to be used in communication (commit false: only their shape is read).
func typeOf(h C.uintptr_t, committed bool) (compat.Datatype, bool) {
	o, ok := lookup(uintptr(h), C.ABI_KIND_DATATYPE)
	if !ok {
		return compat.Datatype{}, false
	}
	switch v := o.val.(type) {
	case compat.Datatype:
		return v, true
	case *typeObj:
		return v.dt, v.committed || !committed
	}
	return compat.Datatype{}, false
}

// span is the bytes count instances of dt reach from the first one's
// true lower bound.
func span(dt compat.Datatype, count int) int {
	if count <= 0 || dt.Err() != nil {
		return 0
	}
	return mpitype.MapOf(dt).Span(count)
}

// trueLB is where dt's data starts, from a buffer's pointer.
func trueLB(dt compat.Datatype) int {
	if dt.Err() != nil {
		return 0
	}
	return mpitype.MapOf(dt).TrueLB()
}

func newType(comm C.uintptr_t, call string, dt compat.Datatype, out *C.uintptr_t) C.int {
	if out == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "newtype is NULL")
	}
	if err := dt.Err(); err != nil {
		return fail(comm, call, err)
	}
	h, _ := newHandle(C.ABI_KIND_DATATYPE, &typeObj{dt: dt})
	*out = C.uintptr_t(h)
	return C.MPI_SUCCESS
}

func userType(h *C.uintptr_t, call string) (*typeObj, C.int) {
	if h == nil {
		return nil, failCode(0, call, C.MPI_ERR_ARG, "datatype is NULL")
	}
	o, ok := lookup(uintptr(*h), C.ABI_KIND_DATATYPE)
	if !ok {
		return nil, failCode(0, call, C.MPI_ERR_TYPE, "invalid datatype")
	}
	t, ok := o.val.(*typeObj)
	if !ok {
		return nil, C.MPI_SUCCESS // predefined
	}
	return t, C.MPI_SUCCESS
}

//export abigo_Type_commit
func abigo_Type_commit(h *C.uintptr_t) C.int {
	t, rc := userType(h, "MPI_Type_commit")
	if t == nil {
		if rc != C.MPI_SUCCESS {
			return rc
		}
		return C.MPI_SUCCESS // committing a predefined type is allowed
	}
	if err := t.dt.Commit(); err != nil {
		return fail(0, "MPI_Type_commit", err)
	}
	if !t.committed {
		t.committed = true
		publishType(uintptr(*h), t)
	}
	return C.MPI_SUCCESS
}

//export abigo_Type_free
func abigo_Type_free(h *C.uintptr_t) C.int {
	t, rc := userType(h, "MPI_Type_free")
	if t == nil {
		if rc != C.MPI_SUCCESS {
			return rc
		}
		return failCode(0, "MPI_Type_free", C.MPI_ERR_TYPE, "a predefined datatype cannot be freed")
	}
	if t.f90 {
		return failCode(0, "MPI_Type_free", C.MPI_ERR_TYPE, "an MPI_Type_create_f90 datatype is predefined and cannot be freed")
	}
	if rc := freeTypeAttrs(*h, t); rc != C.MPI_SUCCESS {
		return failCode(0, "MPI_Type_free", rc, "an attribute's delete function failed")
	}
	// Only the handle goes: operations in flight and types built from
	// this one hold the compat.Datatype itself, as MPI asks.
	release(uintptr(*h))
	*h = 0x200
	return C.MPI_SUCCESS
}

//export abigo_Type_dup
func abigo_Type_dup(old C.uintptr_t, out *C.uintptr_t) C.int {
	o, ok := typeOf(old, false)
	if !ok {
		return failCode(0, "MPI_Type_dup", C.MPI_ERR_TYPE, "invalid datatype")
	}
	if out == nil {
		return failCode(0, "MPI_Type_dup", C.MPI_ERR_ARG, "newtype is NULL")
	}
	t := &typeObj{dt: mpitype.DupOf(o), committed: true, env: envelope{combiner: C.MPI_COMBINER_DUP, olds: []typeRef{refOf(old)}}}
	if src, ok := lookup(uintptr(old), C.ABI_KIND_DATATYPE); ok {
		if u, ok := src.val.(*typeObj); ok {
			t.committed = u.committed
		}
	}
	h, _ := newHandle(C.ABI_KIND_DATATYPE, t)
	*out = C.uintptr_t(h)
	if rc := copyTypeAttrs(old, t, h); rc != C.MPI_SUCCESS {
		release(h)
		*out = 0x200
		return rc
	}
	publishType(h, t)
	return C.MPI_SUCCESS
}

func typeArg(h C.uintptr_t, call string) (compat.Datatype, C.int) {
	dt, ok := typeOf(h, false)
	if !ok {
		return dt, failCode(0, call, C.MPI_ERR_TYPE, "invalid datatype")
	}
	return dt, C.MPI_SUCCESS
}

//export abigo_Type_get_name
func abigo_Type_get_name(h C.uintptr_t, name *C.char, n *C.int) C.int {
	if h == 0x200 && name != nil && n != nil {
		*n = putString(name, "MPI_DATATYPE_NULL", C.MPI_MAX_OBJECT_NAME) // a predefined handle's name
		return C.MPI_SUCCESS
	}
	o, ok := lookup(uintptr(h), C.ABI_KIND_DATATYPE)
	if !ok {
		return failCode(0, "MPI_Type_get_name", C.MPI_ERR_TYPE, "invalid datatype")
	}
	if name == nil || n == nil {
		return failCode(0, "MPI_Type_get_name", C.MPI_ERR_ARG, "NULL argument")
	}
	s := predefType[uintptr(h)].name
	if v, ok := predefNames.Load(uintptr(h)); ok {
		s = v.(string)
	}
	if t, ok := o.val.(*typeObj); ok {
		s = t.name
	}
	*n = putString(name, s, C.MPI_MAX_OBJECT_NAME)
	return C.MPI_SUCCESS
}

//export abigo_Type_set_name
func abigo_Type_set_name(h C.uintptr_t, name *C.char) C.int {
	o, ok := lookup(uintptr(h), C.ABI_KIND_DATATYPE)
	if !ok {
		return failCode(0, "MPI_Type_set_name", C.MPI_ERR_TYPE, "invalid datatype")
	}
	if name == nil {
		return failCode(0, "MPI_Type_set_name", C.MPI_ERR_ARG, "name is NULL")
	}
	s := C.GoString(name)
	if len(s) >= C.MPI_MAX_OBJECT_NAME {
		s = s[:C.MPI_MAX_OBJECT_NAME-1]
	}
	if t, user := o.val.(*typeObj); user {
		t.name = s
	} else {
		predefNames.Store(uintptr(h), s)
	}
	return C.MPI_SUCCESS
}

// predefNames holds the names given to predefined datatypes: MPI lets a
// program rename any datatype (as it may MPI_COMM_WORLD), and
// MPI_Type_get_name then returns the new name.
var predefNames sync.Map
