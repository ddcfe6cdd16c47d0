package main

/*
#include "abi.h"
*/
import "C"

import (
	"bytes"
	"strconv"
	"sync"
	"unsafe"

	"github.com/gshmem/gshmem/compat"
)

// The C library's side of the Fortran bindings (MPI-5.0 section 20.x,
// "Fortran support"): the Fortran compiler's LOGICAL values and type
// sizes, told to the library by a Fortran binding (libgshmem_mpifort does
// at load) and read back by anyone. MPI_Fint, the c2f/f2c and status
// conversions are not in the ABI: they live in the binding library
// (compat/abi/fortran/convert.c).

var fortranABI struct {
	mu       sync.Mutex
	booleans map[int][2][]byte // by LOGICAL size: .TRUE., .FALSE.
	info     compat.Info       // nil until MPI_Abi_set_fortran_info
}

// fortranSizes are the Fortran datatypes' sizes this library was built
// with (datatype.go): an info that says otherwise cannot be honoured.
var fortranSizes = map[string]int{
	"mpi_logical_size": 4, "mpi_integer_size": 4, "mpi_real_size": 4, "mpi_double_precision_size": 8,
}

func logicalSizeOK(n C.int) bool { return n > 0 && n <= 16 && n&(n-1) == 0 }

//export abigo_Abi_set_fortran_booleans
func abigo_Abi_set_fortran_booleans(size C.int, t, f C.uintptr_t) C.int {
	const call = "MPI_Abi_set_fortran_booleans"
	if !logicalSizeOK(size) {
		return failCode(0, call, C.MPI_ERR_ARG, "logical_size %d is not a power of two up to 16", size)
	}
	if t == 0 || f == 0 {
		return failCode(0, call, C.MPI_ERR_ARG, "logical_true or logical_false is NULL")
	}
	tv := C.GoBytes(cptr(t), size)
	fv := C.GoBytes(cptr(f), size)
	if bytes.Equal(tv, fv) {
		return failCode(0, call, C.MPI_ERR_ARG, "logical_true and logical_false are the same value")
	}
	fortranABI.mu.Lock()
	defer fortranABI.mu.Unlock()
	if fortranABI.booleans == nil {
		fortranABI.booleans = map[int][2][]byte{}
	}
	if old, ok := fortranABI.booleans[int(size)]; ok {
		// Telling the same values again (a second binding) is fine; other
		// values would change what MPI_LOGICAL data already sent means.
		if bytes.Equal(old[0], tv) && bytes.Equal(old[1], fv) {
			return C.MPI_SUCCESS
		}
		return failCode(0, call, C.MPI_ERR_ABI, "the LOGICAL(%d) values are set already, to other values", size)
	}
	fortranABI.booleans[int(size)] = [2][]byte{tv, fv}
	return C.MPI_SUCCESS
}

//export abigo_Abi_get_fortran_booleans
func abigo_Abi_get_fortran_booleans(size C.int, t, f C.uintptr_t, isSet *C.int) C.int {
	const call = "MPI_Abi_get_fortran_booleans"
	if !logicalSizeOK(size) {
		return failCode(0, call, C.MPI_ERR_ARG, "logical_size %d is not a power of two up to 16", size)
	}
	if isSet == nil {
		return failCode(0, call, C.MPI_ERR_ARG, "is_set is NULL")
	}
	fortranABI.mu.Lock()
	v, ok := fortranABI.booleans[int(size)]
	fortranABI.mu.Unlock()
	*isSet = 0
	if !ok {
		return C.MPI_SUCCESS
	}
	if t == 0 || f == 0 {
		return failCode(0, call, C.MPI_ERR_ARG, "logical_true or logical_false is NULL")
	}
	copy(unsafe.Slice((*byte)(cptr(t)), size), v[0])
	copy(unsafe.Slice((*byte)(cptr(f)), size), v[1])
	*isSet = 1
	return C.MPI_SUCCESS
}

