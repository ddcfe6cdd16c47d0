package main

/*
#include "abi.h"
*/
import "C"

import (
	"sync"

	"github.com/gshmem/gshmem/internal/mpitype"
)

// MPI_Type_create_f90_integer/real/complex: the predefined type of the
// least size with the asked decimal precision and range (gfortran's
// kinds: INTEGER 1, 2, 4, 8, 16 bytes; REAL 4, 8 and, as the
// platform's long double, 16), as a handle of its own whose envelope is
// the f90 combiner with (r) or (p, r). Equal arguments give the same
// handle, which MPI_Type_free refuses, as for predefined types.

var f90Types = struct {
	sync.Mutex
	m map[[3]int]uintptr
}{m: map[[3]int]uintptr{}}

func f90Type(call string, comb C.int, p, r int, base uintptr, out *C.uintptr_t) C.int {
	if out == nil {
		return failCode(0, call, C.MPI_ERR_ARG, "newtype is NULL")
	}
	if base == 0 {
		return failCode(0, call, C.MPI_ERR_ARG, "no type of precision %d and range %d", p, r)
	}
	f90Types.Lock()
	defer f90Types.Unlock()
	key := [3]int{int(comb), p, r}
	if h, ok := f90Types.m[key]; ok {
		*out = C.uintptr_t(h)
		return C.MPI_SUCCESS
	}
	ints := []int{p, r}
	if comb == C.MPI_COMBINER_F90_INTEGER {
		ints = []int{r}
	}
	dt := predefType[base].dt
	h, _ := newHandle(C.ABI_KIND_DATATYPE, &typeObj{dt: mpitype.PredefinedOf(mpitype.DupOf(dt)), committed: true, f90: true,
		name: predefType[base].name, env: envelope{combiner: comb, ints: ints}})
	f90Types.m[key] = h
	*out = C.uintptr_t(h)
	return C.MPI_SUCCESS
}

func undef(v C.int) bool { return v == C.MPI_UNDEFINED }

//export abigo_Type_create_f90_integer
func abigo_Type_create_f90_integer(r C.int, out *C.uintptr_t) C.int {
	var h uintptr
	switch {
	case r <= 2:
		h = 0x2c1
	case r <= 4:
		h = 0x2c9
	case r <= 9:
		h = 0x2d1
	case r <= 18:
		h = 0x2d9
	}
	return f90Type("MPI_Type_create_f90_integer", C.MPI_COMBINER_F90_INTEGER, int(C.MPI_UNDEFINED), int(r), h, out)
}

// realKind is the REAL of precision p and range r (either MPI_UNDEFINED).
func realKind(p, r C.int) uintptr {
	switch {
	case (undef(p) || p <= 6) && (undef(r) || r <= 37):
		return 0x2d2 // MPI_REAL4
	case (undef(p) || p <= 15) && (undef(r) || r <= 307):
		return 0x2da // MPI_REAL8
	case (undef(p) || p <= 18) && (undef(r) || r <= 4931):
		return 0x220 // long double
	}
	return 0
}

//export abigo_Type_create_f90_real
func abigo_Type_create_f90_real(p, r C.int, out *C.uintptr_t) C.int {
	if undef(p) && undef(r) {
		return failCode(0, "MPI_Type_create_f90_real", C.MPI_ERR_ARG, "both precision and range are MPI_UNDEFINED")
	}
	return f90Type("MPI_Type_create_f90_real", C.MPI_COMBINER_F90_REAL, int(p), int(r), realKind(p, r), out)
}

//export abigo_Type_create_f90_complex
func abigo_Type_create_f90_complex(p, r C.int, out *C.uintptr_t) C.int {
	if undef(p) && undef(r) {
		return failCode(0, "MPI_Type_create_f90_complex", C.MPI_ERR_ARG, "both precision and range are MPI_UNDEFINED")
	}
	// A COMPLEX of REAL*4 parts is COMPLEX*8: the ABI's sized complex
	// types are named by their total size (MPI_COMPLEX4, 0x2d3, is two
	// 2-byte parts).
	h := map[uintptr]uintptr{
		0x2d2: 0x2db, // MPI_REAL4 parts: MPI_COMPLEX8
		0x2da: 0x2e3, // MPI_REAL8 parts: MPI_COMPLEX16
		0x220: 0x224, // long double parts: MPI_C_LONG_DOUBLE_COMPLEX
	}[realKind(p, r)]
	return f90Type("MPI_Type_create_f90_complex", C.MPI_COMBINER_F90_COMPLEX, int(p), int(r), h, out)
}

// valueIndex maps (value type, index type) to MPI-4.1's pair types.
var valueIndex = map[[2]uintptr]uintptr{
	{0x210, 0x209}: 0x228, // MPI_FLOAT, MPI_INT: MPI_FLOAT_INT
	{0x214, 0x209}: 0x229, // MPI_DOUBLE_INT
	{0x20a, 0x209}: 0x22a, // MPI_LONG_INT
	{0x209, 0x209}: 0x22b, // MPI_2INT
	{0x208, 0x209}: 0x22c, // MPI_SHORT_INT
	{0x220, 0x209}: 0x22d, // MPI_LONG_DOUBLE_INT
	{0x21a, 0x21a}: 0x230, // MPI_2REAL
	{0x21c, 0x21c}: 0x231, // MPI_2DOUBLE_PRECISION
	{0x219, 0x219}: 0x232, // MPI_2INTEGER
}

//export abigo_Type_get_value_index
func abigo_Type_get_value_index(value, index C.uintptr_t, out *C.uintptr_t) C.int {
	const call = "MPI_Type_get_value_index"
	if _, ok := typeOf(value, false); !ok {
		return failCode(0, call, C.MPI_ERR_TYPE, "invalid value type")
	}
	if _, ok := typeOf(index, false); !ok {
		return failCode(0, call, C.MPI_ERR_TYPE, "invalid index type")
	}
	if out == nil {
		return failCode(0, call, C.MPI_ERR_ARG, "pair_type is NULL")
	}
	h, ok := valueIndex[[2]uintptr{uintptr(value), uintptr(index)}]
	if !ok {
		*out = 0x200 // MPI_DATATYPE_NULL: no such pair type
		return C.MPI_SUCCESS
	}
	*out = C.uintptr_t(h)
	return C.MPI_SUCCESS
}
