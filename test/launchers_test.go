package test

// Launcher integration tests: one program (testdata/jobcheck) started by
// gshmem run, MPICH's mpiexec.hydra (PMI-1 over PMI_FD and PMI_PORT, PMI-2),
// Slurm's srun --mpi=pmi2 on a throw-away one-machine cluster, Open MPI's
// mpirun with the env bootstrap, and across three fake hosts (network
// namespaces, 2 PEs each: shm within a host, tcp across), plus the fault
// test (a PE killed on one host) and the tcp perf figures.
//
// A test skips, saying so, only when its launcher is not installed;
// .ci/packages-launchers installs them all. Namespace tests also need root.
// Every test stops what it started: namespaces, daemons, processes.

import (
	"bytes"
	"context"
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

var bins struct {
	once             sync.Once
	dir              string
	gshmem, jobcheck string
	err              error
}

// jobBins builds the gshmem CLI and the job program once per test binary.
func jobBins(t *testing.T) (gshmem, jobcheck string) {
	t.Helper()
	bins.once.Do(func() {
		if bins.dir, bins.err = os.MkdirTemp("", "gshmem-launchers-"); bins.err != nil {
			return
		}
		bins.gshmem, bins.jobcheck = filepath.Join(bins.dir, "gshmem"), filepath.Join(bins.dir, "jobcheck")
		for out, pkg := range map[string]string{bins.gshmem: "../cmd/gshmem", bins.jobcheck: "./testdata/jobcheck"} {
			if b, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
				bins.err = fmt.Errorf("go build %s: %v: %s", pkg, err, b)
				return
			}
		}
	})
	require.NoError(t, bins.err)
	return bins.gshmem, bins.jobcheck
}

func TestMain(m *testing.M) {
	code := m.Run()
	if bins.dir != "" {
		os.RemoveAll(bins.dir)
	}
	os.Exit(code)
}

// need skips the test when a launcher is missing.
func need(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if _, err2 := os.Stat("/usr/sbin/" + tool); err2 == nil {
				continue
			}
			t.Skipf("%s is not installed (.ci/packages-launchers installs it)", tool)
		}
	}
}

func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("network namespaces need root")
	}
	need(t, "ip", "nsenter", "unshare")
}

// run runs a command with a deadline and returns its combined output and
// exit code (-1 when it could not run).
func run(t *testing.T, timeout time.Duration, env []string, name string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = jobEnv(env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	t.Logf("%s %s: %v in %v", name, strings.Join(args, " "), err, time.Since(start).Round(time.Millisecond))
	if ctx.Err() != nil {
		t.Fatalf("%s timed out after %v; output:\n%s", name, timeout, out.String())
	}
	code := 0
	if err != nil {
		code = -1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
	}
	return out.String(), code
}

var peLine = regexp.MustCompile(`jobcheck: pe (\d+)/(\d+) host (\S+) node (\d+) bootstrap (\S+) transports (\S+)`)

type peInfo struct {
	host, bootstrap string
	node            int
	transports      []string
}

// checkJob asserts that jobcheck ran n PEs on nodes nodes with bootstrap
// boot and verified its data, and returns what each PE reported.
func checkJob(t *testing.T, out string, code, n, nodes int, boot string) map[int]peInfo {
	t.Helper()
	require.Equal(t, 0, code, "the job failed; output:\n%s", out)
	assert.Contains(t, out, fmt.Sprintf("jobcheck: OK: %d PEs on %d nodes", n, nodes), out)
	pes := map[int]peInfo{}
	for _, m := range peLine.FindAllStringSubmatch(out, -1) {
		pe, _ := strconv.Atoi(m[1])
		node, _ := strconv.Atoi(m[4])
		pes[pe] = peInfo{host: m[3], node: node, bootstrap: m[5], transports: strings.Split(m[6], ",")}
		assert.Equal(t, strconv.Itoa(n), m[2])
		assert.Equal(t, boot, m[5], "PE %d's bootstrap", pe)
	}
	assert.Len(t, pes, n, out)
	return pes
}

func TestLaunchGshmemRun(t *testing.T) {
	gshmem, job := jobBins(t)
	out, code := run(t, time.Minute, nil, gshmem, "run", "-n", "4", job)
	pes := checkJob(t, out, code, 4, 1, "local")
	assert.Equal(t, []string{"shm", "self", "shm", "shm"}, pes[1].transports)
}

// Forced onto tcp over loopback by GSHMEM_NODE_ID=%r: every PE its own node.
func TestLaunchGshmemRunAllTCP(t *testing.T) {
	gshmem, job := jobBins(t)
	out, code := run(t, time.Minute, []string{"GSHMEM_NODE_ID=%r", "GSHMEM_TCP_ADDR=127.0.0.1"}, gshmem, "run", "-n", "3", job)
	pes := checkJob(t, out, code, 3, 3, "local")
	assert.Equal(t, []string{"tcp", "tcp", "self"}, pes[2].transports)
}

func TestLaunchHydra(t *testing.T) {
	need(t, "mpiexec.hydra")
	_, job := jobBins(t)
	for _, c := range []struct {
		name, boot string
		env        []string
		args       []string
	}{
		{"pmi1-fd", "pmi", []string{"GSHMEM_BOOTSTRAP=pmi"}, nil},
		{"pmi2-fd", "pmi2", []string{"GSHMEM_BOOTSTRAP=pmi2"}, nil},
		{"pmi1-port", "pmi", nil, []string{"-pmi-port"}},
		{"auto", "pmi", nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append(append([]string{}, c.args...), "-n", "4", job)
			out, code := run(t, time.Minute, c.env, "mpiexec.hydra", args...)
			checkJob(t, out, code, 4, 1, c.boot)
		})
	}
}

