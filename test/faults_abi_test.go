package test

// The C ABI's and UCX's fault cases. The C ABI: testdata/faultyc/faultyc.c through
// libmpi_abi.so.1 (built once per test binary by gshmem abi install), run
// under gshmem run --disable-auto-cleanup, so that the launcher leaves the
// survivors running and each of them must find the loss itself. Rank 1
// kills or stops itself while the survivors repeat an operation on it (or,
// fop-live, only on each other); every survivor's error must carry the
// lost class and name rank 1 within GSHMEM_PEER_TIMEOUT + 1 s, and its
// MPI_Finalize afterwards must return.

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var faultyC struct {
	once sync.Once
	path string
	skip string
	err  error
}

// faultyCBin installs the C ABI next to gshmem and compiles faultyc.c
// with its mpicc, once per test binary.
func faultyCBin(t *testing.T) (gshmem, faultyc string) {
	t.Helper()
	gshmem, _ = jobBins(t)
	faultyC.once.Do(func() {
		if _, err := exec.LookPath("cc"); err != nil {
			faultyC.skip = "no cc on PATH: the C ABI cannot be built"
			return
		}
		if out, _ := exec.Command("go", "env", "CGO_ENABLED").Output(); strings.TrimSpace(string(out)) != "1" {
			faultyC.skip = "cgo is disabled: the C ABI cannot be built"
			return
		}
		prefix := filepath.Join(filepath.Dir(gshmem), "abi")
		if b, err := exec.Command(gshmem, "abi", "install", "--prefix", prefix, "--src", "..").CombinedOutput(); err != nil {
			faultyC.err = fmt.Errorf("gshmem abi install: %v: %s", err, b)
			return
		}
		faultyC.path = filepath.Join(filepath.Dir(gshmem), "faultyc")
		if b, err := exec.Command(filepath.Join(prefix, "bin", "mpicc"), "-o", faultyC.path, "testdata/faultyc/faultyc.c").CombinedOutput(); err != nil {
			faultyC.err = fmt.Errorf("mpicc faultyc.c: %v: %s", err, b)
		}
	})
	if faultyC.skip != "" {
		t.Skip(faultyC.skip)
	}
	require.NoError(t, faultyC.err)
	return gshmem, faultyC.path
}

// abiFaultBound is how soon after the victim struck every survivor must
// name it, killed or stopped (a stopped PE is lost once it has stayed
// stopped for the timeout): issue 38's bound.
const abiFaultBound = peerTimeout + time.Second

var finalizedLine = regexp.MustCompile(`faulty: finalized pe (\d+) rc`)

// TestFaultsCABI runs every C ABI case, killed and stopped, over shared
// memory, and a few over tcp.
func TestFaultsCABI(t *testing.T) {
	gshmem, faultyc := faultyCBin(t)
	var cases []faultCase
	for _, at := range []string{"put", "get", "acc", "fop", "fop-live", "lock", "recv", "allreduce", "barrier", "shmem-barrier"} {
		for _, how := range []string{"kill", "stop"} {
			cases = append(cases, faultCase{at, how, false})
			if at == "put" || at == "fop-live" || at == "recv" || at == "barrier" {
				cases = append(cases, faultCase{at, how, true})
			}
		}
	}
	for _, c := range cases {
		t.Run(c.name(), func(t *testing.T) { runSurvivorFault(t, gshmem, faultyc, c, true) })
	}
}

var faultyUCX struct {
	once sync.Once
	path string
	skip string
}

// TestFaultsUCX runs testdata/faulty built with -tags ucx over UCX
// (GSHMEM_REMOTE_TRANSPORT=ucx, UCX_TLS=tcp on lo, a node per PE) under
// gshmem run --disable-auto-cleanup: UCX's endpoint errors and the
// heartbeat must report a killed or stopped PE to every survivor, whatever
// it targets, within GSHMEM_PEER_TIMEOUT + 1 s, as over tcp. Skipped where
// the ucx build cannot be made (no libucx-dev).
func TestFaultsUCX(t *testing.T) {
	gshmem, _ := jobBins(t)
	faultyUCX.once.Do(func() {
		faultyUCX.path = filepath.Join(filepath.Dir(gshmem), "faulty-ucx")
		if b, err := exec.Command("go", "build", "-tags", "ucx", "-o", faultyUCX.path, "./testdata/faulty").CombinedOutput(); err != nil {
			faultyUCX.skip = fmt.Sprintf("no ucx build here (libucx-dev): %v: %s", err, b)
		}
	})
	if faultyUCX.skip != "" {
		t.Skip(faultyUCX.skip)
	}
	for _, at := range []string{"put", "atomic", "atomic-live", "quiet", "barrier"} {
		for _, how := range []string{"kill", "stop"} {
			c := faultCase{at, how, true}
			t.Run(at+"/"+how+"/ucx", func(t *testing.T) { runSurvivorFault(t, gshmem, faultyUCX.path, c, false) })
		}
	}
}

