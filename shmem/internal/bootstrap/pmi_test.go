package bootstrap

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// fakePMI is a PMI server with the dialects seen in the launcher findings:
// "hydra" (PMI-1 with rc last and msg=, PMI-2 replies right-justified) and
// "slurm" (rc first, no msg=, PMI-2 replies left-justified, and a
// "cmd=init" line required before fullinit).
type fakePMI struct {
	t       *testing.T
	dialect string
	size    int
	mu      sync.Mutex
	kvs     map[string]string
	inBar   int
	gen     int
	cond    *sync.Cond
	aborts  []string
}

func newFakePMI(t *testing.T, dialect string, size int) *fakePMI {
	f := &fakePMI{t: t, dialect: dialect, size: size, kvs: map[string]string{}}
	f.cond = sync.NewCond(&f.mu)
	return f
}

func (f *fakePMI) barrier() {
	f.mu.Lock()
	defer f.mu.Unlock()
	g := f.gen
	f.inBar++
	if f.inBar == f.size {
		f.inBar = 0
		f.gen++
		f.cond.Broadcast()
		return
	}
	for g == f.gen {
		f.cond.Wait()
	}
}

func (f *fakePMI) reply1(w io.Writer, cmd string, kv ...string) {
	var parts []string
	if f.dialect == "slurm" {
		parts = append(parts, "cmd="+cmd, "rc=0")
		for i := 0; i+1 < len(kv); i += 2 {
			parts = append(parts, kv[i]+"="+kv[i+1])
		}
	} else {
		parts = append(parts, "cmd="+cmd)
		for i := 0; i+1 < len(kv); i += 2 {
			parts = append(parts, kv[i]+"="+kv[i+1])
		}
	}
	fmt.Fprintf(w, "%s\n", strings.Join(parts, " "))
}

func (f *fakePMI) reply2(w io.Writer, body string) {
	if f.dialect == "slurm" {
		fmt.Fprintf(w, "%-6d%s", len(body), body)
	} else {
		fmt.Fprintf(w, "%6d%s", len(body), body)
	}
}

// serve speaks to one client; rank is the rank the launcher gave it.
func (f *fakePMI) serve(c net.Conn, rank int) {
	defer c.Close()
	br := bufio.NewReader(c)
	// First line decides the version, as in Hydra and Slurm.
	first, err := br.ReadString('\n')
	if err != nil {
		return
	}
	if strings.HasPrefix(first, "cmd=initack") {
		fmt.Fprintf(c, "cmd=initack\ncmd=set size=%d\ncmd=set rank=%d\ncmd=set debug=0\n", f.size, rank)
		if first, err = br.ReadString('\n'); err != nil {
			return
		}
	}
	if strings.Contains(first, "pmi_version=2") {
		if f.dialect == "slurm" {
			fmt.Fprintf(c, "cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0\n")
		} else {
			fmt.Fprintf(c, "cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n")
		}
		f.serve2(c, br, rank)
		return
	}
	if f.dialect == "slurm" {
		fmt.Fprintf(c, "cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1\n")
	} else {
		fmt.Fprintf(c, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n")
	}
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return
		}
		m, err := parsePMI1(line)
		require.NoError(f.t, err)
		switch m.cmd {
		case "get_maxes":
			f.reply1(c, "maxes", "kvsname_max", "256", "keylen_max", "64", "vallen_max", "1024")
		case "get_my_kvsname":
			f.reply1(c, "my_kvsname", "kvsname", "kvs_1_0_2_vm")
		case "put":
			f.mu.Lock()
			f.kvs[m.fields["key"]] = m.fields["value"]
			f.mu.Unlock()
			if f.dialect == "slurm" {
				f.reply1(c, "put_result")
			} else {
				f.reply1(c, "put_result", "rc", "0", "msg", "success")
			}
		case "barrier_in":
			f.barrier()
			f.reply1(c, "barrier_out")
		case "get":
			f.mu.Lock()
			v, ok := f.kvs[m.fields["key"]]
			f.mu.Unlock()
			switch {
			case ok && f.dialect == "slurm":
				fmt.Fprintf(c, "cmd=get_result rc=0 value=%s\n", v)
			case ok:
				fmt.Fprintf(c, "cmd=get_result rc=0 msg=success value=%s\n", v)
			case f.dialect == "slurm":
				fmt.Fprintf(c, "cmd=get_result rc=1\n")
			default:
				fmt.Fprintf(c, "cmd=get_result rc=-1 msg=key_%s_not_found value=unknown\n", m.fields["key"])
			}
		case "abort":
			f.mu.Lock()
			f.aborts = append(f.aborts, line)
			f.mu.Unlock()
			return
		case "finalize":
			f.reply1(c, "finalize_ack")
			return
		default:
			f.t.Errorf("fake PMI-1: unexpected %q", line)
			return
		}
	}
}