func freeLoopbackPort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().String()
}

func TestLaunchMpirunEnv(t *testing.T) {
	need(t, "mpirun.openmpi")
	_, job := jobBins(t)
	base := []string{"--allow-run-as-root", "--oversubscribe", "--mca", "btl_tcp_if_include", "lo", "--mca", "oob_tcp_if_include", "lo"}
	addr := freeLoopbackPort(t)
	// The secret travels as README says: exported, then passed by name.
	secret := []string{"GSHMEM_JOB_SECRET=" + strings.Repeat("5e", 16)}
	args := append(append([]string{}, base...), "-np", "4", "-x", "GSHMEM_BOOTSTRAP_ADDR="+addr, "-x", "GSHMEM_JOB_SECRET", job)
	out, code := run(t, 2*time.Minute, secret, "mpirun.openmpi", args...)
	checkJob(t, out, code, 4, 1, "env")

	// Without a secret the job does not start, and says how to get one.
	args = append(append([]string{}, base...), "-np", "2", "-x", "GSHMEM_BOOTSTRAP_ADDR="+freeLoopbackPort(t), job)
	out, code = run(t, 2*time.Minute, nil, "mpirun.openmpi", args...)
	assert.NotEqual(t, 0, code, out)
	assert.Contains(t, out, "GSHMEM_JOB_SECRET is not set", out)
	assert.Contains(t, out, "openssl rand -hex 16", out)

	// Without a rendezvous address every rank says what to do.
	args = append(append([]string{}, base...), "-np", "2", job)
	out, code = run(t, 2*time.Minute, nil, "mpirun.openmpi", args...)
	assert.NotEqual(t, 0, code, out)
	assert.Contains(t, out, "mpirun -x GSHMEM_BOOTSTRAP_ADDR", out)
}

// testIDs keeps concurrent runs of this package (and other engineers')
// apart: namespace names, subnet, Slurm directory and ports.
func testIDs() (prefix, subnet, slurmDir string, slurmPort int) {
	p := os.Getpid()
	return fmt.Sprintf("gs%dh", p%100000), fmt.Sprintf("10.79.%d", 1+p%250),
		filepath.Join(os.TempDir(), fmt.Sprintf("gshmem-slurm-%d", p)), 20000 + 2*(p%5000)
}

func scriptEnv() []string {
	prefix, subnet, dir, port := testIDs()
	return []string{"GSHMEM_NETNS_PREFIX=" + prefix, "GSHMEM_NETNS_SUBNET=" + subnet,
		"GSHMEM_SLURM_DIR=" + dir, "GSHMEM_SLURM_PORT=" + strconv.Itoa(port),
		"SLURM_CONF=" + filepath.Join(dir, "etc", "slurm.conf")}
}

func script(t *testing.T, args ...string) {
	t.Helper()
	out, code := run(t, 90*time.Second, scriptEnv(), args[0], args[1:]...)
	require.Equal(t, 0, code, "%s failed:\n%s", strings.Join(args, " "), out)
}

// slurmUp starts a cluster (one node, or the namespaces' hosts) and stops
// it when the test ends.
func slurmUp(t *testing.T, netnsHosts int) {
	t.Helper()
	need(t, "slurmctld", "slurmd", "srun", "munged")
	args := []string{"./slurm.sh", "up"}
	if netnsHosts > 0 {
		args = append(args, "--netns", strconv.Itoa(netnsHosts))
	}
	t.Cleanup(func() { script(t, "./slurm.sh", "down") })
	script(t, args...)
}

func netnsUp(t *testing.T, hosts int) (prefix string) {
	t.Helper()
	needRoot(t)
	prefix, _, _, _ = testIDs()
	t.Cleanup(func() { script(t, "./netns.sh", "down") })
	script(t, "./netns.sh", "up", strconv.Itoa(hosts))
	return prefix
}

