package launcher

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/gshmem/gshmem/internal/placement"
)

// A keeper is the session that the PEs sharing a CPU run in together.
//
// A PE leads a session of its own (start), so that where the kernel groups
// tasks by session (autogroup) it gets a group's share of its CPU beside
// other sessions' busy processes. PEs that outnumber the CPUs are pinned
// round-robin (placement), and two PEs on one CPU hand it to each other
// with sched_yield, which gives the CPU up only within the yielding task's
// own group: in sessions of their own, the partner runs when the
// scheduler next picks between the groups (a crowded 4-PE barrier on 2
// CPUs varied 1.8-3.0 us over five runs), in one session at once
// (1.5-1.6). Hydra gets the same from its pmi_proxy, whose ranks share its
// session. Such a yield does give the CPU away, for the partner's slice,
// which is why the waits make it a raw system call (doorbell's yieldOS).
//
// A session is inherited from the process that forks, and only a process
// in it can fork into it, so the launcher starts one keeper per shared CPU
// in a new session: a copy of the running binary (/proc/self/exe, taken
// over in init) that forks that CPU's PEs into its session with
// CLONE_PARENT, which makes them the launcher's children all the same:
// the launcher waits for them, signals them and names them as it does any
// PE. The keeper then stays, blocked on a pipe from the launcher, until
// the job ends, and kills what is left of its PEs if the launcher dies
// first: a PE forked with CLONE_PARENT cannot have the Pdeathsig a PE
// started by the launcher has (Go checks the parent's pid after setting
// it, and the parent is not the keeper).

// keeperVar makes a binary that links this package act as a keeper.
const keeperVar = "GSHMEM_LAUNCHER_KEEPER"

// keeperFD is the first descriptor the keeper gets: its spec (read end of
// a pipe the launcher holds open for the job), its report (write end),
// then every PE's stdout and stderr.
const keeperFD = 3

// keeperTimeout bounds the wait for a keeper's report.
var keeperTimeout = 30 * time.Second

// keeperSpec is what the launcher asks of a keeper.
type keeperSpec struct {
	Path string
	Argv []string
	Envs [][]string // one per PE, in start order
}

// keeperReport is the keeper's answer: the pids of the PEs it started, in
// order, up to the first that failed to start, and that failure.
type keeperReport struct {
	Pids  []int
	Err   string
	Errno int
}

func init() {
	if os.Getenv(keeperVar) == "1" {
		os.Exit(keepMain())
	}
}

// keepMain is the keeper's life.
func keepMain() int {
	_ = unix.Prctl(unix.PR_SET_NAME, uintptr(unsafe.Pointer(&[]byte("gshmem-keeper\x00")[0])), 0, 0, 0) // for ps and top, not "exe"
	spec, report := os.NewFile(keeperFD, "spec"), os.NewFile(keeperFD+1, "report")
	var s keeperSpec
	rep := keeperReport{}
	var pidfds []int
	if err := json.NewDecoder(io.LimitReader(spec, 64<<20)).Decode(&s); err != nil {
		// Not started by a launcher, most likely: the variable leaked.
		fmt.Fprintf(os.Stderr, "gshmem-keeper: %s is for gshmem run's own use (reading the launcher's request: %v)\n", keeperVar, err)
		rep.Err = fmt.Sprintf("reading the launcher's request: %v", err)
	} else {
		pidfds, rep = keepStart(s)
	}
	err := json.NewEncoder(report).Encode(rep)
	report.Close()
	if s.Path == "" {
		return 2
	}
	if err == nil {
		// Until the job ends, or the launcher dies (or it never heard of
		// these PEs).
		_, _ = io.Copy(io.Discard, spec)
	}
	for _, fd := range pidfds {
		// A PE reaped already is gone from its pidfd: ESRCH, nothing killed.
		_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
	}
	return 0
}

// keepStart forks s's PEs into the keeper's session as its parent's
// children, each in a process group of its own as start makes them.
func keepStart(s keeperSpec) (pidfds []int, rep keeperReport) {
	// The descriptors came through exec without close-on-exec: a PE must
	// get only its own.
	for fd := keeperFD; fd < keeperFD+2+2*len(s.Envs); fd++ {
		unix.CloseOnExec(fd)
	}
	defer func() {
		for fd := keeperFD + 2; fd < keeperFD+2+2*len(s.Envs); fd++ {
			unix.Close(fd)
		}
	}()
	null, err := os.Open(os.DevNull)
	if err != nil {
		rep.Err = err.Error()
		return nil, rep
	}
	defer null.Close()
	for k, env := range s.Envs {
		out := uintptr(keeperFD + 2 + 2*k)
		pidfd := -1
		attr := &syscall.ProcAttr{
			Env:   env,
			Files: []uintptr{null.Fd(), out, out + 1},
			Sys:   &syscall.SysProcAttr{Setpgid: true, Cloneflags: syscall.CLONE_PARENT, PidFD: &pidfd},
		}
		pid, err := syscall.ForkExec(s.Path, s.Argv, attr)
		if err != nil {
			rep.Err = err.Error()
			var errno syscall.Errno
			if errors.As(err, &errno) {
				rep.Errno = int(errno)
			}
			return pidfds, rep
		}
		rep.Pids = append(rep.Pids, pid)
		if pidfd >= 0 {
			pidfds = append(pidfds, pidfd)
		}
	}
	return pidfds, rep
}

