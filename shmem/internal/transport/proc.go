package transport

import (
	"bytes"
	"os"
	"strconv"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A node's heartbeat table (beat.go) holds, after the counts, one record
// per PE, a cache line each: who the PE's process is, written by the PE
// itself when it maps the table, so that its peers judge its liveness by
// its process's state and not by its heartbeat alone.
const (
	recPid   = 0  // uint64: the process id, in the PE's pid namespace; 0 until written, noID when /proc cannot tell
	recStart = 8  // uint64: the process's start time (clock ticks after boot), against pid reuse
	recNS    = 16 // uint64: the inode of the PE's pid namespace
	recSize  = 64

	noID = ^uint64(0) // the record of a PE that started but knows no identity of its own
)

// recBase is the offset of the first record in a table for n PEs.
func recBase(n int) int { return (n*8 + recSize - 1) &^ (recSize - 1) }

func rec(table []byte, n, pe int) []byte {
	off := recBase(n) + pe*recSize
	return table[off : off+recSize : off+recSize]
}

// procID is a process's identity as /proc tells it: its pid, the start
// time that tells it from a later process given the same pid, and its pid
// namespace, within which alone the pid means that process.
type procID struct{ pid, start, ns uint64 }

// selfID returns this process's identity, or false when /proc cannot
// tell it (then peers judge this PE by its heartbeat alone).
func selfID() (procID, bool) {
	ns, ok := pidNS()
	if !ok {
		return procID{}, false
	}
	pid := os.Getpid()
	_, start, ok := procStat(pid)
	if !ok {
		return procID{}, false
	}
	return procID{pid: uint64(pid), start: start, ns: ns}, true
}

func pidNS() (uint64, bool) {
	var st unix.Stat_t
	if err := unix.Stat("/proc/self/ns/pid", &st); err != nil {
		return 0, false
	}
	return st.Ino, true
}

// publishID writes this PE's identity into its record (noID when known
// is false). The pid goes last: a reader that sees it sees the rest.
func publishID(r []byte, id procID, known bool) {
	if !known {
		atomic.StoreUint64(recWord(r, recPid), noID)
		return
	}
	atomic.StoreUint64(recWord(r, recStart), id.start)
	atomic.StoreUint64(recWord(r, recNS), id.ns)
	atomic.StoreUint64(recWord(r, recPid), id.pid)
}

func readID(r []byte) procID {
	pid := atomic.LoadUint64(recWord(r, recPid))
	return procID{pid: pid, start: atomic.LoadUint64(recWord(r, recStart)), ns: atomic.LoadUint64(recWord(r, recNS))}
}

func recWord(r []byte, off int) *uint64 { return (*uint64)(unsafe.Pointer(&r[off])) }

// procState is what a peer's process is doing, as far as liveness goes.
type procState int

const (
	procStarting procState = iota // no record yet: the PE joined its node and has not started beating
	procUnknown                   // no identity, another pid namespace, or /proc unreadable: judge by the heartbeat
	procAlive                     // running, waiting for a CPU, sleeping or in the kernel
	procStopped                   // stopped by a signal or a debugger
	procGone                      // exited (a zombie, or no such process, or another process now has its pid)
)

func (s procState) String() string {
	return [...]string{"starting", "unknown", "alive", "stopped", "gone"}[s]
}

// stateOf returns the state of the process id names, seen from a process
// whose pid namespace is ns.
func stateOf(id procID, ns uint64) procState {
	if id.pid == 0 {
		return procStarting
	}
	if id.ns != ns || id.pid > 1<<31 {
		return procUnknown
	}
	state, start, ok := procStat(int(id.pid))
	switch {
	case !ok:
		if err := unix.Kill(int(id.pid), 0); err == unix.ESRCH {
			return procGone
		}
		return procUnknown
	case start != id.start:
		return procGone
	}
	switch state {
	case 'T', 't':
		return procStopped
	case 'Z', 'X', 'x':
		return procGone
	}
	return procAlive
}

// procStat reads a process's state letter and start time from
// /proc/PID/stat (fields 3 and 22; the command name, field 2, may hold
// spaces and parentheses, so the fields are counted after its last ')').
func procStat(pid int) (byte, uint64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 20 || len(f[0]) != 1 {
		return 0, 0, false
	}
	start, err := strconv.ParseUint(string(f[19]), 10, 64)
	if err != nil {
		return 0, 0, false
	}
	return f[0][0], start, true
}
