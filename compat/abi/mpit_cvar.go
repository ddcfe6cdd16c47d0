package main

/*
#include "abi.h"
*/
import "C"

import (
	"os"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/gshmem/gshmem/internal/settings"
)

// MPI_T control variables: one for each GSHMEM_* setting of
// internal/settings' table but GSHMEM_JOB_SECRET (whose value is never
// shown), named as the environment variable. gshmem reads its settings
// once, from the environment the process started with, so none can be
// written: MPI_T_cvar_write answers MPI_T_ERR_CVAR_SET_NEVER. A choice
// setting is an MPI_INT whose values an enumeration names (the index of
// the choice; unset, the default's); every other setting is its text, an
// MPI_CHAR string, empty when unset. The launcher's variables have scope
// MPI_T_SCOPE_CONSTANT (fixed for the job), the others
// MPI_T_SCOPE_READONLY.

// cvar is one control variable.
type cvar struct {
	v    settings.Var
	enum uintptr // its MPI_T_enum, 0 if none
}

// cvarHandle is an MPI_T_cvar_handle: its variable, read when it was made.
type cvarHandle struct {
	index int
	text  string
	value int
}

// The variables and enumerations, made once.
var (
	cvarsOnce sync.Once
	cvarList  []cvar
	enumList  []int // enumeration k (handle enumBase+k) is cvarList[enumList[k]]'s
)

const enumBase = 0x10

func cvarTable() []cvar {
	cvarsOnce.Do(func() {
		for _, v := range settings.All() {
			if v.Name == "GSHMEM_JOB_SECRET" {
				continue
			}
			c := cvar{v: v}
			if v.Kind == settings.Choice {
				c.enum = enumBase + uintptr(len(enumList))
				enumList = append(enumList, len(cvarList))
			}
			cvarList = append(cvarList, c)
		}
	})
	return cvarList
}

// desc is a cvar's description: the table's help and what it says of
// the default, the range and the reader.
func (c cvar) desc() string {
	var b strings.Builder
	b.WriteString(strings.ReplaceAll(c.v.Help, "`", ""))
	if c.v.Default != "" {
		b.WriteString("; default: " + strings.ReplaceAll(c.v.Default, "`", ""))
	}
	if c.v.Range != "" {
		b.WriteString("; accepts: " + c.v.Range)
	}
	b.WriteString("; read by " + c.v.Reader)
	return b.String()
}

func (c cvar) verbosity() int {
	switch {
	case c.v.Kind == settings.Launcher:
		return C.MPI_T_VERBOSITY_USER_DETAIL
	case c.v.Reader == "compat":
		return C.MPI_T_VERBOSITY_TUNER_BASIC
	case c.v.Reader == "shmem" || strings.Contains(c.v.Reader, "libmpi_abi"):
		return C.MPI_T_VERBOSITY_USER_BASIC
	}
	return C.MPI_T_VERBOSITY_USER_ALL // the tools' settings (gshmem mpicc, ...)
}

// choice is a choice setting's value: the index of its choice, of the
// default when unset or not accepted.
func (c cvar) choice() int {
	s, err := c.v.Choice(os.Getenv)
	if s == "" || err != nil {
		s = c.v.Default
	}
	if i := slices.Index(c.v.Choices, s); i >= 0 {
		return i
	}
	return 0
}

//export abigo_T_cvar_get_num
func abigo_T_cvar_get_num(num *C.int) C.int {
	if rc := toolsLock(); rc != C.MPI_SUCCESS {
		return rc
	}
	defer tools.mu.Unlock()
	if num == nil {
		return C.MPI_T_ERR_INVALID
	}
	*num = C.int(len(cvarTable()))
	return C.MPI_SUCCESS
}

//export abigo_T_cvar_get_info
func abigo_T_cvar_get_info(index C.int, name *C.char, nameLen *C.int, verbosity *C.int, datatype *C.uintptr_t,
	enumtype *C.uintptr_t, desc *C.char, descLen *C.int, bind *C.int, scope *C.int) C.int {
	if rc := toolsLock(); rc != C.MPI_SUCCESS {
		return rc
	}
	defer tools.mu.Unlock()
	t := cvarTable()
	if index < 0 || int(index) >= len(t) {
		return C.MPI_T_ERR_INVALID_INDEX
	}
	c := t[index]
	tString(name, nameLen, c.v.Name)
	tString(desc, descLen, c.desc())
	setInt(verbosity, c.verbosity())
	if datatype != nil {
		*datatype = tChar
		if c.enum != 0 {
			*datatype = tInt
		}
	}
	if enumtype != nil {
		*enumtype = C.uintptr_t(c.enum)
	}
	setInt(bind, C.MPI_T_BIND_NO_OBJECT)
	sc := C.MPI_T_SCOPE_READONLY
	if c.v.Kind == settings.Launcher {
		sc = C.MPI_T_SCOPE_CONSTANT
	}
	setInt(scope, sc)
	return C.MPI_SUCCESS
}