// runSurvivorFault runs case c of exe (faultyc when cabi, else faulty)
// under gshmem run --disable-auto-cleanup, again when the machine's load
// disturbed a try.
func runSurvivorFault(t *testing.T, gshmem, exe string, c faultCase, cabi bool) {
	for try := 1; ; try++ {
		out, why := trySurvivorFault(t, gshmem, exe, c, cabi, try == faultTries)
		if why == "" || try == faultTries {
			return
		}
		t.Logf("try %d of %s disturbed (%s); again. Output:\n%s", try, c.name(), why, out)
	}
}

func trySurvivorFault(t *testing.T, gshmem, exe string, c faultCase, cabi, last bool) (string, string) {
	var out lockedBuffer
	cmd := exec.Command(gshmem, "run", "--disable-auto-cleanup", "-n", strconv.Itoa(faultPEs), exe, "-at", c.at, "-how", c.how, "-victim", strconv.Itoa(faultVictim))
	cmd.Env = c.env()
	if !cabi {
		cmd.Env = append(cmd.Env, "GSHMEM_REMOTE_TRANSPORT=ucx", "UCX_TLS=tcp", "UCX_NET_DEVICES=lo")
	}
	cmd.Stdout, cmd.Stderr = &out, &out
	pes, err := watchFaultJob(t, cmd, &out)
	s := out.String()
	if why := disturbed(s); why != "" && !last {
		return s, why
	}
	m := faultLine.FindStringSubmatch(s)
	require.NotNil(t, m, "the victim never struck; output:\n%s", s)
	struck, _ := strconv.ParseInt(m[3], 10, 64)
	assert.NotZero(t, exitCode(err), "the job lost a PE and must fail; output:\n%s", s)
	victim := regexp.MustCompile(fmt.Sprintf(`(PE|rank) %d\b`, faultVictim))
	if c.at == "shmem-barrier" {
		// shmem calls return nothing: the library names the victim and
		// ends the job (global exit), so one survivor's line suffices.
		l := regexp.MustCompile(`gshmem: gshmem_barrier_all: PE \d+: (.*)`).FindStringSubmatch(s)
		require.NotNil(t, l, "no survivor reported the loss; output:\n%s", s)
		assert.Regexp(t, victim, l[1], s)
	} else {
		var late string
		for r := range faultPEs {
			if r == faultVictim {
				continue
			}
			l := regexp.MustCompile(fmt.Sprintf(`faulty: lost pe %d at (\d+): (.*)`, r)).FindStringSubmatch(s)
			require.NotNil(t, l, "PE %d did not report the loss; output:\n%s", r, s)
			at, _ := strconv.ParseInt(l[1], 10, 64)
			took := time.Duration(at - struck)
			t.Logf("detected %s PE %d after %v: %s", c.name(), r, took.Round(time.Millisecond), l[2])
			assert.Regexp(t, victim, l[2], "PE %d's error must name the victim", r)
			if took >= abiFaultBound {
				late = fmt.Sprintf("PE %d noticed the loss after %v", r, took)
			}
			if cabi {
				assert.Regexp(t, `^(MPI_ERR_PROC_ABORTED|MPIX_ERR_PROC_FAILED): `, l[2], "PE %d's error string names its class", r)
				assert.Contains(t, finalizedPEs(s), r, "PE %d's MPI_Finalize did not return; output:\n%s", r, s)
			}
		}
		if late != "" && !last {
			return s, late + " (the machine's load; the bound is GSHMEM_PEER_TIMEOUT + 1 s)"
		}
		assert.Empty(t, late, s)
		if c.how == "kill" {
			assert.Contains(t, s, "go on (--disable-auto-cleanup)", s)
		} else {
			assert.Contains(t, s, "is stopped and every other PE has exited", s)
		}
	}
	for _, p := range pes {
		assert.False(t, alive(p), "PE process %d outlived the job", p)
	}
	return s, ""
}

func finalizedPEs(s string) []int {
	var out []int
	for _, m := range finalizedLine.FindAllStringSubmatch(s, -1) {
		r, _ := strconv.Atoi(m[1])
		out = append(out, r)
	}
	return out
}
