package main

/*
#include "abi.h"
*/
import "C"

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// The name service of MPI_Publish_name, MPI_Lookup_name and
// MPI_Unpublish_name (MPI-4.1 11.4.4): one per machine and user, a
// directory only the user may enter ($XDG_RUNTIME_DIR/gshmem-names, else
// $TMPDIR/gshmem-<uid>/names), one file per service (its name in hex),
// holding the publisher's pid and the port name. A service is published
// by one process at a time (a second MPI_Publish_name of it is
// MPI_ERR_SERVICE, as is unpublishing one not published with that port);
// a service whose publisher has ended is no longer published. Info keys
// are accepted and ignored.

// namesDir returns the service directory, made if needed, after checking
// that it is the user's own and closed to others.
func namesDir() (string, error) {
	uid := os.Getuid()
	var mine []string // the directories that must be the user's, closed to others
	if r := os.Getenv("XDG_RUNTIME_DIR"); r != "" {
		mine = []string{filepath.Join(r, "gshmem-names")}
	} else {
		top := filepath.Join(os.TempDir(), fmt.Sprintf("gshmem-%d", uid))
		mine = []string{top, filepath.Join(top, "names")}
	}
	dir := mine[len(mine)-1]
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	for _, d := range mine {
		st, err := os.Lstat(d) // a symbolic link is not a directory here
		if err != nil {
			return "", err
		}
		sys, ok := st.Sys().(*syscall.Stat_t)
		if !st.IsDir() || !ok || int(sys.Uid) != uid || st.Mode().Perm()&0o077 != 0 {
			return "", fmt.Errorf("%s is not a directory of this user's closed to others", d)
		}
	}
	return dir, nil
}

// serviceFile is the file of service s.
func serviceFile(s string) (string, error) {
	dir, err := namesDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, hex.EncodeToString([]byte(s))), nil
}

// readService returns the port a live publisher published service s
// under, removing the entry of a publisher that has ended.
func readService(path string) (string, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	pidText, port, ok := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(pidText)
	if !ok || err != nil || pid <= 0 {
		return "", false
	}
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		os.Remove(path)
		return "", false
	}
	return port, true
}

func serviceArgs(call string, service, port *C.char, info C.uintptr_t) (string, string, C.int) {
	if service == nil || port == nil {
		return "", "", failCode(0, call, C.MPI_ERR_ARG, "service_name or port_name is NULL")
	}
	if _, ok := infoOf(info); !ok {
		return "", "", failCode(0, call, C.MPI_ERR_INFO, "not an info object")
	}
	return C.GoString(service), C.GoString(port), C.MPI_SUCCESS
}

//export abigo_Publish_name
func abigo_Publish_name(service *C.char, info C.uintptr_t, port *C.char) C.int {
	const call = "MPI_Publish_name"
	s, p, rc := serviceArgs(call, service, port, info)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if len(p) >= C.MPI_MAX_PORT_NAME {
		return failCode(0, call, C.MPI_ERR_ARG, "port name longer than MPI_MAX_PORT_NAME")
	}
	path, err := serviceFile(s)
	if err != nil {
		return failCode(0, call, C.MPI_ERR_SERVICE, "the name service: %v", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".new-")
	if err == nil {
		_, err = fmt.Fprintf(tmp, "%d\n%s", os.Getpid(), p)
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		defer os.Remove(tmp.Name())
	}
	if err != nil {
		return failCode(0, call, C.MPI_ERR_SERVICE, "the name service: %v", err)
	}
	// Link, unlike rename, fails when the service exists: publishing is
	// atomic and never replaces another process's entry.
	for try := 0; try < 2; try++ {
		if err = os.Link(tmp.Name(), path); err == nil {
			return C.MPI_SUCCESS
		}
		if _, live := readService(path); live || !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if errors.Is(err, fs.ErrExist) {
		return failCode(0, call, C.MPI_ERR_SERVICE, "service %q is published already", s)
	}
	return failCode(0, call, C.MPI_ERR_SERVICE, "the name service: %v", err)
}

//export abigo_Unpublish_name
func abigo_Unpublish_name(service *C.char, info C.uintptr_t, port *C.char) C.int {
	const call = "MPI_Unpublish_name"
	s, p, rc := serviceArgs(call, service, port, info)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	path, err := serviceFile(s)
	if err != nil {
		return failCode(0, call, C.MPI_ERR_SERVICE, "the name service: %v", err)
	}
	got, ok := readService(path)
	if !ok || got != p {
		return failCode(0, call, C.MPI_ERR_SERVICE, "service %q is not published with port %q", s, p)
	}
	if err := os.Remove(path); err != nil {
		return failCode(0, call, C.MPI_ERR_SERVICE, "the name service: %v", err)
	}
	return C.MPI_SUCCESS
}

//export abigo_Lookup_name
func abigo_Lookup_name(service *C.char, info C.uintptr_t, port *C.char) C.int {
	const call = "MPI_Lookup_name"
	if service == nil || port == nil {
		return failCode(0, call, C.MPI_ERR_ARG, "service_name or port_name is NULL")
	}
	if _, ok := infoOf(info); !ok {
		return failCode(0, call, C.MPI_ERR_INFO, "not an info object")
	}
	s := C.GoString(service)
	path, err := serviceFile(s)
	if err != nil {
		return failCode(0, call, C.MPI_ERR_NAME, "the name service: %v", err)
	}
	p, ok := readService(path)
	if !ok {
		return failCode(0, call, C.MPI_ERR_NAME, "service %q is not published", s)
	}
	putString(port, p, C.MPI_MAX_PORT_NAME)
	return C.MPI_SUCCESS
}