func (f *fakePMI) serve2(c net.Conn, br *bufio.Reader, rank int) {
	rc := func(s string) string { // rc first (Slurm) or last (Hydra)
		if f.dialect == "slurm" {
			return strings.Replace(s, "response;", "response;rc=0;", 1)
		}
		return s + "rc=0;"
	}
	for {
		m, err := readPMI2(br)
		if err != nil {
			return
		}
		switch m.cmd {
		case "fullinit":
			if f.dialect == "slurm" {
				assert.Equal(f.t, "4.0", m.fields["pmijobid"])
			}
			f.reply2(c, rc(fmt.Sprintf("cmd=fullinit-response;pmi-version=2;pmi-subversion=0;rank=%d;size=%d;appnum=0;debugged=FALSE;pmiverbose=FALSE;", rank, f.size)))
		case "job-getid":
			f.reply2(c, rc("cmd=job-getid-response;jobid=4.0;"))
		case "info-getjobattr":
			f.reply2(c, rc(fmt.Sprintf("cmd=info-getjobattr-response;found=TRUE;value=(vector,(0,2,%d));", (f.size+1)/2)))
		case "kvs-put":
			f.mu.Lock()
			f.kvs[m.fields["key"]] = m.fields["value"]
			f.mu.Unlock()
			f.reply2(c, rc("cmd=kvs-put-response;"))
		case "kvs-fence":
			f.barrier()
			f.reply2(c, rc("cmd=kvs-fence-response;"))
		case "kvs-get":
			f.mu.Lock()
			v, ok := f.kvs[m.fields["key"]]
			f.mu.Unlock()
			if ok {
				f.reply2(c, rc("cmd=kvs-get-response;found=TRUE;value="+strings.ReplaceAll(v, ";", ";;")+";"))
			} else {
				f.reply2(c, rc("cmd=kvs-get-response;found=FALSE;"))
			}
		case "abort":
			f.mu.Lock()
			f.aborts = append(f.aborts, m.fields["msg"])
			f.mu.Unlock()
			return
		case "finalize":
			f.reply2(c, rc("cmd=finalize-response;"))
			return
		default:
			f.t.Errorf("fake PMI-2: unexpected %q", m.cmd)
			return
		}
	}
}

// socketPair returns the server's end and the descriptor number of the
// client's end, as a launcher would put it in PMI_FD.
func socketPair(t *testing.T) (net.Conn, int) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	require.NoError(t, err)
	f := os.NewFile(uintptr(fds[0]), "server")
	c, err := net.FileConn(f)
	require.NoError(t, err)
	f.Close()
	return c, fds[1]
}

func envMap(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// runJob runs size PEs of open against one fake server and checks that
// allgathers (including one large enough to be chunked) and barriers work.
func runJob(t *testing.T, f *fakePMI, size int, open func(rank int) (Bootstrap, error)) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for rank := range size {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := open(rank)
			if !assert.NoError(t, err) {
				return
			}
			assert.Equal(t, rank, b.Rank())
			assert.Equal(t, size, b.Size())
			big := bytes.Repeat([]byte{byte(rank), ';', ' ', '='}, 700) // > vallen_max after hex
			for round := range 3 {
				data := []byte(fmt.Sprintf("pe%d-round%d", rank, round))
				if round == 1 {
					data = big
				}
				all, err := b.Allgather(ctx, data)
				if !assert.NoError(t, err) {
					return
				}
				for r := range size {
					want := []byte(fmt.Sprintf("pe%d-round%d", r, round))
					if round == 1 {
						want = bytes.Repeat([]byte{byte(r), ';', ' ', '='}, 700)
					}
					assert.Equal(t, want, all[r])
				}
			}
			assert.NoError(t, b.Barrier(ctx))
			assert.NoError(t, b.Close())
		}()
	}
	wg.Wait()
}

