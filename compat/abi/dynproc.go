package main

/*
#include "abi.h"
*/
import "C"

import (
	"os"
	"strconv"
	"sync"
	"time"
	"unsafe"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/mpierr"
)

// Process creation and management between jobs (MPI-4.1 chapter 11) over
// compat's (dynproc.go, spawn.go there): ports, accept and connect, join,
// spawn and the parent intercommunicator. A port name is opened here by
// MPI_Open_port and closed by MPI_Close_port; MPI_Comm_accept takes one
// this process opened.

// ports holds the ports MPI_Open_port opened, by name.
var ports struct {
	sync.Mutex
	open map[string]*compat.Port
}

//export abigo_Open_port
func abigo_Open_port(info C.uintptr_t, name *C.char) C.int {
	const call = "MPI_Open_port"
	if name == nil {
		return failCode(0, call, C.MPI_ERR_ARG, "port_name is NULL")
	}
	if _, ok := infoOf(info); !ok {
		return failCode(0, call, C.MPI_ERR_INFO, "not an info object")
	}
	if !envLive.Load() {
		return failCode(0, call, C.MPI_ERR_OTHER, "MPI is not initialized (or finalized)")
	}
	p, err := env.e.OpenPort()
	if err != nil {
		return fail(0, call, err)
	}
	if len(p.Name()) >= C.MPI_MAX_PORT_NAME {
		_ = p.Close()
		return failCode(0, call, C.MPI_ERR_OTHER, "a port name of %d bytes (MPI_MAX_PORT_NAME is %d)", len(p.Name()), C.MPI_MAX_PORT_NAME)
	}
	ports.Lock()
	if ports.open == nil {
		ports.open = map[string]*compat.Port{}
	}
	ports.open[p.Name()] = p
	ports.Unlock()
	putString(name, p.Name(), C.MPI_MAX_PORT_NAME)
	return C.MPI_SUCCESS
}

//export abigo_Close_port
func abigo_Close_port(name *C.char) C.int {
	const call = "MPI_Close_port"
	if name == nil {
		return failCode(0, call, C.MPI_ERR_ARG, "port_name is NULL")
	}
	n := C.GoString(name)
	ports.Lock()
	p := ports.open[n]
	delete(ports.open, n)
	ports.Unlock()
	if p == nil {
		return failCode(0, call, C.MPI_ERR_PORT, "%q is not a port this process opened (or it was closed)", n)
	}
	if err := p.Close(); err != nil {
		return fail(0, call, err)
	}
	return C.MPI_SUCCESS
}

// meetArgs checks what MPI_Comm_accept and MPI_Comm_connect take on every
// member; the port name is the root's only.
// The root's info may hold gshmem_timeout: how long it waits for the
// other side (a Go duration or seconds; GSHMEM_DYNPROC_TIMEOUT without).
func meetArgs(call string, name *C.char, info C.uintptr_t, root C.int, comm C.uintptr_t, out *C.uintptr_t) (*commObj, string, time.Duration, C.int) {
	o, rc := commOf(comm, call)
	if o == nil {
		return nil, "", 0, rc
	}
	if out == nil {
		return nil, "", 0, failCode(comm, call, C.MPI_ERR_ARG, "newcomm is NULL")
	}
	if o.c.IsInter() {
		return nil, "", 0, failCode(comm, call, C.MPI_ERR_COMM, "an intercommunicator (accept and connect take an intracommunicator)")
	}
	if root < 0 || int(root) >= o.c.Size() {
		return nil, "", 0, failCode(comm, call, C.MPI_ERR_ROOT, "root %d of a communicator of %d", int(root), o.c.Size())
	}
	var n string
	var d time.Duration
	if int(root) == o.c.Rank() {
		hints, ok := infoOf(info)
		if !ok {
			return nil, "", 0, failCode(comm, call, C.MPI_ERR_INFO, "not an info object")
		}
		if v := hints["gshmem_timeout"]; v != "" {
			d = parseWait(v)
		}
		if name != nil {
			n = C.GoString(name)
		}
	}
	return o, n, d, C.MPI_SUCCESS
}