func TestLaunchSrunPMI2(t *testing.T) {
	need(t, "slurmctld", "srun")
	if os.Geteuid() != 0 {
		t.Skip("the throw-away Slurm cluster runs its daemons as root")
	}
	_, job := jobBins(t)
	slurmUp(t, 0)
	out, code := run(t, time.Minute, scriptEnv(), "srun", "--mpi=pmi2", "-n", "4", job)
	checkJob(t, out, code, 4, 1, "pmi2")
	// The same job forced onto PMI-1, which srun's pmi2 plugin also serves.
	out, code = run(t, time.Minute, append(scriptEnv(), "GSHMEM_BOOTSTRAP=pmi"), "srun", "--mpi=pmi2", "-n", "2", job)
	checkJob(t, out, code, 2, 1, "pmi")
}

// jobAcross runs a command on the first fake host.
func onHost(prefix string, args ...string) []string {
	return append([]string{"./netns-exec.sh", prefix + "1", "--"}, args...)
}

// Three fake hosts x 2 PEs under Hydra (its proxies reach the hosts through
// netns-exec.sh, as through ssh): shm between the two PEs of a host, tcp
// across hosts, all checks passing.
func TestNetnsHydra3x2(t *testing.T) {
	need(t, "mpiexec.hydra")
	_, job := jobBins(t)
	p := netnsUp(t, 3)
	here, _ := os.Getwd()
	hosts := fmt.Sprintf("%s1:2,%s2:2,%s3:2", p, p, p)
	args := onHost(p, "mpiexec.hydra", "-launcher", "rsh", "-launcher-exec", filepath.Join(here, "netns-exec.sh"), "-hosts", hosts, "-n", "6", job)
	out, code := run(t, 2*time.Minute, scriptEnv(), args[0], args[1:]...)
	pes := checkJob(t, out, code, 6, 3, "pmi")
	for pe := range 6 {
		info := pes[pe]
		assert.Equal(t, fmt.Sprintf("%s%d", p, pe/2+1), info.host)
		assert.Equal(t, pe/2, info.node)
		for peer, tr := range info.transports {
			switch {
			case peer == pe:
				assert.Equal(t, "self", tr)
			case peer/2 == pe/2:
				assert.Equal(t, "shm", tr, "PE %d to PE %d (same host)", pe, peer)
			default:
				assert.Equal(t, "tcp", tr, "PE %d to PE %d (other host)", pe, peer)
			}
		}
	}
}

// A PE killed on one host: every other PE returns a peer-lost error and
// srun exits non-zero, within 10 s. (srun, unlike Hydra and mpirun, leaves
// the other tasks running, so the runtime's own detection is what ends
// them.) Before that, a connection without the job secret is refused.
func TestNetnsPeerLost(t *testing.T) {
	need(t, "srun")
	_, job := jobBins(t)
	p := netnsUp(t, 3)
	slurmUp(t, 3)
	args := onHost(p, "srun", "-N", "3", "--ntasks-per-node=2", "-n", "6", "--mpi=pmi2", job, "-hang")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Env = jobEnv(append(scriptEnv(), "GSHMEM_PEER_TIMEOUT=3s")...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	finished := false
	defer func() {
		if !finished {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	}()
	require.Eventually(t, func() bool { return strings.Count(out.String(), "looping") == 6 }, time.Minute, 20*time.Millisecond,
		"the job never started:\n%s", out)

	// A stranger on host 3 connects to PE 0's tcp port without the secret.
	addr := regexp.MustCompile(`jobcheck: pe 0/6 .* tcp (\S+)`).FindStringSubmatch(out.String())
	require.Len(t, addr, 2, out.String())
	host, port, _ := net.SplitHostPort(addr[1])
	stranger := onHost(p, "bash", "-c", fmt.Sprintf(`exec 3<>/dev/tcp/%s/%s; printf 'GSTC\002\000\000\000%%044d%%032d' 0 0 >&3; timeout 6 cat <&3 >/dev/null`, host, port))
	stranger[1] = p + "3"
	sout, _ := run(t, 30*time.Second, scriptEnv(), stranger[0], stranger[1:]...)
	require.Eventually(t, func() bool {
		return strings.Contains(out.String(), "refused a connection from "+strings.Split(host, ".")[0])
	}, 10*time.Second, 20*time.Millisecond,
		"PE 0 did not log the refusal:\n%s\n%s", out, sout)
	assert.Contains(t, out.String(), "wrong job secret")

	// Kill PE 2 (on host 2) the hard way.
	finished = killPEAndWait(t, p+"2", job, done, out)
	assert.Regexp(t, `task \d: Killed`, out.String())
}

func nsPids(t *testing.T, ns string) []int {
	b, err := exec.Command("ip", "netns", "pids", ns).Output()
	require.NoError(t, err)
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		if p, err := strconv.Atoi(f); err == nil {
			pids = append(pids, p)
		}
	}
	return pids
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The tcp perf figures between two fake hosts, beside plain Go TCP in the
// same run (jobcheck -perf). Logged, not asserted: the machine is shared.
// GSHMEM_PERF_ITERS sets the 1 MiB puts per round (default 100).
func TestNetnsPerf(t *testing.T) {
	if testing.Short() {
		t.Skip("perf figures are not taken with -short")
	}
	need(t, "mpiexec.hydra")
	_, job := jobBins(t)
	p := netnsUp(t, 2)
	here, _ := os.Getwd()
	iters := os.Getenv("GSHMEM_PERF_ITERS")
	if iters == "" {
		iters = "100"
	}
	args := onHost(p, "mpiexec.hydra", "-launcher", "rsh", "-launcher-exec", filepath.Join(here, "netns-exec.sh"),
		"-hosts", p+"1:1,"+p+"2:1", "-n", "2", job, "-perf", "-iters", iters)
	out, code := run(t, 3*time.Minute, scriptEnv(), args[0], args[1:]...)
	checkJob(t, out, code, 2, 2, "pmi")
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "jobcheck: perf") {
			t.Log(l)
		}
	}
	assert.Contains(t, out, "perf PE 0 -> PE 1 over tcp")
}

