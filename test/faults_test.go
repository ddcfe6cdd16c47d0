package test

// Fault injection: jobs of testdata/faulty in which one PE kills (SIGKILL)
// or stops (SIGSTOP) itself at a chosen point, while the others are in
// the matching operation (a barrier, a put stream, atomics to it or only
// to a survivor (atomic-live), Quiet, a window
// lock the victim holds, a distributed lock (shmem.SetLock) it holds, a
// compat rendezvous send to it, the bootstrap).
// Each case runs over shared memory and over tcp (GSHMEM_NODE_ID=%r gives
// every PE a node of its own), and either under gshmem run, which ends the
// job as soon as a PE dies and must name the victim, or without a launcher
// (the env bootstrap, GSHMEM_JOB_SECRET set), where only the runtime can
// notice: there every survivor must fail with shmem.ErrPeerLost within
// GSHMEM_PEER_TIMEOUT and a margin. After every case no process of the
// job is left and its bootstrap port is free. The measured detection times
// go to the test log (grep "detected").

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	faultPEs     = 3
	faultVictim  = 1
	peerTimeout  = 2 * time.Second
	lossGrace    = 500 * time.Millisecond // transport's lossGrace
	faultMargin  = 15 * time.Second       // wide: a loaded 2-CPU machine; the log has the real figure
	faultTries   = 3                      // tries of a case that the machine's load disturbed (see disturbed)
	faultJobWait = 45 * time.Second
)

var faultyBin struct {
	once sync.Once
	path string
	err  error
}

// faultBins builds gshmem and testdata/faulty once per test binary.
func faultBins(t *testing.T) (gshmem, faulty string) {
	t.Helper()
	gshmem, _ = jobBins(t)
	faultyBin.once.Do(func() {
		faultyBin.path = filepath.Join(filepath.Dir(gshmem), "faulty")
		if b, err := exec.Command("go", "build", "-o", faultyBin.path, "./testdata/faulty").CombinedOutput(); err != nil {
			faultyBin.err = fmt.Errorf("go build ./testdata/faulty: %v: %s", err, b)
		}
	})
	require.NoError(t, faultyBin.err)
	return gshmem, faultyBin.path
}

type faultCase struct {
	at, how string
	tcp     bool
}

func (c faultCase) name() string {
	tr := "shm"
	if c.tcp {
		tr = "tcp"
	}
	return c.at + "/" + c.how + "/" + tr
}

// env is a fault job's environment: the caller's without the misleading
// variables (jobEnv), plus the job's own.
func (c faultCase) env() []string {
	env := jobEnv("GSHMEM_PEER_TIMEOUT="+peerTimeout.String(), "GSHMEM_TCP_ADDR=127.0.0.1",
		"GSHMEM_SYMMETRIC_SIZE=32m", "GSHMEM_BOOTSTRAP_TIMEOUT=30s")
	if c.tcp {
		env = append(env, "GSHMEM_NODE_ID=%r")
	}
	return env
}

func faultCases(ats []string, hows []string) []faultCase {
	var cs []faultCase
	for _, at := range ats {
		for _, how := range hows {
			if at == "bootstrap" && how == "stop" {
				continue // the bootstrap's waits are bounded by GSHMEM_BOOTSTRAP_TIMEOUT, not the peer timeout
			}
			for _, tcp := range []bool{false, true} {
				cs = append(cs, faultCase{at, how, tcp})
			}
		}
	}
	return cs
}

var (
	faultLine = regexp.MustCompile(`faulty: fault pe (\d+) (\w+) (\d+)`)
	lostLine  = regexp.MustCompile(`faulty: lost pe (\d+) at (\d+): (.*)`)
)

// TestFaultsWithoutLauncher starts the PEs itself with the env bootstrap:
// nothing but the runtime tells the survivors that the victim is gone.
func TestFaultsWithoutLauncher(t *testing.T) {
	_, faulty := faultBins(t)
	for _, c := range faultCases([]string{"barrier", "put", "atomic", "atomic-live", "quiet", "winlock", "lock", "rendezvous", "bootstrap"}, []string{"kill", "stop"}) {
		t.Run(c.name(), func(t *testing.T) {
			t.Parallel()
			runEnvFault(t, faulty, c)
		})
	}
}

// blamed finds the PEs that an error line blames for a loss.
var blamed = regexp.MustCompile(`(?:PE|rank) (\d+) (?:at \S+ )?(?:stopped answering|exited|closed|is unreachable|has finalized|was lost|is lost|left)`)

// disturbed says why a try tells nothing about the fault it injected: the
// victim never struck (its setup failed), or some PE blamed a PE other
// than the victim (one that the machine's load kept from running for the
// whole peer timeout, which is then indeed lost). Such a try is run again,
// up to faultTries times; the log says so.
func disturbed(outs string) string {
	if faultLine.FindStringSubmatch(outs) == nil {
		return "the victim never struck"
	}
	for _, line := range strings.Split(outs, "\n") {
		// A PE that exits after the loss breaks its links too; what
		// counts is the first loss a line reports.
		if i := strings.Index(line, "first loss: "); i >= 0 {
			line = line[i:]
		}
		if m := blamed.FindStringSubmatch(line); m != nil && m[1] != strconv.Itoa(faultVictim) {
			return "a PE other than the victim was blamed first: " + m[0]
		}
	}
	return ""
}

