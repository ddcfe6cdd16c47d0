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
		e C.abi_p2p
		p C.abi_p2p_peer
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
		"abi_comm.p2p":             {unsafe.Offsetof(c.p2p), unsafe.Sizeof(c.p2p)},
		"abi_comm.pes":             {unsafe.Offsetof(c.pes), unsafe.Sizeof(c.pes)},
		"abi_comm.ranks":           {unsafe.Offsetof(c.ranks), unsafe.Sizeof(c.ranks)},
		"abi_comm.ctx":             {unsafe.Offsetof(c.ctx), unsafe.Sizeof(c.ctx)},
		"abi_comm.pad":             {unsafe.Offsetof(c.pad), unsafe.Sizeof(c.pad)},
		"abi_p2p":                  {0, unsafe.Sizeof(e)},
		"abi_p2p.posted":           {unsafe.Offsetof(e.posted), unsafe.Sizeof(e.posted)},
		"abi_p2p.unexpected":       {unsafe.Offsetof(e.unexpected), unsafe.Sizeof(e.unexpected)},
		"abi_p2p.queued":           {unsafe.Offsetof(e.queued), unsafe.Sizeof(e.queued)},
		"abi_p2p.ring_cells":       {unsafe.Offsetof(e.ring_cells), unsafe.Sizeof(e.ring_cells)},
		"abi_p2p.eager_limit":      {unsafe.Offsetof(e.eager_limit), unsafe.Sizeof(e.eager_limit)},
		"abi_p2p.ring_mine":        {unsafe.Offsetof(e.ring_mine), unsafe.Sizeof(e.ring_mine)},
		"abi_p2p.ctrl_mine":        {unsafe.Offsetof(e.ctrl_mine), unsafe.Sizeof(e.ctrl_mine)},
		"abi_p2p.me":               {unsafe.Offsetof(e.me), unsafe.Sizeof(e.me)},
		"abi_p2p.n":                {unsafe.Offsetof(e.n), unsafe.Sizeof(e.n)},
		"abi_p2p_peer":             {0, unsafe.Sizeof(p)},
		"abi_p2p_peer.wpos":        {unsafe.Offsetof(p.wpos), unsafe.Sizeof(p.wpos)},
		"abi_p2p_peer.credit":      {unsafe.Offsetof(p.credit), unsafe.Sizeof(p.credit)},
		"abi_p2p_peer.rpos":        {unsafe.Offsetof(p.rpos), unsafe.Sizeof(p.rpos)},
		"abi_p2p_peer.returned":    {unsafe.Offsetof(p.returned), unsafe.Sizeof(p.returned)},
		"abi_p2p_peer.queued":      {unsafe.Offsetof(p.queued), unsafe.Sizeof(p.queued)},
		"abi_p2p_peer.ring_out":    {unsafe.Offsetof(p.ring_out), unsafe.Sizeof(p.ring_out)},
		"abi_p2p_peer.ctrl_peer":   {unsafe.Offsetof(p.ctrl_peer), unsafe.Sizeof(p.ctrl_peer)},
		"abi_p2p_peer.heap_peer":   {unsafe.Offsetof(p.heap_peer), unsafe.Sizeof(p.heap_peer)},
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

// cConstants lists the constants of state.h that mirror compat's ring
// format (p2pstate), for TestStateLayout.
func cConstants() map[string]int {
	return map[string]int{
		"ABI_P2P_CELL":        C.ABI_P2P_CELL,
		"ABI_P2P_HDR":         C.ABI_P2P_HDR,
		"ABI_P2P_EAGER":       C.ABI_P2P_EAGER,
		"ABI_P2P_CREDIT_BASE": C.ABI_P2P_CREDIT_BASE,
		"ABI_P2P_TAG_BARRIER": C.ABI_P2P_TAG_BARRIER,
		"ABI_P2P_COLL_BIT":    C.ABI_P2P_COLL_BIT,
	}
}
