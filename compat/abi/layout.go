package main

/*
#include "abi.h"
*/
import "C"

import "unsafe"

// cField is a field of a state.h struct as the C compiler lays it out.
type cField struct{ off, size uintptr }

// cLayout lists, for TestStateLayout, every field of the structs of
// state.h with its offset and size as cgo reads them from the C compiler,
// and each struct's size under the name of the struct alone.
func cLayout() map[string]cField {
	var (
		o C.abi_obj
		c C.abi_comm
		w C.abi_win
		g C.abi_state
	)
	return map[string]cField{
		"abi_obj":                  {0, unsafe.Sizeof(o)},
		"abi_obj.magic":            {unsafe.Offsetof(o.magic), unsafe.Sizeof(o.magic)},
		"abi_obj.kind":             {unsafe.Offsetof(o.kind), unsafe.Sizeof(o.kind)},
		"abi_obj.id":               {unsafe.Offsetof(o.id), unsafe.Sizeof(o.id)},
		"abi_obj.pad":              {unsafe.Offsetof(o.pad), unsafe.Sizeof(o.pad)},
		"abi_comm":                 {0, unsafe.Sizeof(c)},
		"abi_comm.hdr":             {unsafe.Offsetof(c.hdr), unsafe.Sizeof(c.hdr)},
		"abi_comm.rank":            {unsafe.Offsetof(c.rank), unsafe.Sizeof(c.rank)},
		"abi_comm.size":            {unsafe.Offsetof(c.size), unsafe.Sizeof(c.size)},
		"abi_comm.errhandler":      {unsafe.Offsetof(c.errhandler), unsafe.Sizeof(c.errhandler)},
		"abi_win":                  {0, unsafe.Sizeof(w)},
		"abi_win.hdr":              {unsafe.Offsetof(w.hdr), unsafe.Sizeof(w.hdr)},
		"abi_win.errhandler":       {unsafe.Offsetof(w.errhandler), unsafe.Sizeof(w.errhandler)},
		"abi_win.base":             {unsafe.Offsetof(w.base), unsafe.Sizeof(w.base)},
		"abi_win.size":             {unsafe.Offsetof(w.size), unsafe.Sizeof(w.size)},
		"abi_win.disp_unit":        {unsafe.Offsetof(w.disp_unit), unsafe.Sizeof(w.disp_unit)},
		"abi_win.flavor":           {unsafe.Offsetof(w.flavor), unsafe.Sizeof(w.flavor)},
		"abi_win.model":            {unsafe.Offsetof(w.model), unsafe.Sizeof(w.model)},
		"abi_win.pad":              {unsafe.Offsetof(w.pad), unsafe.Sizeof(w.pad)},
		"abi_state":                {0, unsafe.Sizeof(g)},
		"abi_state.initialized":    {unsafe.Offsetof(g.initialized), unsafe.Sizeof(g.initialized)},
		"abi_state.finalized":      {unsafe.Offsetof(g.finalized), unsafe.Sizeof(g.finalized)},
		"abi_state.thread_level":   {unsafe.Offsetof(g.thread_level), unsafe.Sizeof(g.thread_level)},
		"abi_state.last_used_code": {unsafe.Offsetof(g.last_used_code), unsafe.Sizeof(g.last_used_code)},
		"abi_state.comm_world":     {unsafe.Offsetof(g.comm_world), unsafe.Sizeof(g.comm_world)},
		"abi_state.comm_self":      {unsafe.Offsetof(g.comm_self), unsafe.Sizeof(g.comm_self)},
	}
}