func runEnvFault(t *testing.T, faulty string, c faultCase) {
	for try := 1; ; try++ {
		outs, why := tryEnvFault(t, faulty, c, try == faultTries)
		if why == "" || try == faultTries {
			return
		}
		t.Logf("try %d of %s disturbed (%s); again. Outputs:\n%s", try, c.name(), why, outs)
	}
}

// tryEnvFault runs the case once; unless last, a disturbed try returns
// why before any assertion.
func tryEnvFault(t *testing.T, faulty string, c faultCase, last bool) (string, string) {
	port := freePort(t)
	secret := make([]byte, 16)
	_, _ = rand.Read(secret)
	env := append(c.env(), "GSHMEM_BOOTSTRAP=env", "GSHMEM_BOOTSTRAP_ADDR=127.0.0.1:"+port,
		"GSHMEM_JOB_SECRET="+hex.EncodeToString(secret), "GSHMEM_NPES="+strconv.Itoa(faultPEs))
	procs := make([]*exec.Cmd, faultPEs)
	outs := make([]*lockedBuffer, faultPEs)
	done := make([]chan error, faultPEs)
	for r := range faultPEs {
		cmd := exec.Command(faulty, "-at", c.at, "-how", c.how, "-victim", strconv.Itoa(faultVictim))
		cmd.Env = append(append([]string{}, env...), "GSHMEM_RANK="+strconv.Itoa(r))
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		outs[r] = new(lockedBuffer)
		cmd.Stdout, cmd.Stderr = outs[r], outs[r]
		require.NoError(t, cmd.Start())
		procs[r], done[r] = cmd, make(chan error, 1)
		go func() { done[r] <- cmd.Wait() }()
	}
	// Whatever happens, nothing outlives the test (a stopped PE included).
	t.Cleanup(func() {
		for _, p := range procs {
			_ = syscall.Kill(p.Process.Pid, syscall.SIGKILL)
		}
	})
	deadline := time.After(faultJobWait)
	codes := make([]int, faultPEs)
	for r := range faultPEs {
		if r == faultVictim && c.how == "stop" {
			continue // stays stopped until the survivors are done
		}
		select {
		case err := <-done[r]:
			codes[r] = exitCode(err)
		case <-deadline:
			t.Fatalf("PE %d still running %v after the start; outputs:\n%s", r, faultJobWait, joinOuts(outs))
		}
	}
	if c.how == "stop" {
		v := procs[faultVictim].Process.Pid
		assert.True(t, stopped(v), "the victim (pid %d) is not stopped; outputs:\n%s", v, joinOuts(outs))
		_ = syscall.Kill(v, syscall.SIGKILL)
		_ = syscall.Kill(v, syscall.SIGCONT)
		select {
		case err := <-done[faultVictim]:
			codes[faultVictim] = exitCode(err)
		case <-time.After(10 * time.Second):
			t.Fatalf("the stopped victim did not die of SIGKILL")
		}
	}
	all := joinOuts(outs)
	if why := disturbed(all); why != "" && !last {
		return all, why
	}
	m := faultLine.FindStringSubmatch(outs[faultVictim].String())
	require.NotNil(t, m, "the victim never struck; outputs:\n%s", all)
	assert.Equal(t, 128+int(syscall.SIGKILL), codes[faultVictim], "the victim's end")
	struck, _ := strconv.ParseInt(m[3], 10, 64)
	bound := faultMargin
	if c.how == "stop" {
		bound += peerTimeout
	}
	for r := range faultPEs {
		if r == faultVictim {
			continue
		}
		require.Equal(t, 3, codes[r], "PE %d must fail with ErrPeerLost (exit status 3); outputs:\n%s", r, all)
		l := lostLine.FindStringSubmatch(outs[r].String())
		require.NotNil(t, l, "PE %d's output:\n%s", r, outs[r].String())
		at, _ := strconv.ParseInt(l[2], 10, 64)
		took := time.Duration(at - struck)
		t.Logf("detected %s PE %d after %v: %s", c.name(), r, took.Round(time.Millisecond), l[3])
		assert.Less(t, took, bound, "PE %d noticed the loss late", r)
		assert.Regexp(t, fmt.Sprintf(`(PE|rank) %d\b`, faultVictim), l[3], "PE %d's error must name the victim", r)
	}
	for r, p := range procs {
		assert.False(t, alive(p.Process.Pid), "PE %d (pid %d) outlived the job", r, p.Process.Pid)
	}
	// The rendezvous port is free again: nothing of the job still holds it.
	ln, err := net.Listen("tcp", "127.0.0.1:"+port)
	if assert.NoError(t, err, "the bootstrap port is still held") {
		ln.Close()
	}
	return all, ""
}

