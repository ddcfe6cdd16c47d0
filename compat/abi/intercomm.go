package main

/*
#include "abi.h"
*/
import "C"

import (
	"errors"

	"github.com/gshmem/gshmem/compat"
)

// Intercommunicators and the communicators made over a group's members
// only, over compat's (intercomm.go, commgroup.go there).

//export abigo_Comm_test_inter
func abigo_Comm_test_inter(comm C.uintptr_t, flag *C.int) C.int {
	o, rc := commOf(comm, "MPI_Comm_test_inter")
	if o == nil {
		return rc
	}
	if flag == nil {
		return failCode(comm, "MPI_Comm_test_inter", C.MPI_ERR_ARG, "flag is NULL")
	}
	*flag = cbool(o.c.IsInter())
	return C.MPI_SUCCESS
}

func cbool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

//export abigo_Comm_remote_size
func abigo_Comm_remote_size(comm C.uintptr_t, size *C.int) C.int {
	o, rc := commOf(comm, "MPI_Comm_remote_size")
	if o == nil {
		return rc
	}
	if size == nil {
		return failCode(comm, "MPI_Comm_remote_size", C.MPI_ERR_ARG, "size is NULL")
	}
	if !o.c.IsInter() {
		return failCode(comm, "MPI_Comm_remote_size", C.MPI_ERR_COMM, "not an intercommunicator")
	}
	*size = C.int(o.c.RemoteSize())
	return C.MPI_SUCCESS
}

//export abigo_Comm_remote_group
func abigo_Comm_remote_group(comm C.uintptr_t, group *C.uintptr_t) C.int {
	o, rc := commOf(comm, "MPI_Comm_remote_group")
	if o == nil {
		return rc
	}
	if group == nil {
		return failCode(comm, "MPI_Comm_remote_group", C.MPI_ERR_ARG, "group is NULL")
	}
	g, err := o.c.RemoteGroup()
	if err != nil {
		return fail(comm, "MPI_Comm_remote_group", err)
	}
	*group = newGroupHandle(g)
	return C.MPI_SUCCESS
}

//export abigo_Intercomm_create
func abigo_Intercomm_create(local C.uintptr_t, localLeader C.int, peer C.uintptr_t, remoteLeader, tag C.int, out *C.uintptr_t) C.int {
	const call = "MPI_Intercomm_create"
	o, rc := commOf(local, call)
	if o == nil {
		return rc
	}
	if out == nil {
		return failCode(local, call, C.MPI_ERR_ARG, "newintercomm is NULL")
	}
	// The peer communicator matters at the local leader only.
	var pc *compat.Comm
	if p, ok := lookup(uintptr(peer), C.ABI_KIND_COMM); ok {
		pc = p.val.(*commObj).c
	} else if int(localLeader) == o.c.Rank() {
		return failCode(local, call, C.MPI_ERR_COMM, "invalid peer communicator")
	}
	ic, err := o.c.IntercommCreate(int(localLeader), pc, int(remoteLeader), tagIn(tag))
	if err != nil {
		return fail(local, call, err)
	}
	newComm(o, ic, out)
	return C.MPI_SUCCESS
}

//export abigo_Intercomm_merge
func abigo_Intercomm_merge(comm C.uintptr_t, high C.int, out *C.uintptr_t) C.int {
	const call = "MPI_Intercomm_merge"
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	if out == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "newintracomm is NULL")
	}
	m, err := o.c.Merge(high != 0)
	if err != nil {
		return fail(comm, call, err)
	}
	newComm(o, m, out)
	return C.MPI_SUCCESS
}

//export abigo_Comm_create_group
func abigo_Comm_create_group(comm, group C.uintptr_t, tag C.int, out *C.uintptr_t) C.int {
	const call = "MPI_Comm_create_group"
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	g, ok := groupOf(group)
	if !ok || out == nil {
		return failCode(comm, call, C.MPI_ERR_GROUP, "invalid group or NULL newcomm")
	}
	d, err := o.c.CreateGroup(g, tagIn(tag))
	if err != nil {
		return fail(comm, call, err)
	}
	newComm(o, d, out)
	return C.MPI_SUCCESS
}

