package main

/*
#include "abi.h"
*/
import "C"

import (
	"github.com/gshmem/gshmem/internal/mpitype"
)

// Datatype queries, each one body for its int, _x and _c forms.

func sizeBody(call string, h C.uintptr_t, set func(int) bool) C.int {
	dt, rc := typeArg(h, call)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if !set(dt.Size()) {
		return failCode(0, call, C.MPI_ERR_ARG, "size is NULL")
	}
	return C.MPI_SUCCESS
}

func intOut(p *C.int) func(int) bool {
	return func(v int) bool {
		if p == nil {
			return false
		}
		if v > 1<<31-1 {
			*p = C.MPI_UNDEFINED
		} else {
			*p = C.int(v)
		}
		return true
	}
}

func countOut(p *C.MPI_Count) func(int) bool {
	return func(v int) bool {
		if p == nil {
			return false
		}
		*p = C.MPI_Count(v)
		return true
	}
}

//export abigo_Type_size
func abigo_Type_size(h C.uintptr_t, size *C.int) C.int {
	return sizeBody("MPI_Type_size", h, intOut(size))
}

//export abigo_Type_size_c
func abigo_Type_size_c(h C.uintptr_t, size *C.MPI_Count) C.int {
	return sizeBody("MPI_Type_size_c", h, countOut(size))
}

//export abigo_Type_size_x
func abigo_Type_size_x(h C.uintptr_t, size *C.MPI_Count) C.int {
	return sizeBody("MPI_Type_size_x", h, countOut(size))
}

// extentBody answers MPI_Type_get_extent (truth false) and
// MPI_Type_get_true_extent in every width.
func extentBody[T C.MPI_Aint](call string, h C.uintptr_t, lb, ext *T, truth bool) C.int {
	dt, rc := typeArg(h, call)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if lb == nil || ext == nil {
		return failCode(0, call, C.MPI_ERR_ARG, "NULL argument")
	}
	m := mpitype.MapOf(dt)
	if truth {
		*lb, *ext = T(m.TrueLB()), T(m.TrueExtent())
	} else {
		*lb, *ext = T(m.LB()), T(m.Extent())
	}
	return C.MPI_SUCCESS
}

//export abigo_Type_get_extent
func abigo_Type_get_extent(h C.uintptr_t, lb, ext *C.MPI_Aint) C.int {
	return extentBody("MPI_Type_get_extent", h, lb, ext, false)
}

//export abigo_Type_get_extent_c
func abigo_Type_get_extent_c(h C.uintptr_t, lb, ext *C.MPI_Count) C.int {
	return extentBody("MPI_Type_get_extent_c", h, lb, ext, false)
}

//export abigo_Type_get_extent_x
func abigo_Type_get_extent_x(h C.uintptr_t, lb, ext *C.MPI_Count) C.int {
	return extentBody("MPI_Type_get_extent_x", h, lb, ext, false)
}

//export abigo_Type_get_true_extent
func abigo_Type_get_true_extent(h C.uintptr_t, lb, ext *C.MPI_Aint) C.int {
	return extentBody("MPI_Type_get_true_extent", h, lb, ext, true)
}

//export abigo_Type_get_true_extent_c
func abigo_Type_get_true_extent_c(h C.uintptr_t, lb, ext *C.MPI_Count) C.int {
	return extentBody("MPI_Type_get_true_extent_c", h, lb, ext, true)
}

//export abigo_Type_get_true_extent_x
func abigo_Type_get_true_extent_x(h C.uintptr_t, lb, ext *C.MPI_Count) C.int {
	return extentBody("MPI_Type_get_true_extent_x", h, lb, ext, true)
}

// countBody is MPI_Get_count (elements false: whole instances, or
// MPI_UNDEFINED when the bytes received are not a whole number of them)
// and MPI_Get_elements (basic elements, MPI_UNDEFINED when the bytes end
// inside one).
func countBody(call string, st *C.MPI_Status, h C.uintptr_t, elements bool, set func(int) bool) C.int {
	dt, rc := typeArg(h, call)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if st == nil {
		return failCode(0, call, C.MPI_ERR_ARG, "NULL status")
	}
	bytes := int(statusBytes(st))
	m := mpitype.MapOf(dt)
	n := C.MPI_UNDEFINED
	switch {
	case elements:
		if e := m.Elements(bytes); e >= 0 {
			n = e
		}
	case m.Size() == 0 && bytes == 0:
		n = 0
	case m.Size() > 0 && bytes%m.Size() == 0:
		n = bytes / m.Size()
	}
	if !set(n) {
		return failCode(0, call, C.MPI_ERR_ARG, "count is NULL")
	}
	return C.MPI_SUCCESS
}

//export abigo_Get_count
func abigo_Get_count(st *C.MPI_Status, h C.uintptr_t, count *C.int) C.int {
	return countBody("MPI_Get_count", st, h, false, intOut(count))
}

//export abigo_Get_count_c
func abigo_Get_count_c(st *C.MPI_Status, h C.uintptr_t, count *C.MPI_Count) C.int {
	return countBody("MPI_Get_count_c", st, h, false, countOut(count))
}

//export abigo_Get_elements
func abigo_Get_elements(st *C.MPI_Status, h C.uintptr_t, count *C.int) C.int {
	return countBody("MPI_Get_elements", st, h, true, intOut(count))
}

//export abigo_Get_elements_c
func abigo_Get_elements_c(st *C.MPI_Status, h C.uintptr_t, count *C.MPI_Count) C.int {
	return countBody("MPI_Get_elements_c", st, h, true, countOut(count))
}

//export abigo_Get_elements_x
func abigo_Get_elements_x(st *C.MPI_Status, h C.uintptr_t, count *C.MPI_Count) C.int {
	return countBody("MPI_Get_elements_x", st, h, true, countOut(count))
}

//export abigo_Type_match_size
func abigo_Type_match_size(class, size C.int, out *C.uintptr_t) C.int {
	if out == nil {
		return failCode(0, "MPI_Type_match_size", C.MPI_ERR_ARG, "datatype is NULL")
	}
	var h uintptr
	switch class {
	case C.MPI_TYPECLASS_INTEGER:
		h = map[C.int]uintptr{1: 0x240, 2: 0x248, 4: 0x250, 8: 0x258, 16: 0x2e1}[size] // MPI_INTn_T, MPI_INTEGER16
	case C.MPI_TYPECLASS_REAL:
		h = map[C.int]uintptr{2: 0x2ca, 4: 0x210, 8: 0x214, 16: 0x220}[size] // MPI_REAL2, float, double, long double
	case C.MPI_TYPECLASS_COMPLEX:
		h = map[C.int]uintptr{4: 0x2d3, 8: 0x212, 16: 0x216, 32: 0x224}[size] // MPI_COMPLEX4, the C complex types
	default:
		return failCode(0, "MPI_Type_match_size", C.MPI_ERR_ARG, "type class %d", int(class))
	}
	if h == 0 {
		return failCode(0, "MPI_Type_match_size", C.MPI_ERR_ARG, "no type of class %d with %d bytes", int(class), int(size))
	}
	*out = C.uintptr_t(h)
	return C.MPI_SUCCESS
}
