package main

/*
#include "abi.h"
*/
import "C"

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"unsafe"

	"github.com/gshmem/gshmem/compat"
)

// MPI_Info_create_env and MPI_INFO_ENV (MPI-4.1 §11.2.5): how the
// process was started, in the keys the standard reserves. command and
// argv come from MPI_Info_create_env's argc and argv (or, without them,
// the process's own command line), maxprocs is the number of processes
// of the job, host, arch and wdir where this process runs, and
// thread_level the level MPI_Init_thread gave (MPI_THREAD_SINGLE before).
// soft and file are not known here and are left out, as the standard
// allows for keys without a value.

// envInfo is the environment's info for the command line args.
func envInfo(args []string) compat.Info {
	i := compat.Info{}
	if len(args) > 0 {
		i["command"] = args[0]
		if len(args) > 1 {
			i["argv"] = strings.Join(args[1:], " ")
		}
	}
	i["maxprocs"] = strconv.Itoa(jobSize())
	if h, err := os.Hostname(); err == nil {
		i["host"] = h
	}
	i["arch"] = map[string]string{"amd64": "x86_64", "arm64": "aarch64", "386": "i686"}[runtime.GOARCH]
	if i["arch"] == "" {
		i["arch"] = runtime.GOARCH
	}
	if d, err := os.Getwd(); err == nil {
		i["wdir"] = d
	}
	i["thread_level"] = levelName(C.int(global.ThreadLevel))
	if global.Initialized == 0 {
		i["thread_level"] = "MPI_THREAD_SINGLE"
	}
	return i
}

// jobSize is the number of processes of the job: the world's once MPI is
// up, else what the launcher's variables say (1 for a singleton).
func jobSize() int {
	if envLive.Load() && env.e != nil {
		return env.e.CommWorld().Size()
	}
	for _, k := range []string{"GSHMEM_NPES", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"} {
		if n, err := strconv.Atoi(os.Getenv(k)); err == nil && n > 0 {
			return n
		}
	}
	return 1
}

// cmdline is the process's command line (a c-shared library's os.Args is
// empty).
func cmdline() []string {
	b, err := os.ReadFile("/proc/self/cmdline")
	if err != nil || len(b) == 0 {
		return os.Args
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}

// fillInfoEnv gives MPI_INFO_ENV its keys (at bring-up).
func fillInfoEnv() {
	o, ok := lookup(0x131, C.ABI_KIND_INFO)
	if !ok {
		return
	}
	m := o.val.(compat.Info)
	for k, v := range envInfo(cmdline()) {
		m[k] = v
	}
}

//export abigo_Info_create_env
func abigo_Info_create_env(argc C.int, argv **C.char, info *C.uintptr_t) C.int {
	const call = "MPI_Info_create_env"
	if info == nil || argc < 0 {
		return failCode(0, call, C.MPI_ERR_ARG, "info is NULL or argc is negative")
	}
	args := cmdline()
	if argc > 0 && argv != nil {
		args = make([]string, 0, argc)
		for _, p := range unsafe.Slice(argv, int(argc)) {
			if p != nil {
				args = append(args, C.GoString(p))
			}
		}
	}
	*info = C.uintptr_t(newInfo(envInfo(args)))
	return C.MPI_SUCCESS
}
