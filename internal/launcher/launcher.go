// Package launcher is gshmem run: it starts the PEs of a job as local
// processes (each in a session of its own, or, for the PEs that will share
// a CPU, in one session per CPU: keeper.go), serves their "local"
// bootstrap over an abstract unix socket, forwards signals, and ends the
// whole job as soon as one PE fails. The
// wire protocol and the client that the PEs use are in internal/launchwire,
// which the core may import; nothing under shmem imports this package.
package launcher

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/gshmem/gshmem/internal/launchwire"
)

// Config describes one gshmem run job.
type Config struct {
	N    int      // number of PEs, at least 1
	Argv []string // program and arguments; the program is a command (looked up in PATH) or a Go package directory
	Env  []string // base environment of the PEs; nil means os.Environ()

	// TagOutput prefixes every line of a PE's output with "[pe N] ".
	TagOutput bool

	Stdout, Stderr io.Writer // nil means os.Stdout, os.Stderr
	// KillGrace is the time between SIGTERM and SIGKILL when stopping PEs;
	// zero means 2s.
	KillGrace time.Duration
	// Log receives the launcher's own messages; nil means Stderr.
	Log io.Writer
	// KeepGoing leaves the other PEs running when a PE fails (gshmem run
	// --disable-auto-cleanup, as MPICH's mpiexec): for fault-tolerant
	// programs whose survivors go on without the lost PE (compat's
	// Shrink, MPIX_Comm_shrink). Each failure is logged once; the job's
	// exit code is the first failure's unless a PE calls global exit
	// after it (Run's rules). PEs left stopped once every other PE has
	// exited are killed (keptStopped).
	KeepGoing bool
}

// ErrConfig marks a job refused before anything was started.
var ErrConfig = errors.New("job refused")

// forwarded are the signals that the launcher passes on to every PE rather
// than acting on: the PEs decide what an interrupt means, and their exit is
// what ends the job.
var forwarded = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2}

// job is the state of one Run; only the Run goroutine touches it, except
// for the channels.
type job struct {
	cfg            Config
	stdout, stderr io.Writer // cfg's, behind one shared lock
	log            func(format string, args ...any)
	path           string         // resolved program
	argv0          string         // the PEs' os.Args[0]: as given, or the binary built from a package
	env            launchwire.Env // rank fields filled in per PE
	baseEnv        []string
	srv            *Server
	exits          chan exitEvent

	children []*child // by rank; nil for a PE not started
	keepers  []*keeper
	live     int
	stopping bool
	code     int
	err      error
	kill     <-chan time.Time

	// A PE that exited with a failure status may have failed because
	// another PE died (a survivor reporting ErrPeerLost exits within
	// milliseconds of its peer's death, and the two exits reach the
	// launcher in either order): the launcher holds such a failure for
	// decideGrace and names a PE killed by a signal meanwhile instead.
	pending *failure
	decide  <-chan time.Time

	// stoppedCheck, under KeepGoing once a PE has exited, fires
	// keptStopped; allStopped is what its last check found.
	stoppedCheck <-chan time.Time
	allStopped   bool

	// The bootstrap's completion: from the first PE's join, every PE has
	// joinDeadline(joinTimeout) to join too (checkJoined).
	joinTimeout time.Duration
	joinCheck   <-chan time.Time

	// interrupted is the interrupt (SIGINT, SIGTERM, SIGHUP) the launcher
	// received and passed on, 0 if none: PE failures after it are the
	// interrupt's doing and reported as such.
	interrupted syscall.Signal

	// ending is the signal the launcher sent to end the PEs (SIGTERM, or
	// the interrupt it passed on), 0 before: a PE's death by it is the
	// launcher's doing, a death by another signal is still named.
	// killed is set once the SIGKILL after the grace has gone out.
	ending syscall.Signal
	killed bool

	// exited is set by the first global exit: its code is the job's, and
	// later ones (the other PEs' part in the same exit) change nothing.
	exited bool
}

type failure struct {
	code int
	what string
}

// decideGrace is how long an exit-status failure waits for a signal death
// to name instead.
const decideGrace = 250 * time.Millisecond