func TestPMIOverFD(t *testing.T) {
	for _, dialect := range []string{"hydra", "slurm"} {
		for _, version := range []string{NamePMI, NamePMI2} {
			t.Run(dialect+"/"+version, func(t *testing.T) {
				const size = 3
				f := newFakePMI(t, dialect, size)
				runJob(t, f, size, func(rank int) (Bootstrap, error) {
					srv, fd := socketPair(t)
					go f.serve(srv, rank)
					env := map[string]string{"PMI_FD": strconv.Itoa(fd), "PMI_RANK": strconv.Itoa(rank), "PMI_SIZE": strconv.Itoa(size)}
					if dialect == "slurm" {
						env["PMI_JOBID"] = "4.0"
						env["SLURM_MPI_TYPE"] = "pmi2"
					}
					name, _, err := Detect(envMap(env))
					require.NoError(t, err)
					if dialect == "slurm" {
						assert.Equal(t, NamePMI2, name)
					} else {
						assert.Equal(t, NamePMI, name)
					}
					b, _, err := Open(context.Background(), Config{Name: version}, envMap(env))
					if err == nil && version == NamePMI2 {
						// (vector,(0,2,2)): ranks 0,1 on node 0, rank 2 on node 1.
						wantLocal := map[int][2]int{0: {0, 2}, 1: {1, 2}, 2: {0, 1}}[rank]
						assert.Equal(t, wantLocal, [2]int{b.LocalRank(), b.LocalSize()})
					}
					return b, err
				})
			})
		}
	}
}

func TestPMIOverPort(t *testing.T) {
	const size = 3
	f := newFakePMI(t, "hydra", size)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		for rank := 0; ; rank++ {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			// The rank comes from the client's pmiid; peek it.
			br := bufio.NewReader(c)
			line, _ := br.ReadString('\n')
			m, _ := parsePMI1(line)
			id, _ := strconv.Atoi(m.fields["pmiid"])
			go f.serve(&prefixConn{Conn: c, r: io.MultiReader(strings.NewReader(line), br)}, id)
		}
	}()
	runJob(t, f, size, func(rank int) (Bootstrap, error) {
		env := map[string]string{"PMI_PORT": ln.Addr().String(), "PMI_ID": strconv.Itoa(rank)}
		name, why, err := Detect(envMap(env))
		require.NoError(t, err)
		assert.Equal(t, NamePMI, name, why)
		b, _, err := Open(context.Background(), Config{}, envMap(env))
		return b, err
	})
}

type prefixConn struct {
	net.Conn
	r io.Reader
}

func (p *prefixConn) Read(b []byte) (int, error) { return p.r.Read(b) }

func TestPMIAbort(t *testing.T) {
	for _, version := range []string{NamePMI, NamePMI2} {
		f := newFakePMI(t, "hydra", 1)
		srv, fd := socketPair(t)
		done := make(chan struct{})
		go func() { f.serve(srv, 0); close(done) }()
		env := envMap(map[string]string{"PMI_FD": strconv.Itoa(fd), "PMI_RANK": "0", "PMI_SIZE": "1"})
		b, _, err := Open(context.Background(), Config{Name: version}, env)
		require.NoError(t, err)
		require.NoError(t, b.Abort(3, "bad things"))
		<-done
		require.Len(t, f.aborts, 1)
		if version == NamePMI {
			assert.Contains(t, f.aborts[0], "exitcode=3")
		} else {
			assert.Contains(t, f.aborts[0], "bad things")
		}
	}
}

func TestPMIServerGone(t *testing.T) {
	srv, fd := socketPair(t)
	go func() {
		br := bufio.NewReader(srv)
		_, _ = br.ReadString('\n')
		srv.Close() // the launcher died
	}()
	env := envMap(map[string]string{"PMI_FD": strconv.Itoa(fd), "PMI_RANK": "0", "PMI_SIZE": "2"})
	_, _, err := Open(context.Background(), Config{Name: NamePMI}, env)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "lost the connection to the launcher's PMI server")
}