// parseWait reads a Go duration or seconds; 0 (the default) when it is
// neither or not above zero, as hints an implementation cannot take are
// ignored.
func parseWait(v string) time.Duration {
	if d, err := time.ParseDuration(v); err == nil && d > 0 {
		return d
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil && f > 0 && f < 1e6 {
		return time.Duration(f * float64(time.Second))
	}
	return 0
}

//export abigo_Comm_accept
func abigo_Comm_accept(name *C.char, info C.uintptr_t, root C.int, comm C.uintptr_t, out *C.uintptr_t) C.int {
	const call = "MPI_Comm_accept"
	o, n, d, rc := meetArgs(call, name, info, root, comm, out)
	if o == nil {
		return rc
	}
	ports.Lock()
	p := ports.open[n] // nil off the root, or for a name not opened here: Accept says which
	ports.Unlock()
	ic, err := o.c.AcceptTimeout(p, int(root), d)
	if err != nil {
		return fail(comm, call, err)
	}
	newComm(o, ic, out)
	return C.MPI_SUCCESS
}

//export abigo_Comm_connect
func abigo_Comm_connect(name *C.char, info C.uintptr_t, root C.int, comm C.uintptr_t, out *C.uintptr_t) C.int {
	const call = "MPI_Comm_connect"
	o, n, d, rc := meetArgs(call, name, info, root, comm, out)
	if o == nil {
		return rc
	}
	ic, err := o.c.ConnectTimeout(n, int(root), d)
	if err != nil {
		return fail(comm, call, err)
	}
	newComm(o, ic, out)
	return C.MPI_SUCCESS
}

//export abigo_Comm_join
func abigo_Comm_join(fd C.int, out *C.uintptr_t) C.int {
	const call = "MPI_Comm_join"
	if out == nil {
		return failCode(0, call, C.MPI_ERR_ARG, "intercomm is NULL")
	}
	if !envLive.Load() {
		return failCode(0, call, C.MPI_ERR_OTHER, "MPI is not initialized (or finalized)")
	}
	ic, err := env.e.Join(int(fd))
	if err != nil {
		return fail(0x101, call, err) // MPI_COMM_WORLD's handler: no communicator is given
	}
	newComm(env.self, ic, out)
	return C.MPI_SUCCESS
}

// argvOf reads a NULL-terminated argv (MPI_ARGV_NULL: none), at most
// 1<<16 entries.
func argvOf(argv **C.char) []string {
	if argv == nil {
		return nil
	}
	var out []string
	for _, p := range unsafe.Slice(argv, 1<<16) {
		if p == nil {
			break
		}
		out = append(out, C.GoString(p))
	}
	return out
}

// spawnApp is one command of a spawn with its info keys: wdir and path
// are taken, host must name this machine (gshmem run starts processes on
// it only), soft and the others are ignored (all maxprocs start or none).
func spawnApp(command *C.char, argv **C.char, maxprocs C.int, info C.uintptr_t) (compat.SpawnApp, error) {
	i, ok := infoOf(info)
	if !ok {
		return compat.SpawnApp{}, mpierr.Errorf(mpierr.ClassArg, "not an info object")
	}
	a := compat.SpawnApp{Args: argvOf(argv), MaxProcs: int(maxprocs), Dir: i["wdir"], Path: i["path"]}
	if command != nil {
		a.Command = C.GoString(command)
	}
	if h := i["host"]; h != "" {
		me, _ := os.Hostname()
		if h != me && h != "localhost" && h != "127.0.0.1" {
			return a, mpierr.Errorf(mpierr.ClassSpawn, "info host=%q: gshmem run starts processes on this machine (%s) only", h, me)
		}
	}
	return a, nil
}

// spawn is MPI_Comm_spawn's and MPI_Comm_spawn_multiple's body: apps (at
// root) or the error reading them, then the errcodes.
func spawn(call string, comm C.uintptr_t, root C.int, out *C.uintptr_t, errcodes *C.int, nerr int, apps func() ([]compat.SpawnApp, error)) C.int {
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	if out == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "intercomm is NULL")
	}
	if o.c.IsInter() {
		return failCode(comm, call, C.MPI_ERR_COMM, "an intercommunicator")
	}
	if root < 0 || int(root) >= o.c.Size() {
		return failCode(comm, call, C.MPI_ERR_ROOT, "root %d of a communicator of %d", int(root), o.c.Size())
	}
	ic, err := o.c.SpawnWith(int(root), apps)
	if err != nil {
		if errcodes != nil && nerr > 0 {
			code := codeOf(err)
			for i := range unsafe.Slice(errcodes, nerr) {
				unsafe.Slice(errcodes, nerr)[i] = code
			}
		}
		return fail(comm, call, err)
	}
	if errcodes != nil {
		clear(unsafe.Slice(errcodes, ic.RemoteSize())) // MPI_SUCCESS is 0
	}
	newComm(o, ic, out)
	return C.MPI_SUCCESS
}

