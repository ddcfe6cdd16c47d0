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
		o  C.abi_obj
		c  C.abi_comm
		pe C.abi_p2p
		pp C.abi_p2p_peer
		w  C.abi_win
		g  C.abi_state
		t  C.abi_target
		e  C.abi_epoch
		so C.abi_shm_obj
		sh C.abi_shmem
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
		"abi_p2p":                  {0, unsafe.Sizeof(pe)},
		"abi_p2p.posted":           {unsafe.Offsetof(pe.posted), unsafe.Sizeof(pe.posted)},
		"abi_p2p.unexpected":       {unsafe.Offsetof(pe.unexpected), unsafe.Sizeof(pe.unexpected)},
		"abi_p2p.queued":           {unsafe.Offsetof(pe.queued), unsafe.Sizeof(pe.queued)},
		"abi_p2p.ring_cells":       {unsafe.Offsetof(pe.ring_cells), unsafe.Sizeof(pe.ring_cells)},
		"abi_p2p.eager_limit":      {unsafe.Offsetof(pe.eager_limit), unsafe.Sizeof(pe.eager_limit)},
		"abi_p2p.ring_mine":        {unsafe.Offsetof(pe.ring_mine), unsafe.Sizeof(pe.ring_mine)},
		"abi_p2p.taken":            {unsafe.Offsetof(pe.taken), unsafe.Sizeof(pe.taken)},
		"abi_p2p.lock":             {unsafe.Offsetof(pe.lock), unsafe.Sizeof(pe.lock)},
		"abi_p2p.spare":            {unsafe.Offsetof(pe.spare), unsafe.Sizeof(pe.spare)},
		"abi_p2p.ctrl_mine":        {unsafe.Offsetof(pe.ctrl_mine), unsafe.Sizeof(pe.ctrl_mine)},
		"abi_p2p.me":               {unsafe.Offsetof(pe.me), unsafe.Sizeof(pe.me)},
		"abi_p2p.n":                {unsafe.Offsetof(pe.n), unsafe.Sizeof(pe.n)},
		"abi_p2p_peer":             {0, unsafe.Sizeof(pp)},
		"abi_p2p_peer.wpos":        {unsafe.Offsetof(pp.wpos), unsafe.Sizeof(pp.wpos)},
		"abi_p2p_peer.credit":      {unsafe.Offsetof(pp.credit), unsafe.Sizeof(pp.credit)},
		"abi_p2p_peer.rpos":        {unsafe.Offsetof(pp.rpos), unsafe.Sizeof(pp.rpos)},
		"abi_p2p_peer.returned":    {unsafe.Offsetof(pp.returned), unsafe.Sizeof(pp.returned)},
		"abi_p2p_peer.queued":      {unsafe.Offsetof(pp.queued), unsafe.Sizeof(pp.queued)},
		"abi_p2p_peer.ring_out":    {unsafe.Offsetof(pp.ring_out), unsafe.Sizeof(pp.ring_out)},
		"abi_p2p_peer.ctrl_peer":   {unsafe.Offsetof(pp.ctrl_peer), unsafe.Sizeof(pp.ctrl_peer)},
		"abi_p2p_peer.heap_peer":   {unsafe.Offsetof(pp.heap_peer), unsafe.Sizeof(pp.heap_peer)},
		"abi_win":                  {0, unsafe.Sizeof(w)},
		"abi_win.hdr":              {unsafe.Offsetof(w.hdr), unsafe.Sizeof(w.hdr)},
		"abi_win.errhandler":       {unsafe.Offsetof(w.errhandler), unsafe.Sizeof(w.errhandler)},
		"abi_win.base":             {unsafe.Offsetof(w.base), unsafe.Sizeof(w.base)},
		"abi_win.size":             {unsafe.Offsetof(w.size), unsafe.Sizeof(w.size)},
		"abi_win.disp_unit":        {unsafe.Offsetof(w.disp_unit), unsafe.Sizeof(w.disp_unit)},
		"abi_win.flavor":           {unsafe.Offsetof(w.flavor), unsafe.Sizeof(w.flavor)},
		"abi_win.model":            {unsafe.Offsetof(w.model), unsafe.Sizeof(w.model)},
		"abi_win.pad":              {unsafe.Offsetof(w.pad), unsafe.Sizeof(w.pad)},
		"abi_win.n":                {unsafe.Offsetof(w.n), unsafe.Sizeof(w.n)},
		"abi_win.me":               {unsafe.Offsetof(w.me), unsafe.Sizeof(w.me)},
		"abi_win.fast":             {unsafe.Offsetof(w.fast), unsafe.Sizeof(w.fast)},
		"abi_win.epoch":            {unsafe.Offsetof(w.epoch), unsafe.Sizeof(w.epoch)},
		"abi_win.targets":          {unsafe.Offsetof(w.targets), unsafe.Sizeof(w.targets)},
		"abi_target":               {0, unsafe.Sizeof(t)},
		"abi_target.data":          {unsafe.Offsetof(t.data), unsafe.Sizeof(t.data)},
		"abi_target.size":          {unsafe.Offsetof(t.size), unsafe.Sizeof(t.size)},
		"abi_target.unit":          {unsafe.Offsetof(t.unit), unsafe.Sizeof(t.unit)},
		"abi_target.lock":          {unsafe.Offsetof(t.lock), unsafe.Sizeof(t.lock)},
		"abi_target.bell":          {unsafe.Offsetof(t.bell), unsafe.Sizeof(t.bell)},
		"abi_target.mapped":        {unsafe.Offsetof(t.mapped), unsafe.Sizeof(t.mapped)},
		"abi_target.table":         {unsafe.Offsetof(t.table), unsafe.Sizeof(t.table)},
		"abi_target.dgen":          {unsafe.Offsetof(t.dgen), unsafe.Sizeof(t.dgen)},
		"abi_target.dlo":           {unsafe.Offsetof(t.dlo), unsafe.Sizeof(t.dlo)},
		"abi_target.dn":            {unsafe.Offsetof(t.dn), unsafe.Sizeof(t.dn)},
		"abi_epoch":                {0, unsafe.Sizeof(e)},
		"abi_epoch.lock_all":       {unsafe.Offsetof(e.lock_all), unsafe.Sizeof(e.lock_all)},
		"abi_epoch.fence":          {unsafe.Offsetof(e.fence), unsafe.Sizeof(e.fence)},
		"abi_epoch.in_start":       {unsafe.Offsetof(e.in_start), unsafe.Sizeof(e.in_start)},
		"abi_epoch.pad":            {unsafe.Offsetof(e.pad), unsafe.Sizeof(e.pad)},
		"abi_epoch.nlocks":         {unsafe.Offsetof(e.nlocks), unsafe.Sizeof(e.nlocks)},
		"abi_state":                {0, unsafe.Sizeof(g)},
		"abi_state.initialized":    {unsafe.Offsetof(g.initialized), unsafe.Sizeof(g.initialized)},
		"abi_state.finalized":      {unsafe.Offsetof(g.finalized), unsafe.Sizeof(g.finalized)},
		"abi_state.thread_level":   {unsafe.Offsetof(g.thread_level), unsafe.Sizeof(g.thread_level)},
		"abi_state.last_used_code": {unsafe.Offsetof(g.last_used_code), unsafe.Sizeof(g.last_used_code)},
		"abi_state.comm_world":     {unsafe.Offsetof(g.comm_world), unsafe.Sizeof(g.comm_world)},
		"abi_state.comm_self":      {unsafe.Offsetof(g.comm_self), unsafe.Sizeof(g.comm_self)},
		"abi_state.aborted":        {unsafe.Offsetof(g.aborted), unsafe.Sizeof(g.aborted)},
		"abi_state.pad":            {unsafe.Offsetof(g.pad), unsafe.Sizeof(g.pad)},
		"abi_state.down":           {unsafe.Offsetof(g.down), unsafe.Sizeof(g.down)},
		"abi_shm_obj":              {0, unsafe.Sizeof(so)},
		"abi_shm_obj.off":          {unsafe.Offsetof(so.off), unsafe.Sizeof(so.off)},
		"abi_shm_obj.size":         {unsafe.Offsetof(so.size), unsafe.Sizeof(so.size)},
		"abi_shmem":                {0, unsafe.Sizeof(sh)},
		"abi_shmem.initialized":    {unsafe.Offsetof(sh.initialized), unsafe.Sizeof(sh.initialized)},
		"abi_shmem.my_pe":          {unsafe.Offsetof(sh.my_pe), unsafe.Sizeof(sh.my_pe)},
		"abi_shmem.n_pes":          {unsafe.Offsetof(sh.n_pes), unsafe.Sizeof(sh.n_pes)},
		"abi_shmem.aborted":        {unsafe.Offsetof(sh.aborted), unsafe.Sizeof(sh.aborted)},
		"abi_shmem.base":           {unsafe.Offsetof(sh.base), unsafe.Sizeof(sh.base)},
		"abi_shmem.peers":          {unsafe.Offsetof(sh.peers), unsafe.Sizeof(sh.peers)},
		"abi_shmem.bells":          {unsafe.Offsetof(sh.bells), unsafe.Sizeof(sh.bells)},
		"abi_shmem.seq":            {unsafe.Offsetof(sh.seq), unsafe.Sizeof(sh.seq)},
		"abi_shmem.objs":           {unsafe.Offsetof(sh.objs), unsafe.Sizeof(sh.objs)},
		"abi_shmem.nobjs":          {unsafe.Offsetof(sh.nobjs), unsafe.Sizeof(sh.nobjs)},
		"abi_shmem.pending":        {unsafe.Offsetof(sh.pending), unsafe.Sizeof(sh.pending)},
		"abi_shmem.spin":           {unsafe.Offsetof(sh.spin), unsafe.Sizeof(sh.spin)},
		"abi_shmem.sync":           {unsafe.Offsetof(sh.sync), unsafe.Sizeof(sh.sync)},
	}
}

// cEpochConstants lists state.h's values of windows' epoch bytes and lock
// words, for TestEpochConstants.
func cEpochConstants() map[string]int {
	return map[string]int{
		"AccessNone": C.ABI_ACC_NONE, "AccessOpen": C.ABI_ACC_OPEN, "AccessLockAll": C.ABI_ACC_LOCKALL, "AccessOpening": C.ABI_ACC_OPENING,
		"LockExclusive": C.ABI_LOCK_EXCLUSIVE, "LockShared": C.ABI_LOCK_SHARED, "LockNoCheck": C.ABI_LOCK_NOCHECK, "LockTaking": C.ABI_LOCK_TAKING,
		"FenceNone": C.ABI_FENCE_NONE, "LockReaderInc": C.ABI_LOCK_READER, "LockWriterBits": C.ABI_LOCK_WRITER,
		"EpochSize": C.sizeof_abi_epoch,
		"DynHeader": C.ABI_DYN_HEADER, "DynSlots": C.ABI_DYN_SLOTS, "DynSlotBytes": C.ABI_DYN_SLOT,
		"DynTable": C.ABI_DYN_TABLE, "DynSlotPool": C.ABI_DYN_POOL,
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