//export abigo_Abi_set_fortran_info
func abigo_Abi_set_fortran_info(info C.uintptr_t) C.int {
	const call = "MPI_Abi_set_fortran_info"
	i, rc := userInfo(info, call)
	if i == nil {
		return rc
	}
	for k, want := range fortranSizes {
		if v, ok := i[k]; ok {
			if n, err := strconv.Atoi(v); err != nil || n != want {
				return failCode(0, call, C.MPI_ERR_ABI, "%s=%s: this library's Fortran type of that name is %d bytes", k, v, want)
			}
		}
	}
	fortranABI.mu.Lock()
	defer fortranABI.mu.Unlock()
	if fortranABI.info != nil {
		return failCode(0, call, C.MPI_ERR_ABI, "the Fortran info is set already (it may be set once)")
	}
	d := compat.Info{}
	for k, v := range i {
		d[k] = v
	}
	fortranABI.info = d
	return C.MPI_SUCCESS
}

//export abigo_Abi_get_fortran_info
func abigo_Abi_get_fortran_info(info *C.uintptr_t) C.int {
	if info == nil {
		return failCode(0, "MPI_Abi_get_fortran_info", C.MPI_ERR_ARG, "info is NULL")
	}
	fortranABI.mu.Lock()
	defer fortranABI.mu.Unlock()
	if fortranABI.info == nil {
		*info = 0x130 // MPI_INFO_NULL: no Fortran binding told the library
		return C.MPI_SUCCESS
	}
	d := compat.Info{}
	for k, v := range fortranABI.info {
		d[k] = v
	}
	*info = C.uintptr_t(newInfo(d))
	return C.MPI_SUCCESS
}

// The MPI_TYPE_CREATE_F90_* calls (MPI-4.1 section 19.1.9) name the
// predefined sized type of the kind SELECTED_REAL_KIND(p, r) or
// SELECTED_INT_KIND(r) selects in gfortran, among the sized types this
// library has (REAL*4, REAL*8, their COMPLEX, INTEGER*1 to *8); a
// precision or range none of them holds is MPI_ERR_ARG. MPI_UNDEFINED
// leaves p or r unconstrained.
func f90Real(call string, p, r C.int, four, eight uintptr, out *C.uintptr_t) C.int {
	if out == nil {
		return failCode(0, call, C.MPI_ERR_ARG, "newtype is NULL")
	}
	if p == C.MPI_UNDEFINED && r == C.MPI_UNDEFINED {
		return failCode(0, call, C.MPI_ERR_ARG, "p and r are both MPI_UNDEFINED")
	}
	fits := func(maxP, maxR C.int) bool {
		return (p == C.MPI_UNDEFINED || p <= maxP) && (r == C.MPI_UNDEFINED || r <= maxR)
	}
	switch {
	case fits(6, 37):
		*out = C.uintptr_t(four)
	case fits(15, 307):
		*out = C.uintptr_t(eight)
	default:
		return failCode(0, call, C.MPI_ERR_ARG, "no REAL kind of this library has precision %d and range %d", p, r)
	}
	return C.MPI_SUCCESS
}

//export abigo_Type_create_f90_real
func abigo_Type_create_f90_real(p, r C.int, out *C.uintptr_t) C.int {
	return f90Real("MPI_Type_create_f90_real", p, r, 0x2d2, 0x2da, out) // MPI_REAL4, MPI_REAL8
}

//export abigo_Type_create_f90_complex
func abigo_Type_create_f90_complex(p, r C.int, out *C.uintptr_t) C.int {
	return f90Real("MPI_Type_create_f90_complex", p, r, 0x2db, 0x2e3, out) // MPI_COMPLEX8, MPI_COMPLEX16
}

//export abigo_Type_create_f90_integer
func abigo_Type_create_f90_integer(r C.int, out *C.uintptr_t) C.int {
	const call = "MPI_Type_create_f90_integer"
	if out == nil {
		return failCode(0, call, C.MPI_ERR_ARG, "newtype is NULL")
	}
	for _, k := range []struct {
		digits C.int
		h      uintptr
	}{{2, 0x2c1}, {4, 0x2c9}, {9, 0x2d1}, {18, 0x2d9}} { // MPI_INTEGER1 ... MPI_INTEGER8
		if r <= k.digits {
			*out = C.uintptr_t(k.h)
			return C.MPI_SUCCESS
		}
	}
	return failCode(0, call, C.MPI_ERR_ARG, "no INTEGER kind of this library has range %d", r)
}