//export abigo_T_cvar_get_index
func abigo_T_cvar_get_index(name *C.char, index *C.int) C.int {
	if rc := toolsLock(); rc != C.MPI_SUCCESS {
		return rc
	}
	defer tools.mu.Unlock()
	s, ok := tName(name)
	if !ok || index == nil {
		return C.MPI_T_ERR_INVALID
	}
	for i, c := range cvarTable() {
		if c.v.Name == s {
			*index = C.int(i)
			return C.MPI_SUCCESS
		}
	}
	return C.MPI_T_ERR_INVALID_NAME
}

//export abigo_T_cvar_handle_alloc
func abigo_T_cvar_handle_alloc(index C.int, obj C.uintptr_t, handle *C.uintptr_t, count *C.int) C.int {
	if rc := toolsLock(); rc != C.MPI_SUCCESS {
		return rc
	}
	defer tools.mu.Unlock()
	t := cvarTable()
	if index < 0 || int(index) >= len(t) {
		return C.MPI_T_ERR_INVALID_INDEX
	}
	if handle == nil || count == nil {
		return C.MPI_T_ERR_INVALID
	}
	c := t[index]
	h := &cvarHandle{index: int(index)}
	if c.enum != 0 {
		h.value = c.choice()
		*count = 1
	} else {
		h.text = os.Getenv(c.v.Name)
		*count = C.int(len(h.text) + 1)
	}
	id := newToolsID()
	tools.cvars[id] = h
	*handle = C.uintptr_t(id)
	return C.MPI_SUCCESS
}

// cvarOf returns the control variable handle h, with tools.mu held.
func cvarOf(h C.uintptr_t) *cvarHandle { return tools.cvars[uintptr(h)] }

//export abigo_T_cvar_handle_free
func abigo_T_cvar_handle_free(handle *C.uintptr_t) C.int {
	if rc := toolsLock(); rc != C.MPI_SUCCESS {
		return rc
	}
	defer tools.mu.Unlock()
	if handle == nil || cvarOf(*handle) == nil {
		return C.MPI_T_ERR_INVALID_HANDLE
	}
	delete(tools.cvars, uintptr(*handle))
	*handle = 0 // MPI_T_CVAR_HANDLE_NULL
	return C.MPI_SUCCESS
}

//export abigo_T_cvar_read
func abigo_T_cvar_read(handle C.uintptr_t, buf C.uintptr_t) C.int {
	if rc := toolsLock(); rc != C.MPI_SUCCESS {
		return rc
	}
	defer tools.mu.Unlock()
	h := cvarOf(handle)
	if h == nil {
		return C.MPI_T_ERR_INVALID_HANDLE
	}
	if buf == 0 {
		return C.MPI_T_ERR_INVALID
	}
	if cvarTable()[h.index].enum != 0 {
		*(*C.int)(cptr(buf)) = C.int(h.value)
		return C.MPI_SUCCESS
	}
	b := unsafe.Slice((*byte)(cptr(buf)), len(h.text)+1)
	copy(b, h.text)
	b[len(h.text)] = 0
	return C.MPI_SUCCESS
}

//export abigo_T_cvar_write
func abigo_T_cvar_write(handle C.uintptr_t, buf C.uintptr_t) C.int {
	if rc := toolsLock(); rc != C.MPI_SUCCESS {
		return rc
	}
	defer tools.mu.Unlock()
	if cvarOf(handle) == nil {
		return C.MPI_T_ERR_INVALID_HANDLE
	}
	return C.MPI_T_ERR_CVAR_SET_NEVER
}

// Enumerations: one per choice setting, its items the choices.

func enumOf(e C.uintptr_t) (cvar, bool) {
	t := cvarTable()
	k := int(uintptr(e)) - enumBase
	if uintptr(e) < enumBase || k >= len(enumList) {
		return cvar{}, false
	}
	return t[enumList[k]], true
}

//export abigo_T_enum_get_info
func abigo_T_enum_get_info(e C.uintptr_t, num *C.int, name *C.char, nameLen *C.int) C.int {
	if rc := toolsLock(); rc != C.MPI_SUCCESS {
		return rc
	}
	defer tools.mu.Unlock()
	c, ok := enumOf(e)
	if !ok {
		return C.MPI_T_ERR_INVALID_HANDLE
	}
	setInt(num, len(c.v.Choices))
	tString(name, nameLen, c.v.Name)
	return C.MPI_SUCCESS
}

//export abigo_T_enum_get_item
func abigo_T_enum_get_item(e C.uintptr_t, index C.int, value *C.int, name *C.char, nameLen *C.int) C.int {
	if rc := toolsLock(); rc != C.MPI_SUCCESS {
		return rc
	}
	defer tools.mu.Unlock()
	c, ok := enumOf(e)
	if !ok {
		return C.MPI_T_ERR_INVALID_HANDLE
	}
	if index < 0 || int(index) >= len(c.v.Choices) {
		return C.MPI_T_ERR_INVALID_ITEM
	}
	setInt(value, int(index))
	tString(name, nameLen, c.v.Choices[index])
	return C.MPI_SUCCESS
}
