package launcher

import (
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stoppedChildren counts this process's children that are stopped.
func stoppedChildren() int {
	n := 0
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + d.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 1 && (f[0] == "T" || f[0] == "t") && f[1] == strconv.Itoa(os.Getpid()) && pid > 0 {
			n++
		}
	}
	return n
}

// Not parallel: it signals the test process itself. SIGTERM to a job with
// a stopped PE ends the job within the grace: the stopped PE is continued
// to take the signal (and named), and whatever is left is killed after
// KillGrace; a second SIGTERM kills at once. Before, the launcher waited
// forever for a PE that never ran again.
func TestRunInterruptEndsStoppedPE(t *testing.T) {
	// A SIGTERM that arrives after a job has ended must not end the test.
	held := make(chan os.Signal, 4)
	signal.Notify(held, syscall.SIGTERM)
	defer signal.Stop(held)
	for _, tc := range []struct {
		mode    string
		n       int
		twice   bool
		stopped int
	}{{"stopall", 1, false, 1}, {"stopwait", 3, false, 1}, {"stopall", 2, false, 2}, {"deaf", 2, true, 0}} {
		w := &readyWriter{n: tc.n, ready: make(chan struct{})}
		done := make(chan result, 1)
		go func() { done <- runMode(t, tc.mode, tc.n, Config{Stdout: w, KillGrace: 2 * time.Second}) }()
		select {
		case <-w.ready:
		case <-time.After(15 * time.Second):
			t.Fatal("PEs did not start")
		}
		require.Eventually(t, func() bool { return stoppedChildren() == tc.stopped }, 10*time.Second, 10*time.Millisecond,
			"%s: %d PEs stopped", tc.mode, tc.stopped)
		sent := time.Now()
		require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGTERM))
		if tc.twice {
			time.Sleep(100 * time.Millisecond)
			require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGTERM))
		}
		var r result
		select {
		case r = <-done:
		case <-time.After(15 * time.Second):
			t.Fatalf("%s -n %d: the job did not end after SIGTERM", tc.mode, tc.n)
		}
		took := time.Since(sent)
		assert.NoError(t, r.err)
		assert.Equal(t, 128+int(syscall.SIGTERM), r.code, "%s -n %d", tc.mode, tc.n)
		if tc.stopped > 0 {
			assert.Contains(t, r.log, "is stopped; continuing it so that it takes SIGTERM")
		}
		assert.Contains(t, r.log, "job interrupted by SIGTERM")
		assert.NotContains(t, r.log, "was killed by signal", "no PE is blamed")
		assert.Less(t, took, 2*time.Second+3*time.Second, "%s -n %d: ended within the grace", tc.mode, tc.n)
		if tc.twice {
			assert.Contains(t, r.log, "SIGTERM again: killing 2 PEs now")
			assert.Less(t, took, 2*time.Second, "a second SIGTERM kills at once")
		}
	}
}

// TestRunGlobalExitAfterLoss: the job's exit code is the one a PE asked
// for in a global exit, whichever reached the launcher first, the loss or
// the exit, with the lost PE named either way; a zero global exit after a
// loss leaves the job failed.
func TestRunGlobalExitAfterLoss(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode      string
		keepGoing bool
		ask, want int
	}{
		{"lossabort", false, 5, 5},
		{"abortloss", false, 5, 5},
		{"lossabort", true, 5, 5},
		{"lossabort", true, 0, 128 + int(syscall.SIGKILL)},
	} {
		exe, err := os.Executable()
		require.NoError(t, err)
		r := run(t, Config{N: 3, Argv: []string{exe}, KeepGoing: tc.keepGoing,
			Env: childEnvFor(tc.mode, "GSHMEM_TEST_ABORT_CODE="+strconv.Itoa(tc.ask))})
		assert.NoError(t, r.err)
		assert.Equal(t, tc.want, r.code, "%+v", tc)
		assert.Regexp(t, `PE 1 \(pid \d+\) was killed by signal: killed`, r.log, "%+v", tc)
		if tc.ask != 0 {
			assert.Contains(t, r.log, "PE 0 called global exit with code 5: after the loss", "%+v", tc)
		}
		assert.NotContains(t, r.log, "still there", "%+v: every PE ended before the SIGKILL", tc)
		assert.Equal(t, 2, strings.Count(r.log, "\n"), "%+v: the loss and the exit, each once", tc)
	}
}