// Run runs cfg.N copies of the program and returns the job's exit code,
// by these rules, in order:
//
//   - a PE called global exit (MPI_Abort, shmem_global_exit,
//     World.GlobalExit) with a non-zero code: the first such code, even
//     after a PE was lost or while the job was being stopped (what the
//     PEs asked for is what MPI_Abort returns to the environment); a
//     global exit with 0 gives 0 unless a PE had already failed;
//   - the job was interrupted (SIGINT, SIGTERM, SIGHUP passed on to the
//     PEs): 128+that signal when the PEs died of it or of the SIGKILL
//     after the grace, else the status the first failing PE exited with;
//   - a PE failed: the first failure's code (its exit status, or
//     128+signal; a death by a signal is named over an exit-status
//     failure that came just before it, decideGrace);
//   - the launcher's own: 124 when the PEs did not all join within
//     GSHMEM_BOOTSTRAP_TIMEOUT, 127 for a program that is not there, 126
//     for one that cannot be executed, 1 for any other refusal;
//   - else 0.
//
// err is set when the job could not be run as asked, or ctx ended it.
func Run(ctx context.Context, cfg Config) (exitCode int, err error) {
	if cfg.N < 1 {
		return 1, fmt.Errorf("gshmem run: need at least 1 PE, got %d", cfg.N)
	}
	if len(cfg.Argv) == 0 || cfg.Argv[0] == "" {
		return 1, errors.New("gshmem run: no program given")
	}
	if cfg.Env == nil {
		cfg.Env = os.Environ()
	}
	if err := checkBootstrapVar(cfg.Env); err != nil {
		return 1, fmt.Errorf("gshmem run: %w", err)
	}
	if cfg.Stdout == nil {
		cfg.Stdout = os.Stdout
	}
	if cfg.Stderr == nil {
		cfg.Stderr = os.Stderr
	}
	if cfg.Log == nil {
		cfg.Log = cfg.Stderr
	}
	if cfg.KillGrace <= 0 {
		cfg.KillGrace = 2 * time.Second
	}
	mu := new(sync.Mutex)
	logw := lockedWriter{mu, cfg.Log}
	j := &job{
		cfg:     cfg,
		stdout:  lockedWriter{mu, cfg.Stdout},
		stderr:  lockedWriter{mu, cfg.Stderr},
		baseEnv: childEnv(cfg.Env),
		exits:   make(chan exitEvent, cfg.N),
		log: func(format string, args ...any) {
			fmt.Fprintf(logw, "gshmem run: "+format+"\n", args...)
		},
	}

	prog, cleanup, err := buildPackage(ctx, cfg.Argv[0], j.baseEnv, j.stderr)
	defer cleanup()
	if err != nil {
		return 1, fmt.Errorf("gshmem run: %w", err)
	}
	j.argv0 = prog
	if j.path, err = exec.LookPath(prog); err != nil {
		return startFailureCode(err), fmt.Errorf("gshmem run: %w", err)
	}

	id, secret := make([]byte, 8), make([]byte, 32)
	rand.Read(id)
	rand.Read(secret)
	j.env = launchwire.Env{JobID: hex.EncodeToString(id), Secret: secret, NPEs: cfg.N, LocalSize: cfg.N}
	// Abstract namespace: no file to clean up, even after SIGKILL.
	j.env.Addr = "@gshmem-" + j.env.JobID
	ln, err := net.Listen("unix", j.env.Addr)
	if err != nil {
		return 1, fmt.Errorf("gshmem run: listening for PEs: %w", err)
	}
	j.srv = NewServer(ln, cfg.N, secret, j.log)
	j.joinTimeout = bootstrapTimeout(cfg.Env)
	go j.srv.Serve()
	defer j.srv.Close()

	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, forwarded...)
	defer signal.Stop(sigs)

	// Pdeathsig fires when the thread that forked a PE exits; pinning this
	// goroutine keeps that thread alive until the job is over.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	j.children = make([]*child, cfg.N)
	defer j.releaseKeepers()
	group := map[int][]int{} // the ranks that share each rank's CPU, for those that do
	for _, g := range j.sharedCPUs() {
		for _, r := range g {
			group[r] = g
		}
	}
	for i := range cfg.N {
		var err error
		if g := group[i]; g == nil {
			err = j.start(i)
		} else if g[0] == i {
			err = j.startShared(g)
		}
		if err != nil {
			code := startFailureCode(err)
			if j.live > 0 {
				j.log("%v; stopping the %s already started", err, pes(j.live))
			}
			j.stop(code, fmt.Errorf("gshmem run: %w", err))
			break
		}
	}
	j.loop(ctx, sigs)
	return j.code, j.err
}

// startFailureCode follows the shells: 127 for a program that is not
// there, 126 for one that cannot be executed.
func startFailureCode(err error) int {
	switch {
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, os.ErrNotExist):
		return 127
	case errors.Is(err, os.ErrPermission), errors.Is(err, syscall.ENOEXEC):
		return 126
	}
	return 1
}