// gshmem info, started by a launcher, joins the job and prints the
// bootstrap, the PE-to-node map and the transport matrix.
func TestInfoUnderLaunchers(t *testing.T) {
	gshmem, _ := jobBins(t)
	out, code := run(t, time.Minute, []string{"GSHMEM_NODE_ID=%r", "GSHMEM_TCP_ADDR=127.0.0.1", "GSHMEM_JOB_SECRET=hidden-value"}, gshmem, "run", "-n", "3", gshmem, "info")
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "bootstrap: local")
	assert.Contains(t, out, "PEs: 3 on 3 node(s)")
	assert.Regexp(t, `(?m)^1\s+1\s+\S+\s+127\.0\.0\.1:\d+\s+t\.t$`, out)
	assert.Regexp(t, `GSHMEM_NODE_ID\s+%r\s+env`, out)
	assert.Regexp(t, `GSHMEM_JOB_SECRET\s+\(set\)\s+env`, out)
	assert.NotContains(t, out, "hidden-value")
	out, code = run(t, time.Minute, nil, gshmem, "info")
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "bootstrap: singleton")
	if _, err := exec.LookPath("mpiexec.hydra"); err == nil {
		out, code = run(t, time.Minute, nil, "mpiexec.hydra", "-n", "2", gshmem, "info")
		require.Equal(t, 0, code, out)
		assert.Contains(t, out, "bootstrap: pmi (PMI_FD is set")
		assert.Regexp(t, `(?m)^1\s+0\s+\S+\s+-\s+s\.$`, out)
	}
	out, _ = run(t, time.Minute, []string{"OMPI_COMM_WORLD_RANK=1", "OMPI_COMM_WORLD_SIZE=2"}, gshmem, "info", "--no-join")
	assert.Contains(t, out, "mpirun -x GSHMEM_BOOTSTRAP_ADDR")
}

// killPEAndWait SIGKILLs the job's PE on host (a namespace) and waits for
// srun to fail within 10 s, every surviving PE of the 6 reporting the
// loss. It reports that it consumed done.
func killPEAndWait(t *testing.T, host, job string, done <-chan error, out *syncBuffer) bool {
	t.Helper()
	var victim int
	for _, pid := range nsPids(t, host) {
		if exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); exe == job {
			victim = pid
			break
		}
	}
	require.NotZero(t, victim, "no jobcheck process on %s", host)
	require.NoError(t, syscall.Kill(victim, syscall.SIGKILL))
	killed := time.Now()
	select {
	case err := <-done:
		took := time.Since(killed)
		t.Logf("srun exited %v after the kill", took.Round(time.Millisecond))
		assert.Less(t, took, 10*time.Second)
		require.Error(t, err, "srun must fail:\n%s", out)
	case <-time.After(10 * time.Second):
		t.Fatalf("srun still running 10 s after PE on %s was killed:\n%s", host, out)
	}
	lost := regexp.MustCompile(`jobcheck: pe (\d): shmem: peer lost`).FindAllStringSubmatch(out.String(), -1)
	seen := map[string]bool{}
	for _, m := range lost {
		seen[m[1]] = true
	}
	assert.Len(t, seen, 5, "every surviving PE reports the loss:\n%s", out)
	return true
}
