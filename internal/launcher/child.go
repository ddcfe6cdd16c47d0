package launcher

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/gshmem/gshmem/internal/launchwire"
)

// child is one PE process.
type child struct {
	rank           int
	proc           *os.Process // nil until started
	stdout, stderr *os.File    // what the PE gets as its output
	drains         []*drain
	pipes          []*os.File // the parent's copies of the write ends, closed after start
	exited         bool       // set by the event loop only
}

// exitEvent reports a reaped PE, after its output was drained and its
// bootstrap connection (if any) was read to the end.
type exitEvent struct {
	rank  int
	state *os.ProcessState
	err   error // from Wait, when it failed for a reason other than the exit status
	noBye bool  // it joined the bootstrap and left without saying goodbye
}

// connGrace bounds the wait for a dead PE's connection to reach EOF; the
// kernel closes it at exit, unless the PE passed it on to another process.
var connGrace = time.Second

// childEnv returns base without any of the variables gshmem run sets, so
// that a stale or outer job's values cannot leak into this job.
func childEnv(base []string) []string {
	owned := []string{
		launchwire.EnvBootstrap, launchwire.EnvLocalAddr, launchwire.EnvJobID, launchwire.EnvJobSecret,
		launchwire.EnvRank, launchwire.EnvNPEs, launchwire.EnvLocalRank, launchwire.EnvLocalSize,
		keeperVar,
	}
	return slices.DeleteFunc(slices.Clone(base), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return slices.Contains(owned, k)
	})
}

// start launches rank i. The child gets its own session (and so its own
// process group) so that signals reach it (and anything it starts) only
// through the launcher, and dies with the launcher's thread (Run pins that
// thread for the job). A session of its own also makes it a scheduling
// group of its own where the kernel groups tasks by session (autogroup,
// on by default in Debian's kernels), as Hydra's ranks are: with 3 busy
// loops per CPU started from the user's shell, a PE in that shell's
// session got a quarter of its CPU and Send/Recv took 1.2-2.1 us, where
// MPICH's ranks got half and took 0.8-1.4. PEs that will share a CPU
// share a session instead (startShared: keeper.go says why).
func (j *job) start(i int) error {
	c, err := j.prepare(i)
	if err != nil {
		return err
	}
	cmd := exec.Command(j.path, j.cfg.Argv[1:]...)
	cmd.Args[0] = j.argv0
	cmd.Env = j.peEnv(i)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Stdout, cmd.Stderr = c.stdout, c.stderr
	if err = cmd.Start(); err != nil {
		err = fmt.Errorf("starting PE %d: %w", i, err)
	} else {
		c.proc = cmd.Process
	}
	return j.launched([]*child{c}, err)
}

// peEnv is rank i's environment.
func (j *job) peEnv(i int) []string {
	e := j.env
	e.Rank, e.LocalRank = i, i
	return append(slices.Clone(j.baseEnv), e.Vars()...)
}

// prepare makes rank i's child and its output streams.
func (j *job) prepare(i int) (*child, error) {
	c := &child{rank: i}
	var err error
	if c.stdout, err = c.stream(j.cfg.Stdout, j.stdout, j.cfg.TagOutput); err == nil {
		c.stderr, err = c.stream(j.cfg.Stderr, j.stderr, j.cfg.TagOutput)
	}
	if err != nil {
		c.abandon()
		return nil, fmt.Errorf("starting PE %d: %w", i, err)
	}
	return c, nil
}

// launched takes the children of cs that started into the job and
// abandons the others; err is why they did not all start.
func (j *job) launched(cs []*child, err error) error {
	for _, c := range cs {
		if c.proc == nil {
			c.abandon()
			continue
		}
		// The child holds its own copies of the write ends now; ours
		// would keep the drains from seeing EOF.
		for _, f := range c.pipes {
			f.Close()
		}
		j.children[c.rank] = c
		j.live++
		go j.reap(c)
	}
	return err
}

// abandon ends the output of a child that did not start.
func (c *child) abandon() {
	for _, f := range c.pipes {
		f.Close()
	}
	for _, d := range c.drains {
		d.finish(time.Now())
	}
}