// loop runs until every PE has been reaped.
func (j *job) loop(ctx context.Context, sigs <-chan os.Signal) {
	done := ctx.Done()
	first := j.srv.FirstJoin()
	for j.live > 0 {
		select {
		case <-first:
			first = nil
			j.joinCheck = time.After(joinDeadline(j.joinTimeout))
		case <-j.joinCheck:
			j.joinCheck = nil
			j.checkJoined()
		case ev := <-j.exits:
			// An abort sent just before exiting must win over the exit
			// itself, and select alone would not order the two.
			j.takeAborts()
			c := j.children[ev.rank]
			c.exited = true
			j.live--
			code, what, failed := c.failure(ev)
			switch {
			case !failed:
			case j.stopping:
				j.failedWhileStopping(ev, code, what)
			case j.cfg.KeepGoing && j.interrupted == 0:
				j.keepGoing(code, what)
			case j.interrupted != 0:
				// The user interrupted the job: the PE ended because of
				// the signal passed on to it, not on its own.
				j.pending = nil
				if signaled(ev) {
					code = 128 + int(j.interrupted)
				}
				j.log("job interrupted by %s (passed on to every PE)%s", sigName(j.interrupted), j.stoppingOthers())
				j.stop(code, nil)
			case signaled(ev):
				j.pending = nil
				j.log("%s%s", what, j.stoppingOthers())
				j.stop(code, nil)
			case j.pending == nil:
				j.pending = &failure{code, what}
				j.decide = time.After(decideGrace)
			}
			if j.cfg.KeepGoing && j.live > 0 && j.stoppedCheck == nil {
				j.stoppedCheck = time.After(stoppedCheckEvery)
			}
			if j.live == 0 {
				j.settle()
			}
		case <-j.decide:
			j.settle()
		case a := <-j.srv.Aborts():
			j.abort(a)
		case sig := <-sigs:
			s := sig.(syscall.Signal)
			if s == syscall.SIGINT || s == syscall.SIGTERM || s == syscall.SIGHUP {
				j.interrupt(s)
			} else {
				j.signal(s)
			}
		case <-done:
			done = nil
			if !j.stopping {
				j.log("%v; stopping %s", ctx.Err(), pes(j.live))
				j.stop(1, fmt.Errorf("gshmem run: %w", ctx.Err()))
			}
		case <-j.kill:
			j.kill = nil
			j.killRest()
		case <-j.stoppedCheck:
			j.stoppedCheck = nil
			j.keptStopped()
		}
	}
}

// keepGoing records a PE's failure under KeepGoing: logged, the job's code
// if it is the first, and the others left running.
func (j *job) keepGoing(code int, what string) {
	if j.code != 0 {
		j.log("%s", what) // a survivor's own failure, or a later loss
		return
	}
	j.code = code
	switch j.live {
	case 0:
		j.log("%s", what)
	case 1:
		j.log("%s; the other PE goes on (--disable-auto-cleanup)", what)
	default:
		j.log("%s; the other %d PEs go on (--disable-auto-cleanup)", what, j.live)
	}
}

// stoppedCheckEvery is how often a KeepGoing job some of whose PEs have
// exited looks for PEs that only a stop keeps alive.
const stoppedCheckEvery = time.Second

// keptStopped ends a KeepGoing job whose PEs that are not yet reaped have
// all been stopped (SIGSTOP, a debugger) at two checks in a row: the
// survivors, which went on without them, have exited, and nothing would
// end the job otherwise.
func (j *job) keptStopped() {
	if j.stopping || j.live == 0 {
		return
	}
	cs := j.stoppedPEs()
	all := len(cs) == j.live
	if !all || !j.allStopped {
		j.allStopped = all
		j.stoppedCheck = time.After(stoppedCheckEvery)
		return
	}
	for _, c := range cs {
		j.log("PE %d (pid %d) is stopped and every other PE has exited; killing it", c.rank, c.proc.Pid)
	}
	code := j.code
	if code == 0 {
		code = 128 + int(syscall.SIGKILL)
	}
	j.stop(code, nil)
	j.killed = true
	j.signal(syscall.SIGKILL)
}

// checkJoined ends a job whose PEs have not all joined the bootstrap by
// the deadline, with one line for the job: the PEs that joined would each
// report their own timeout otherwise (a job too large for the node printed
// hundreds of identical lines). A program that never joins (not a gshmem
// program) is never judged: the clock starts at the first join.
func (j *job) checkJoined() {
	joined := j.srv.Joined()
	if j.stopping || joined >= j.cfg.N {
		return
	}
	j.log("only %d of %d PEs joined the job within GSHMEM_BOOTSTRAP_TIMEOUT=%v of the first; stopping the job (too many PEs for this node? lower -n, or raise GSHMEM_BOOTSTRAP_TIMEOUT)",
		joined, j.cfg.N, j.joinTimeout)
	j.stop(exitTimeout, nil)
}

// settle ends the job for the pending failure, if any.
func (j *job) settle() {
	j.decide = nil
	if f := j.pending; f != nil && !j.stopping {
		j.pending = nil
		j.nameStopped()
		j.log("%s%s", f.what, j.stoppingOthers())
		j.stop(f.code, nil) // which continues the stopped PEs
	}
}