// fromGroupArgs checks what MPI_Comm_create_from_group and
// MPI_Intercomm_create_from_groups share: the string tag, info and the
// error handler the new communicator gets.
func fromGroupArgs(call string, tag *C.char, info, eh C.uintptr_t, out *C.uintptr_t) (string, C.int) {
	if !envLive.Load() || env.e == nil {
		return "", failCode(0, call, C.MPI_ERR_OTHER, "neither MPI nor a session is initialized")
	}
	if tag == nil || out == nil {
		return "", failCode(0, call, C.MPI_ERR_ARG, "stringtag or newcomm is NULL")
	}
	if _, ok := infoOf(info); !ok {
		return "", failCode(0, call, C.MPI_ERR_INFO, "invalid info")
	}
	if eh != 0x140 && !validHandler(uintptr(eh), C.ABI_KIND_COMM) {
		return "", failCode(0, call, C.MPI_ERR_ARG, "not a communicator error handler")
	}
	return C.GoString(tag), C.MPI_SUCCESS
}

// commFrom publishes c, made from group g, with error handler eh
// (MPI_ERRHANDLER_NULL: fatal); c belongs to g's session, if any.
func commFrom(c *compat.Comm, g *compat.Group, eh C.uintptr_t, out *C.uintptr_t) {
	if c == nil {
		*out = 0x100
		return
	}
	o := newCommObj(c, 0)
	o.session = groupSession[g]
	if eh != 0x140 {
		o.cs.Errhandler = uintptr(eh)
	}
	*out = o.handle()
}

//export abigo_Comm_create_from_group
func abigo_Comm_create_from_group(group C.uintptr_t, tag *C.char, info, eh C.uintptr_t, out *C.uintptr_t) C.int {
	const call = "MPI_Comm_create_from_group"
	s, rc := fromGroupArgs(call, tag, info, eh, out)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	g, ok := groupOf(group)
	if !ok {
		return failCode(0, call, C.MPI_ERR_GROUP, "invalid group")
	}
	c, err := env.e.CommFromGroup(g, s)
	if err != nil {
		return fail(0, call, err)
	}
	commFrom(c, g, eh, out)
	return C.MPI_SUCCESS
}

//export abigo_Intercomm_create_from_groups
func abigo_Intercomm_create_from_groups(local C.uintptr_t, localLeader C.int, remote C.uintptr_t, remoteLeader C.int, tag *C.char, info, eh C.uintptr_t, out *C.uintptr_t) C.int {
	const call = "MPI_Intercomm_create_from_groups"
	s, rc := fromGroupArgs(call, tag, info, eh, out)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	lg, ok1 := groupOf(local)
	rg, ok2 := groupOf(remote)
	if !ok1 || !ok2 {
		return failCode(0, call, C.MPI_ERR_GROUP, "invalid group")
	}
	c, err := env.e.IntercommFromGroups(lg, int(localLeader), rg, int(remoteLeader), s)
	if err != nil {
		return fail(0, call, err)
	}
	commFrom(c, lg, eh, out)
	return C.MPI_SUCCESS
}

// MPI_Comm_idup runs compat's DupAsync on a goroutine, after the
// communicator's previous idup (intercoll.go's chainRun), so members may
// start idups of different communicators in different orders and go on
// using the communicator meanwhile; *out is set when it completes, with
// the attributes copied, as MPI_Comm_dup does.

//export abigo_Comm_idup
func abigo_Comm_idup(comm C.uintptr_t, out, req *C.uintptr_t) C.int {
	return idup("MPI_Comm_idup", comm, 0x130, out, req)
}

//export abigo_Comm_idup_with_info
func abigo_Comm_idup_with_info(comm, info C.uintptr_t, out, req *C.uintptr_t) C.int {
	return idup("MPI_Comm_idup_with_info", comm, info, out, req)
}

func idup(call string, comm, info C.uintptr_t, out, req *C.uintptr_t) C.int {
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	if _, ok := infoOf(info); !ok {
		return failCode(comm, call, C.MPI_ERR_INFO, "invalid info")
	}
	if out == nil || req == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "newcomm or request is NULL")
	}
	var tmp C.uintptr_t
	return chainRun(o, comm, call, req, func() error {
		d, err := o.c.DupAsync()
		if err != nil {
			return err
		}
		newComm(o, d, &tmp)
		n, _ := lookup(uintptr(tmp), C.ABI_KIND_COMM)
		dup := n.val.(*commObj)
		dup.cart, dup.graph = o.cart, o.graph
		if rc := copyAttrs(comm, o, dup); rc != C.MPI_SUCCESS {
			return errors.New("an attribute copy function failed")
		}
		*out = tmp
		return nil
	})
}