// TestFaultsUnderLauncher runs the cases under gshmem run: a killed PE
// ends the job at once and must be the one the launcher names; a stopped
// one is found by the survivors, whose errors name it, and the launcher
// ends the job (killing the stopped PE).
func TestFaultsUnderLauncher(t *testing.T) {
	gshmem, faulty := faultBins(t)
	cases := faultCases([]string{"barrier", "put", "winlock", "lock", "bootstrap"}, []string{"kill"})
	cases = append(cases, faultCases([]string{"barrier", "winlock"}, []string{"stop"})...)
	for _, c := range cases {
		t.Run(c.name(), func(t *testing.T) {
			t.Parallel()
			runLauncherFault(t, gshmem, faulty, c)
		})
	}
}

func runLauncherFault(t *testing.T, gshmem, faulty string, c faultCase) {
	for try := 1; ; try++ {
		out, why := tryLauncherFault(t, gshmem, faulty, c, try == faultTries)
		if why == "" || try == faultTries {
			return
		}
		t.Logf("try %d of %s disturbed (%s); again. Output:\n%s", try, c.name(), why, out)
	}
}

func tryLauncherFault(t *testing.T, gshmem, faulty string, c faultCase, last bool) (string, string) {
	before := shmFiles(t)
	var out bytes.Buffer
	cmd := exec.Command(gshmem, "run", "-n", strconv.Itoa(faultPEs), faulty, "-at", c.at, "-how", c.how, "-victim", strconv.Itoa(faultVictim))
	cmd.Env = c.env()
	cmd.Stdout, cmd.Stderr = &out, &out
	pes, err := watchFaultJob(t, cmd, &out)
	ended := time.Now()
	s := out.String()
	if why := disturbed(s); why != "" && !last {
		for _, p := range pes {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
		return s, why
	}
	m := faultLine.FindStringSubmatch(s)
	require.NotNil(t, m, "the victim never struck; output:\n%s", s)
	struck, _ := strconv.ParseInt(m[3], 10, 64)
	t.Logf("detected %s: the job ended %v after the fault", c.name(), ended.Sub(time.Unix(0, struck)).Round(time.Millisecond))
	code := exitCode(err)
	require.NotZero(t, code, "the job must fail; output:\n%s", s)
	if c.how == "kill" {
		assert.Equal(t, 128+int(syscall.SIGKILL), code, s)
		assert.Regexp(t, fmt.Sprintf(`gshmem run: PE %d \(pid \d+\) was killed by signal: killed`, faultVictim), s)
		assert.NotRegexp(t, `gshmem run: PE [^1] \(pid \d+\) (was killed|exited)`, s, "the launcher named a survivor")
	} else {
		// Every survivor that reported names the stopped PE, and the
		// launcher names it too.
		for _, l := range lostLine.FindAllStringSubmatch(s, -1) {
			assert.Contains(t, l[3], fmt.Sprintf("PE %d", faultVictim), s)
		}
		assert.Regexp(t, fmt.Sprintf(`gshmem run: PE %d \(pid \d+\) (is stopped|was stopped)`, faultVictim), s)
	}
	assert.GreaterOrEqual(t, len(pes), faultPEs, "PEs seen under the launcher; output:\n%s", s)
	for _, p := range pes {
		assert.False(t, alive(p), "PE process %d outlived the job", p)
	}
	had := map[string]bool{}
	for _, f := range before {
		had[f] = true
	}
	for _, f := range shmFiles(t) {
		assert.False(t, !had[f] && strings.Contains(f, "gshmem"), "the job left %s in /dev/shm", f)
	}
	return s, ""
}

func freePort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	return -1
}

// stopped reports whether pid is in the stopped state.
func stopped(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && (f[0] == "T" || f[0] == "t")
}

// lockedBuffer is a PE's output: the copying goroutine of exec writes it
// while the test reads it (a stopped victim's stays open).
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func joinOuts(outs []*lockedBuffer) string {
	var b strings.Builder
	for r, o := range outs {
		fmt.Fprintf(&b, "--- PE %d:\n%s", r, o)
	}
	return b.String()
}

// watchFaultJob starts cmd (a gshmem run of a fault test, in a process
// group of its own), follows its PEs as they appear, and returns the
// launcher's exit and the PEs' pids once it ends: the test fails if it still runs
// faultJobWait after its start. Every process of the job is killed when
// the test ends.
func watchFaultJob(t *testing.T, cmd *exec.Cmd, out fmt.Stringer) ([]int, error) {
	t.Helper()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var pes []int
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		for _, p := range pes {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	})
	deadline := time.After(faultJobWait)
	for {
		select {
		case err := <-done:
			return pes, err
		case <-deadline:
			t.Fatalf("gshmem run still running %v after the start; output:\n%s", faultJobWait, out.String())
		case <-time.After(5 * time.Millisecond):
			for _, p := range children(cmd.Process.Pid) {
				if !containsInt(pes, p) {
					pes = append(pes, p)
				}
			}
		}
	}
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