// keeper is the launcher's end of one.
type keeper struct {
	cmd    *exec.Cmd
	hold   *os.File // the spec pipe's write end: closing it ends the keeper
	exited chan struct{}
}

// sharedCPUs returns the ranks that will share a CPU (placement.Shared
// under the job's GSHMEM_BIND and the launcher's CPUs), nil when none do
// or the CPUs cannot be read (the PEs then lead sessions of their own).
func (j *job) sharedCPUs() [][]int {
	mode := placement.DefaultMode
	for _, kv := range j.baseEnv {
		if v, ok := strings.CutPrefix(kv, "GSHMEM_BIND="); ok && v != "" {
			mode = v
		}
	}
	allowed, err := placement.Allowed()
	if err != nil {
		return nil
	}
	return placement.Shared(mode, allowed, j.cfg.N)
}

// startShared starts ranks, which will share a CPU, in a keeper's session.
func (j *job) startShared(ranks []int) error {
	var cs []*child
	var err error
	for _, i := range ranks {
		var c *child
		if c, err = j.prepare(i); err != nil {
			break
		}
		cs = append(cs, c)
	}
	if err == nil {
		err = j.keep(cs)
	}
	return j.launched(cs, err)
}

// keep starts a keeper for cs and takes its PEs as children.
func (j *job) keep(cs []*child) error {
	specR, specW, err := os.Pipe()
	if err != nil {
		return err
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		specR.Close()
		specW.Close()
		return err
	}
	defer repR.Close()
	cmd := exec.Command("/proc/self/exe")
	cmd.Args[0] = "gshmem-keeper"
	cmd.Env = append(os.Environ(), keeperVar+"=1")
	cmd.ExtraFiles = []*os.File{specR, repW}
	s := keeperSpec{Path: j.path, Argv: append([]string{j.argv0}, j.cfg.Argv[1:]...)}
	for _, c := range cs {
		cmd.ExtraFiles = append(cmd.ExtraFiles, c.stdout, c.stderr)
		s.Envs = append(s.Envs, j.peEnv(c.rank))
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	specR.Close()
	repW.Close()
	if err != nil {
		specW.Close()
		return fmt.Errorf("starting a keeper of PEs %v: %w", ranks(cs), err)
	}
	k := &keeper{cmd: cmd, hold: specW, exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(k.exited)
	}()
	j.keepers = append(j.keepers, k)
	var rep keeperReport
	if err = json.NewEncoder(specW).Encode(s); err == nil {
		_ = repR.SetReadDeadline(time.Now().Add(keeperTimeout))
		err = json.NewDecoder(io.LimitReader(repR, 1<<20)).Decode(&rep)
	}
	if err != nil {
		return fmt.Errorf("the keeper of PEs %v (pid %d) did not answer: %w", ranks(cs), cmd.Process.Pid, err)
	}
	for n, pid := range rep.Pids {
		if n >= len(cs) {
			break
		}
		// The PE is this process's child (CLONE_PARENT) and cannot be
		// reaped by anyone else, so its pid stays its own until Wait.
		p, err := os.FindProcess(pid)
		if err != nil {
			return fmt.Errorf("PE %d (pid %d): %w", cs[n].rank, pid, err)
		}
		cs[n].proc = p
	}
	if rep.Err != "" {
		err = errors.New(rep.Err)
		if rep.Errno != 0 {
			err = &os.PathError{Op: "fork/exec", Path: j.path, Err: syscall.Errno(rep.Errno)}
		}
		return fmt.Errorf("starting PE %d: %w", cs[min(len(rep.Pids), len(cs)-1)].rank, err)
	}
	return nil
}

// releaseKeepers ends the keepers once the job is over, waiting a
// bounded time for each.
func (j *job) releaseKeepers() {
	for _, k := range j.keepers {
		k.hold.Close()
	}
	for _, k := range j.keepers {
		select {
		case <-k.exited:
		case <-time.After(2 * time.Second):
			_ = k.cmd.Process.Kill()
			<-k.exited
		}
	}
}

func ranks(cs []*child) []int {
	r := make([]int, len(cs))
	for i, c := range cs {
		r[i] = c.rank
	}
	return r
}