//export abigo_Comm_spawn
func abigo_Comm_spawn(command *C.char, argv **C.char, maxprocs C.int, info C.uintptr_t, root C.int, comm C.uintptr_t, out *C.uintptr_t, errcodes *C.int) C.int {
	nerr := 0
	if o, _ := lookupComm(comm); o != nil && int(root) == o.c.Rank() {
		nerr = max(int(maxprocs), 0)
	}
	return spawn("MPI_Comm_spawn", comm, root, out, errcodes, nerr, func() ([]compat.SpawnApp, error) {
		a, err := spawnApp(command, argv, maxprocs, info)
		return []compat.SpawnApp{a}, err
	})
}

//export abigo_Comm_spawn_multiple
func abigo_Comm_spawn_multiple(count C.int, commands **C.char, argvs ***C.char, maxprocs *C.int, infos *C.uintptr_t, root C.int, comm C.uintptr_t, out *C.uintptr_t, errcodes *C.int) C.int {
	nerr := 0
	atRoot := false
	if o, _ := lookupComm(comm); o != nil && int(root) == o.c.Rank() {
		atRoot = true
	}
	if atRoot && count > 0 && maxprocs != nil {
		for _, m := range unsafe.Slice(maxprocs, int(count)) {
			nerr += max(int(m), 0)
		}
	}
	return spawn("MPI_Comm_spawn_multiple", comm, root, out, errcodes, nerr, func() ([]compat.SpawnApp, error) {
		if count <= 0 {
			return nil, mpierr.Errorf(mpierr.ClassArg, "count %d (at least 1)", int(count))
		}
		if commands == nil || maxprocs == nil || infos == nil {
			return nil, mpierr.Errorf(mpierr.ClassArg, "array_of_commands, array_of_maxprocs or array_of_info is NULL")
		}
		n := int(count)
		cmds, mps, ifs := unsafe.Slice(commands, n), unsafe.Slice(maxprocs, n), unsafe.Slice(infos, n)
		var avs []**C.char
		if argvs != nil {
			avs = unsafe.Slice(argvs, n)
		}
		apps := make([]compat.SpawnApp, n)
		for i := range apps {
			var av **C.char
			if avs != nil {
				av = avs[i]
			}
			a, err := spawnApp(cmds[i], av, mps[i], ifs[i])
			if err != nil {
				return nil, err
			}
			apps[i] = a
		}
		return apps, nil
	})
}

func lookupComm(h C.uintptr_t) (*commObj, bool) {
	switch h {
	case 0x101:
		return env.world, env.world != nil
	case 0x102:
		return env.self, env.self != nil
	}
	o, ok := lookup(uintptr(h), C.ABI_KIND_COMM)
	if !ok {
		return nil, false
	}
	return o.val.(*commObj), true
}

// The parent intercommunicator: a handle made on the first
// MPI_Comm_get_parent; once the program frees or disconnects it,
// MPI_Comm_get_parent returns MPI_COMM_NULL.
var parent struct {
	sync.Mutex
	h    C.uintptr_t
	made bool
}

//export abigo_Comm_get_parent
func abigo_Comm_get_parent(out *C.uintptr_t) C.int {
	const call = "MPI_Comm_get_parent"
	if out == nil {
		return failCode(0, call, C.MPI_ERR_ARG, "parent is NULL")
	}
	if !envLive.Load() {
		return failCode(0, call, C.MPI_ERR_OTHER, "MPI is not initialized (or finalized)")
	}
	parent.Lock()
	defer parent.Unlock()
	*out = 0x100 // MPI_COMM_NULL
	p := env.e.Parent()
	if p == nil {
		return C.MPI_SUCCESS
	}
	if !parent.made {
		parent.made = true
		newComm(env.world, p, &parent.h)
	}
	if _, live := lookup(uintptr(parent.h), C.ABI_KIND_COMM); live {
		*out = parent.h
	}
	return C.MPI_SUCCESS
}
