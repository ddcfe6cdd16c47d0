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