func TestDetectMessages(t *testing.T) {
	cases := []struct {
		env  map[string]string
		name string
		err  string
	}{
		{map[string]string{}, NameSingleton, ""},
		{map[string]string{"GSHMEM_LOCAL_ADDR": "@x"}, NameLocal, ""},
		{map[string]string{"PMI_FD": "5", "PMI_RANK": "0", "PMI_SIZE": "2"}, NamePMI, ""},
		{map[string]string{"PMI_FD": "5", "SLURM_MPI_TYPE": "pmi2"}, NamePMI2, ""},
		{map[string]string{"PMI_PORT": "h:1", "PMI_ID": "0"}, NamePMI, ""},
		{map[string]string{"OMPI_COMM_WORLD_RANK": "1", "OMPI_COMM_WORLD_SIZE": "4", "GSHMEM_BOOTSTRAP_ADDR": "h:1"}, NameEnv, ""},
		{map[string]string{"OMPI_COMM_WORLD_RANK": "0", "OMPI_COMM_WORLD_SIZE": "1"}, NameSingleton, ""},
		{map[string]string{"OMPI_COMM_WORLD_RANK": "1", "OMPI_COMM_WORLD_SIZE": "4"}, "", "mpirun -x GSHMEM_BOOTSTRAP_ADDR"},
		{map[string]string{"SLURM_PROCID": "1", "SLURM_NTASKS": "4", "SLURM_STEP_ID": "0"}, "", "srun --mpi=pmi2"},
		{map[string]string{"SLURM_PROCID": "0", "SLURM_NTASKS": "4"}, NameSingleton, ""}, // a batch script
		{map[string]string{"OMPI_COMM_WORLD_RANK": "x", "OMPI_COMM_WORLD_SIZE": "4"}, "", "not a number"},
		{map[string]string{"PMI_RANK": "4", "PMI_SIZE": "4"}, "", "out of range"},
	}
	for _, c := range cases {
		name, why, err := Detect(envMap(c.env))
		if c.err != "" {
			require.Error(t, err, "%v", c.env)
			assert.ErrorIs(t, err, ErrNotDetected)
			assert.Contains(t, err.Error(), c.err)
			continue
		}
		require.NoError(t, err, "%v", c.env)
		assert.Equal(t, c.name, name, "%v: %s", c.env, why)
		assert.NotEmpty(t, why)
	}
	_, _, err := Open(context.Background(), Config{Name: "mpi"}, envMap(nil))
	assert.ErrorIs(t, err, ErrUnknown)
	_, _, err = Open(context.Background(), Config{Name: NamePMI}, envMap(nil))
	assert.ErrorContains(t, err, "needs PMI_FD")
	_, _, err = Open(context.Background(), Config{Name: NamePMI2}, envMap(map[string]string{"SLURM_PROCID": "0"}))
	assert.ErrorContains(t, err, "srun without --mpi=pmi2")
	_, _, err = Open(context.Background(), Config{Name: NameEnv}, envMap(map[string]string{"OMPI_COMM_WORLD_RANK": "0", "OMPI_COMM_WORLD_SIZE": "2"}))
	assert.ErrorContains(t, err, "needs GSHMEM_BOOTSTRAP_ADDR")
}

func TestProcessMapping(t *testing.T) {
	for _, c := range []struct {
		s    string
		size int
		want []int
	}{
		{"(vector,(0,1,1))", 2, []int{0, 0}}, // Hydra, one node: block of 1 repeated
		{"(vector,(0,1,2))", 2, []int{0, 0}},
		{"(vector,(0,2,1))", 4, []int{0, 1, 0, 1}},
		{"(vector,(0,3,2))", 6, []int{0, 0, 1, 1, 2, 2}},
		{"(vector,(0,1,3),(1,1,1))", 4, []int{0, 0, 0, 1}},
	} {
		got, err := parseProcessMapping(c.s, c.size)
		require.NoError(t, err, c.s)
		assert.Equal(t, c.want, got, c.s)
	}
	for _, bad := range []string{"", "(vector)", "(vector,(0,0,1))", "(vector,(0,1))", "(x,(0,1,1))", "(vector,(a,1,1))"} {
		_, err := parseProcessMapping(bad, 4)
		assert.Error(t, err, bad)
	}
}