// sigName names an interrupt as a user knows it.
func sigName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT (Ctrl-C)"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return s.String()
}

func signaled(ev exitEvent) bool {
	if ev.state == nil {
		return false
	}
	ws, ok := ev.state.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled()
}

func (j *job) takeAborts() {
	for {
		select {
		case a := <-j.srv.Aborts():
			j.abort(a)
		default:
			return
		}
	}
}

// abort takes a PE's global exit: the first one's code is the job's
// (Run's rules), said once, whether the job was still running, going on
// without a lost PE, or already being stopped.
func (j *job) abort(a AbortEvent) {
	if j.exited {
		return
	}
	j.exited = true
	code := a.Code
	if code == 0 && j.code != 0 {
		code = j.code // a zero exit does not make a failed job succeed
	}
	switch {
	case a.Msg != "":
		j.log("PE %d called global exit with code %d: %s", a.Rank, a.Code, a.Msg)
	case a.Code != 0:
		j.log("PE %d called global exit with code %d", a.Rank, a.Code)
	}
	if j.stopping {
		j.code = code
		return
	}
	j.pending = nil
	j.stop(code, nil)
}

// failedWhileStopping takes a PE's failure after the launcher began to
// stop the job. Its death by the signal that stop sent (or the SIGKILL
// after the grace), and any exit status then, are the stop's doing; a
// death by another signal (a PE killed from outside in the meantime, as
// happens when a survivor's global exit reached the launcher before the
// dead PE's exit did) is named, and makes the job fail if nothing had.
func (j *job) failedWhileStopping(ev exitEvent, code int, what string) {
	if !signaled(ev) || j.killed {
		return
	}
	ws, _ := ev.state.Sys().(syscall.WaitStatus)
	if s := ws.Signal(); s == syscall.SIGTERM || s == j.ending {
		return
	}
	j.log("%s", what)
	if j.code == 0 {
		j.code = code
	}
}

// stop ends the job with code: SIGTERM now, SIGKILL after KillGrace. A
// stopped PE is continued so that it takes the SIGTERM now rather than
// the SIGKILL later (SIGCONT to a running PE changes nothing).
func (j *job) stop(code int, err error) {
	j.stopping, j.code, j.err = true, code, err
	if j.ending == 0 {
		j.ending = syscall.SIGTERM
	}
	j.signal(syscall.SIGTERM)
	j.signal(syscall.SIGCONT)
	if j.kill == nil && !j.killed {
		j.kill = time.After(j.cfg.KillGrace)
	}
}

// interrupt passes an interrupt the launcher received on to every PE and
// makes sure it ends the job: a stopped PE would keep the signal pending
// forever and a PE that catches it may go on, so stopped PEs are
// continued (and named), and whatever is left after KillGrace is killed
// (killRest). A second interrupt kills at once, as a second Ctrl-C does
// with mpirun.
func (j *job) interrupt(s syscall.Signal) {
	if j.interrupted != 0 {
		if !j.killed {
			j.log("%s again: killing %s now", sigName(s), pes(j.live))
			j.kill = nil
			j.killRest()
		}
		return
	}
	j.interrupted = s
	if j.ending == 0 {
		j.ending = s
	}
	stopped := j.stoppedPEs()
	j.signal(s)
	for _, c := range stopped {
		j.log("PE %d (pid %d) is stopped; continuing it so that it takes %s", c.rank, c.proc.Pid, sigName(s))
	}
	continueStopped(stopped)
	if j.kill == nil && !j.killed {
		j.kill = time.After(j.cfg.KillGrace)
	}
}

// killRest sends SIGKILL to every PE not yet reaped, naming each one
// still there: the grace after SIGTERM (or the interrupt) is over.
func (j *job) killRest() {
	if j.killed {
		return
	}
	j.killed = true
	what := sigName(j.ending)
	for _, c := range j.children {
		if c != nil && !c.exited && procState(c.proc.Pid) != 0 {
			j.log("PE %d (pid %d) is still there %v after %s; killing it", c.rank, c.proc.Pid, j.cfg.KillGrace, what)
		}
	}
	j.signal(syscall.SIGKILL)
}

// signal sends sig to the process group of every PE not yet reaped. A PE
// reaped but not yet reported may get it too; its group then holds at most
// its leftover children, which are fair game.
func (j *job) signal(sig syscall.Signal) {
	for _, c := range j.children {
		if c != nil && !c.exited {
			syscall.Kill(-c.proc.Pid, sig)
		}
	}
}

func (j *job) stoppingOthers() string {
	switch j.live {
	case 0:
		return ""
	case 1:
		return "; stopping the other PE"
	}
	return fmt.Sprintf("; stopping the other %d PEs", j.live)
}

func pes(n int) string {
	if n == 1 {
		return "1 PE"
	}
	return fmt.Sprintf("%d PEs", n)
}
