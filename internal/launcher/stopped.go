package launcher

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// A PE stopped by SIGSTOP (or a debugger, or a terminal's job control)
// neither exits nor answers: its peers fail with ErrPeerLost after the
// peer timeout, and exit first. The launcher then names the stopped PE as
// the cause, and continues it after the SIGTERM (stop) so that it ends
// now, not at the SIGKILL after KillGrace. An interrupt the launcher
// passes on is made to reach a stopped PE the same way (interrupt).

// stoppedPEs returns the PEs not yet reaped that are stopped.
func (j *job) stoppedPEs() []*child {
	var cs []*child
	for _, c := range j.children {
		if c != nil && !c.exited && isStopped(c.proc.Pid) {
			cs = append(cs, c)
		}
	}
	return cs
}

// nameStopped logs the stopped PEs, if any, as what made the others fail.
func (j *job) nameStopped() {
	for _, c := range j.stoppedPEs() {
		j.log("PE %d (pid %d) is stopped (SIGSTOP, a debugger or job control): the other PEs failed waiting for it", c.rank, c.proc.Pid)
	}
}

// continueStopped lets the stopped PEs take the signal just sent.
func continueStopped(cs []*child) {
	for _, c := range cs {
		syscall.Kill(-c.proc.Pid, syscall.SIGCONT)
	}
}

func isStopped(pid int) bool {
	st := procState(pid)
	return st == 'T' || st == 't'
}

// procState is pid's state letter in /proc (R, S, T, Z, ...), 0 when it
// is gone.
func procState(pid int) byte {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) == 0 {
		return 0
	}
	return f[0][0]
}