// stream returns the file to give the child for one output stream. An
// untagged file needs no copying, and stays a terminal if it is one; other
// destinations get a pipe and a drain that writes through locked.
func (c *child) stream(raw, locked io.Writer, tag bool) (*os.File, error) {
	if f, ok := raw.(*os.File); ok && !tag {
		return f, nil
	}
	var prefix []byte
	if tag {
		prefix = fmt.Appendf(nil, "[pe %d] ", c.rank)
	}
	w, d, err := startDrain(locked, prefix)
	if err != nil {
		return nil, err
	}
	c.pipes = append(c.pipes, w)
	c.drains = append(c.drains, d)
	return w, nil
}

func (j *job) reap(c *child) {
	state, err := c.proc.Wait()
	exited := time.Now()
	for _, d := range c.drains {
		d.finish(exited)
	}
	ev := exitEvent{rank: c.rank, state: state, err: err}
	if p := j.srv.peer(c.rank); p != nil {
		select {
		case <-p.done:
		case <-time.After(connGrace):
		}
		ev.noBye = !p.bye.Load()
	}
	j.exits <- ev
}

// failure says whether ev ends the job, with the exit code it gives the job
// and the words for the log.
func (c *child) failure(ev exitEvent) (code int, what string, failed bool) {
	who := fmt.Sprintf("PE %d (pid %d)", c.rank, c.proc.Pid)
	if ev.state == nil {
		return 1, fmt.Sprintf("%s could not be waited for: %v", who, ev.err), true
	}
	ws, _ := ev.state.Sys().(syscall.WaitStatus)
	switch {
	case ws.Signaled():
		return 128 + int(ws.Signal()), fmt.Sprintf("%s was killed by signal: %v", who, ws.Signal()), true
	case ws.ExitStatus() != 0:
		return ws.ExitStatus(), fmt.Sprintf("%s exited with status %d", who, ws.ExitStatus()), true
	case ev.err != nil:
		return 1, fmt.Sprintf("%s: %v", who, ev.err), true
	case ev.noBye:
		// The others may be waiting for it in a collective that can now
		// never complete; ending the job beats a bootstrap timeout.
		return 1, fmt.Sprintf("%s exited with status 0 without finalizing gshmem (its bootstrap connection closed without a goodbye)", who), true
	}
	return 0, "", false
}

// buildPackage handles Argv[0] naming a directory of Go files the way go run
// would: it builds it into a directory of the user's cache (newBuildDir).
// prog is what to execute; cleanup removes the build.
func buildPackage(ctx context.Context, argv0 string, env []string, stderr io.Writer) (prog string, cleanup func(), err error) {
	cleanup = func() {}
	if !strings.ContainsRune(argv0, os.PathSeparator) {
		// A bare name is a command from PATH, as with exec, unless only
		// a package directory of that name exists.
		if _, err := exec.LookPath(argv0); err == nil {
			return argv0, cleanup, nil
		}
	}
	fi, err := os.Stat(argv0)
	if err != nil || !fi.IsDir() {
		return argv0, cleanup, nil
	}
	dir, err := filepath.Abs(argv0)
	if err != nil {
		return "", cleanup, err
	}
	if gofiles, _ := filepath.Glob(filepath.Join(dir, "*.go")); len(gofiles) == 0 {
		return "", cleanup, fmt.Errorf("%s is a directory without .go files, not a program", argv0)
	}
	gocmd, err := exec.LookPath("go")
	if err != nil {
		return "", cleanup, fmt.Errorf("%s is a Go package directory, and building it needs the go command: %w", argv0, err)
	}
	tmp, cleanup, err := newBuildDir()
	if err != nil {
		return "", func() {}, err
	}
	prog = filepath.Join(tmp, filepath.Base(dir))
	// Building "." from inside the directory lets go find the directory's
	// own module, whatever the launcher's working directory is.
	build := exec.CommandContext(ctx, gocmd, "build", "-o", prog, ".")
	build.Dir = dir
	build.Env = env
	build.Stdout, build.Stderr = stderr, stderr
	if err := build.Run(); err != nil {
		cleanup()
		return "", func() {}, fmt.Errorf("building %s: %w", argv0, err)
	}
	return prog, cleanup, nil
}
