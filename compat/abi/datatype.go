package main

/*
#include "abi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/mpitype"
)

// Datatypes: the ABI's predefined datatypes map onto compat's basic types
// by size and kind on this platform (LP64: MPI_LONG is 64-bit, MPI_WCHAR
// 32-bit); user datatypes are handles over a compat.Datatype. compat has
// contiguous and vector layouts, and internal/mpitype block lists (the
// indexed types and structs of one basic type, displacements not
// negative) and resized types (lower bound 0).

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
	0x20a: {compat.Int64, "MPI_LONG"},
	0x20b: {compat.Int64, "MPI_LONG_LONG"},
	0x20c: {compat.Uint16, "MPI_UNSIGNED_SHORT"},
	0x20d: {compat.Uint32, "MPI_UNSIGNED"},
	0x20e: {compat.Uint64, "MPI_UNSIGNED_LONG"},
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
	0x23c: {compat.Int32, "MPI_WCHAR"},
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
	0x2c1: {compat.Int8, "MPI_INTEGER1"},
	0x2c9: {compat.Int16, "MPI_INTEGER2"},
	0x2d1: {compat.Int32, "MPI_INTEGER4"},
	0x2d2: {compat.Float32, "MPI_REAL4"},
	0x2d3: {compat.Complex64, "MPI_COMPLEX4"},
	0x2d9: {compat.Int64, "MPI_INTEGER8"},
	0x2da: {compat.Float64, "MPI_REAL8"},
	0x2db: {compat.Complex128, "MPI_COMPLEX8"},
}

// typeObj is a user datatype.
type typeObj struct {
	dt        compat.Datatype
	name      string
	committed bool
	env       envelope // how it was made (envelope.go)
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

// span is the bytes count instances of dt reach from the buffer's start.
func span(dt compat.Datatype, count int) int {
	if count <= 0 {
		return 0
	}
	return mpitype.MapOf(dt).Span(count)
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

//export abigo_Type_contiguous
func abigo_Type_contiguous(count C.int, old C.uintptr_t, out *C.uintptr_t) C.int {
	o, ok := typeOf(old, false)
	if !ok {
		return failCode(0, "MPI_Type_contiguous", C.MPI_ERR_TYPE, "invalid datatype")
	}
	if count < 0 {
		return failCode(0, "MPI_Type_contiguous", C.MPI_ERR_COUNT, "count %d", int(count))
	}
	return withEnvelope(newType(0, "MPI_Type_contiguous", compat.Contiguous(int(count), o), out), out,
		envelope{combiner: C.MPI_COMBINER_CONTIGUOUS, ints: []int{int(count)}, olds: []typeRef{refOf(old)}})
}

//export abigo_Type_vector
func abigo_Type_vector(count, blocklen, stride C.int, old C.uintptr_t, out *C.uintptr_t) C.int {
	o, ok := typeOf(old, false)
	if !ok {
		return failCode(0, "MPI_Type_vector", C.MPI_ERR_TYPE, "invalid datatype")
	}
	if count < 0 || blocklen < 0 {
		return failCode(0, "MPI_Type_vector", C.MPI_ERR_COUNT, "count %d, blocklength %d", int(count), int(blocklen))
	}
	return withEnvelope(newType(0, "MPI_Type_vector", compat.Vector(int(count), int(blocklen), int(stride), o), out), out,
		envelope{combiner: C.MPI_COMBINER_VECTOR, ints: []int{int(count), int(blocklen), int(stride)}, olds: []typeRef{refOf(old)}})
}

//export abigo_Type_create_hvector
func abigo_Type_create_hvector(count, blocklen C.int, stride C.MPI_Aint, old C.uintptr_t, out *C.uintptr_t) C.int {
	const call = "MPI_Type_create_hvector"
	o, ok := typeOf(old, false)
	if !ok {
		return failCode(0, call, C.MPI_ERR_TYPE, "invalid datatype")
	}
	if count < 0 || blocklen < 0 {
		return failCode(0, call, C.MPI_ERR_COUNT, "count %d, blocklength %d", int(count), int(blocklen))
	}
	e := envelope{combiner: C.MPI_COMBINER_HVECTOR, ints: []int{int(count), int(blocklen)}, aints: []int{int(stride)}, olds: []typeRef{refOf(old)}}
	// compat's vectors stride in whole extents of the old type; other
	// strides are blocks at byte displacements.
	if ext := C.MPI_Aint(o.Extent()); ext > 0 && stride%ext == 0 && stride > 0 {
		return withEnvelope(newType(0, call, compat.Vector(int(count), int(blocklen), int(stride/ext), o), out), out, e)
	}
	bs := make([]mpitype.Block, count)
	for i := range bs {
		bs[i] = mpitype.Block{Disp: i * int(stride), Count: int(blocklen), Old: o}
	}
	return withEnvelope(newType(0, call, mpitype.BlocksOf(bs), out), out, e)
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
	t.committed = true
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
	h, _ := newHandle(C.ABI_KIND_DATATYPE, &typeObj{dt: compat.Contiguous(1, o), committed: true,
		env: envelope{combiner: C.MPI_COMBINER_DUP, olds: []typeRef{refOf(old)}}})
	*out = C.uintptr_t(h)
	return C.MPI_SUCCESS
}

func typeArg(h C.uintptr_t, call string) (compat.Datatype, C.int) {
	dt, ok := typeOf(h, false)
	if !ok {
		return dt, failCode(0, call, C.MPI_ERR_TYPE, "invalid datatype")
	}
	return dt, C.MPI_SUCCESS
}

//export abigo_Type_size
func abigo_Type_size(h C.uintptr_t, size *C.int) C.int {
	dt, rc := typeArg(h, "MPI_Type_size")
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if size == nil {
		return failCode(0, "MPI_Type_size", C.MPI_ERR_ARG, "size is NULL")
	}
	*size = C.int(dt.Size())
	return C.MPI_SUCCESS
}

//export abigo_Type_size_c
func abigo_Type_size_c(h C.uintptr_t, size *C.MPI_Count) C.int {
	dt, rc := typeArg(h, "MPI_Type_size_c")
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if size == nil {
		return failCode(0, "MPI_Type_size_c", C.MPI_ERR_ARG, "size is NULL")
	}
	*size = C.MPI_Count(dt.Size())
	return C.MPI_SUCCESS
}

func extent(h C.uintptr_t, call string, lb, ext *C.MPI_Aint, truth bool) C.int {
	dt, rc := typeArg(h, call)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if lb == nil || ext == nil {
		return failCode(0, call, C.MPI_ERR_ARG, "NULL argument")
	}
	*lb = 0 // compat's layouts start at their first byte
	if truth {
		*ext = C.MPI_Aint(span(dt, 1))
	} else {
		*ext = C.MPI_Aint(dt.Extent())
	}
	return C.MPI_SUCCESS
}

//export abigo_Type_get_extent
func abigo_Type_get_extent(h C.uintptr_t, lb, ext *C.MPI_Aint) C.int {
	return extent(h, "MPI_Type_get_extent", lb, ext, false)
}

//export abigo_Type_get_true_extent
func abigo_Type_get_true_extent(h C.uintptr_t, lb, ext *C.MPI_Aint) C.int {
	return extent(h, "MPI_Type_get_true_extent", lb, ext, true)
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
	t, user := o.val.(*typeObj)
	if !user || name == nil {
		return failCode(0, "MPI_Type_set_name", C.MPI_ERR_ARG, "a predefined type's name is fixed, or name is NULL")
	}
	t.name = C.GoString(name)
	if len(t.name) >= C.MPI_MAX_OBJECT_NAME {
		t.name = t.name[:C.MPI_MAX_OBJECT_NAME-1]
	}
	return C.MPI_SUCCESS
}

//export abigo_Get_count
func abigo_Get_count(st *C.MPI_Status, h C.uintptr_t, count *C.int) C.int {
	dt, rc := typeArg(h, "MPI_Get_count")
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if st == nil || count == nil {
		return failCode(0, "MPI_Get_count", C.MPI_ERR_ARG, "NULL argument")
	}
	bytes := statusBytes(st)
	sz := int64(dt.Size())
	switch {
	case sz == 0 && bytes == 0:
		*count = 0
	case sz == 0 || bytes%sz != 0:
		*count = C.MPI_UNDEFINED
	default:
		*count = C.int(bytes / sz)
	}
	return C.MPI_SUCCESS
}

//export abigo_Get_elements
func abigo_Get_elements(st *C.MPI_Status, h C.uintptr_t, count *C.int) C.int {
	dt, rc := typeArg(h, "MPI_Get_elements")
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if st == nil || count == nil {
		return failCode(0, "MPI_Get_elements", C.MPI_ERR_ARG, "NULL argument")
	}
	// Every compat datatype is built of one basic type: elements are the
	// bytes over that type's size.
	bsz := int64(dt.Basic().Size())
	bytes := statusBytes(st)
	if bsz == 0 || bytes%bsz != 0 {
		*count = C.MPI_UNDEFINED
	} else {
		*count = C.int(bytes / bsz)
	}
	return C.MPI_SUCCESS
}

//export abigo_Type_match_size
func abigo_Type_match_size(class, size C.int, out *C.uintptr_t) C.int {
	if out == nil {
		return failCode(0, "MPI_Type_match_size", C.MPI_ERR_ARG, "datatype is NULL")
	}
	var h uintptr
	switch {
	case class == C.MPI_TYPECLASS_INTEGER:
		h = map[C.int]uintptr{1: 0x240, 2: 0x248, 4: 0x250, 8: 0x258}[size] // MPI_INTn_T
	case class == C.MPI_TYPECLASS_REAL:
		h = map[C.int]uintptr{4: 0x210, 8: 0x214}[size] // MPI_FLOAT, MPI_DOUBLE
	case class == C.MPI_TYPECLASS_COMPLEX:
		h = map[C.int]uintptr{8: 0x212, 16: 0x216}[size]
	default:
		return failCode(0, "MPI_Type_match_size", C.MPI_ERR_ARG, "type class %d", int(class))
	}
	if h == 0 {
		return failCode(0, "MPI_Type_match_size", C.MPI_ERR_ARG, "no type of class %d with %d bytes", int(class), int(size))
	}
	*out = C.uintptr_t(h)
	return C.MPI_SUCCESS
}

// blocks builds the blocks of the indexed and struct constructors: count
// blocks, blocklen(i) copies of old(i) at disp(i) bytes.
func blocks(call string, count C.int, blocklen func(int) int, disp func(int) int, old func(int) C.uintptr_t, out *C.uintptr_t, e envelope) C.int {
	if count < 0 {
		return failCode(0, call, C.MPI_ERR_COUNT, "count %d", int(count))
	}
	bs := make([]mpitype.Block, count)
	for i := range bs {
		o, ok := typeOf(old(i), false)
		if !ok {
			return failCode(0, call, C.MPI_ERR_TYPE, "block %d: invalid datatype", i)
		}
		if blocklen(i) < 0 {
			return failCode(0, call, C.MPI_ERR_COUNT, "block %d: length %d", i, blocklen(i))
		}
		bs[i] = mpitype.Block{Disp: disp(i), Count: blocklen(i), Old: o}
	}
	d := mpitype.BlocksOf(bs)
	if d.Err() != nil && count > 0 {
		// What compat's maps cannot describe (mixed basic types, negative
		// displacements) is unsupported, not invalid.
		if _, ok := typeOf(old(0), false); ok {
			return failCode(0, call, C.MPI_ERR_UNSUPPORTED_OPERATION, "%v", d.Err())
		}
	}
	return withEnvelope(newType(0, call, d, out), out, e)
}

func intAt(p *C.int, n C.int) func(int) int {
	s := intsIn(p, n)
	return func(i int) int { return s[i] }
}

func aintAt(p *C.MPI_Aint, n C.int) func(int) int {
	if n <= 0 || p == nil {
		return func(int) int { return 0 }
	}
	s := unsafe.Slice(p, int(n))
	return func(i int) int { return int(s[i]) }
}

func same[T any](v T) func(int) T { return func(int) T { return v } }

// extentOf scales element displacements of old into bytes.
func extentOf(old C.uintptr_t) int {
	if o, ok := typeOf(old, false); ok {
		return o.Extent()
	}
	return 0
}

func arraysOK(count C.int, ps ...unsafe.Pointer) bool {
	if count <= 0 {
		return true
	}
	for _, p := range ps {
		if p == nil {
			return false
		}
	}
	return true
}

//export abigo_Type_indexed
func abigo_Type_indexed(count C.int, blocklens, displs *C.int, old C.uintptr_t, out *C.uintptr_t) C.int {
	if !arraysOK(count, unsafe.Pointer(blocklens), unsafe.Pointer(displs)) {
		return failCode(0, "MPI_Type_indexed", C.MPI_ERR_ARG, "NULL array")
	}
	ext, d := extentOf(old), intAt(displs, count)
	e := envelope{combiner: C.MPI_COMBINER_INDEXED, ints: append(append([]int{int(count)}, intsIn(blocklens, count)...), intsIn(displs, count)...), olds: []typeRef{refOf(old)}}
	return blocks("MPI_Type_indexed", count, intAt(blocklens, count), func(i int) int { return d(i) * ext }, same(old), out, e)
}

//export abigo_Type_create_hindexed
func abigo_Type_create_hindexed(count C.int, blocklens *C.int, displs *C.MPI_Aint, old C.uintptr_t, out *C.uintptr_t) C.int {
	if !arraysOK(count, unsafe.Pointer(blocklens), unsafe.Pointer(displs)) {
		return failCode(0, "MPI_Type_create_hindexed", C.MPI_ERR_ARG, "NULL array")
	}
	e := envelope{combiner: C.MPI_COMBINER_HINDEXED, ints: append([]int{int(count)}, intsIn(blocklens, count)...), aints: aintsIn(displs, count), olds: []typeRef{refOf(old)}}
	return blocks("MPI_Type_create_hindexed", count, intAt(blocklens, count), aintAt(displs, count), same(old), out, e)
}

//export abigo_Type_create_indexed_block
func abigo_Type_create_indexed_block(count, blocklen C.int, displs *C.int, old C.uintptr_t, out *C.uintptr_t) C.int {
	if !arraysOK(count, unsafe.Pointer(displs)) {
		return failCode(0, "MPI_Type_create_indexed_block", C.MPI_ERR_ARG, "NULL array")
	}
	ext, d := extentOf(old), intAt(displs, count)
	e := envelope{combiner: C.MPI_COMBINER_INDEXED_BLOCK, ints: append([]int{int(count), int(blocklen)}, intsIn(displs, count)...), olds: []typeRef{refOf(old)}}
	return blocks("MPI_Type_create_indexed_block", count, same(int(blocklen)), func(i int) int { return d(i) * ext }, same(old), out, e)
}

//export abigo_Type_create_hindexed_block
func abigo_Type_create_hindexed_block(count, blocklen C.int, displs *C.MPI_Aint, old C.uintptr_t, out *C.uintptr_t) C.int {
	if !arraysOK(count, unsafe.Pointer(displs)) {
		return failCode(0, "MPI_Type_create_hindexed_block", C.MPI_ERR_ARG, "NULL array")
	}
	e := envelope{combiner: C.MPI_COMBINER_HINDEXED_BLOCK, ints: []int{int(count), int(blocklen)}, aints: aintsIn(displs, count), olds: []typeRef{refOf(old)}}
	return blocks("MPI_Type_create_hindexed_block", count, same(int(blocklen)), aintAt(displs, count), same(old), out, e)
}

//export abigo_Type_create_struct
func abigo_Type_create_struct(count C.int, blocklens *C.int, displs *C.MPI_Aint, types *C.uintptr_t, out *C.uintptr_t) C.int {
	if !arraysOK(count, unsafe.Pointer(blocklens), unsafe.Pointer(displs), unsafe.Pointer(types)) {
		return failCode(0, "MPI_Type_create_struct", C.MPI_ERR_ARG, "NULL array")
	}
	ts := reqArray(count, types) // an array of handles
	e := envelope{combiner: C.MPI_COMBINER_STRUCT, ints: append([]int{int(count)}, intsIn(blocklens, count)...), aints: aintsIn(displs, count)}
	for _, t := range ts {
		e.olds = append(e.olds, refOf(t))
	}
	return blocks("MPI_Type_create_struct", count, intAt(blocklens, count), aintAt(displs, count), func(i int) C.uintptr_t { return ts[i] }, out, e)
}

//export abigo_Type_create_resized
func abigo_Type_create_resized(old C.uintptr_t, lb, extent C.MPI_Aint, out *C.uintptr_t) C.int {
	o, ok := typeOf(old, false)
	if !ok {
		return failCode(0, "MPI_Type_create_resized", C.MPI_ERR_TYPE, "invalid datatype")
	}
	if lb != 0 {
		return failCode(0, "MPI_Type_create_resized", C.MPI_ERR_UNSUPPORTED_OPERATION, "lower bound %d: only 0 is supported", int(lb))
	}
	return withEnvelope(newType(0, "MPI_Type_create_resized", mpitype.ResizedOf(o, int(lb), int(extent)), out), out,
		envelope{combiner: C.MPI_COMBINER_RESIZED, aints: []int{int(lb), int(extent)}, olds: []typeRef{refOf(old)}})
}

func aintsIn(p *C.MPI_Aint, n C.int) []int {
	if n <= 0 || p == nil {
		return nil
	}
	out := make([]int, n)
	for i, v := range unsafe.Slice(p, int(n)) {
		out[i] = int(v)
	}
	return out
}
