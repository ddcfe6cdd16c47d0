//go:build cgo

package main

import (
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// The C and C++ programs are compiled once each: compile keeps the result
// of a source and its flags, so a program two tests run is built once, and
// a whole run of the package (no -run) compiles the programs of prebuilt
// up front, GOMAXPROCS at a time, before the first test runs one. One
// mpicc at a time left all but one CPU idle for the 40-odd compilations;
// compiling up front rather than beside the tests keeps their jobs (and
// their peer-loss deadlines) from sharing the CPUs with the compiler.

// prebuilt lists the programs compile builds ahead, in the order the tests
// run them. It leaves out the programs that need something a test makes
// first (pmpi.c links the test's libprof) or a toolchain a test probes
// (kern_drv.c, CUDA's); TestPrebuiltCoversCompile keeps it complete.
var prebuilt = []program{
	{src: "env.c"}, {src: "wtime.c", extra: []string{"-pthread"}}, {src: "p2p.c"}, {src: "p2pfast.c"}, {src: "p2pdtype.c"},
	{src: "comm.c"}, {src: "coll.c"}, {src: "rma.c"}, {src: "rmafast.c"}, {src: "errors.c"},
	{src: "fatal.c"}, {src: "errworld.c"}, {src: "abort.c"}, {src: "hello.cpp"}, {src: "topo.c"},
	{src: "userop.c"}, {src: "attr.c"}, {src: "misc.c"}, {src: "dtypes.c"}, {src: "dtypes2.c"},
	{src: "pairs.c"}, {src: "useropdt.c"},
	{src: "nbc.c"}, {src: "mprobe.c"}, {src: "largecount.c"}, {src: "pcoll.c"}, {src: "neighbor.c"},
	{src: "requests.c"}, {src: "modes.c", extra: []string{"-pthread"}},
	{src: "cudaquery.c"}, {src: "cudanbc.c", extra: []string{"-I", filepath.Join("testdata", "cudashim")}},
	{src: "file.c"}, {src: "filenbc.c"}, {src: "gshmem.c"}, {src: "gshmem_cxx.cpp"}, {src: "gshmem_mpi.c"},
	{src: "gshmem_fatal.c"}, {src: "intercomm.c"}, {src: "commfix.c"}, {src: "commfree.c"}, {src: "session.c"},
	{src: "peerloss.c"}, {src: "wincreate.c"}, {src: "rmafault.c"}, {src: "threads.c", extra: []string{"-pthread"}}, {src: "dynproc.c"}, {src: "mpit.c"}, {src: "shrink.c"}, {src: "conform.c"}, {src: "spawn.c"}, {src: "spawnfail.c"}, {src: "port.c"}, {src: "join.c"}, {src: "hwinfo.c"}, {src: "dynwin.c"}, {src: "winhandle.c"}, {src: "finloss.c"}, {src: "dynfin.c"}, {src: "revoke.c"}, {src: "anysrc.c"}, {src: "commthreads.c", extra: []string{"-pthread"}}, {src: "lockthreads.c", extra: []string{"-pthread"}}, {src: "idupthreads.c", extra: []string{"-pthread"}},
}

// notPrebuilt are the sources compile is called with that prebuilt leaves
// out, and why.
var notPrebuilt = map[string]string{
	"pmpi.c":     "links libprof, which TestProfilingInterface builds first",
	"kern_drv.c": "needs CUDA and the cubin TestKern builds with nvcc first",
}

// program is a test program: a testdata source and the wrapper's extra
// flags.
type program struct {
	src   string
	extra []string
}

func (p program) key() string { return p.src + "\x00" + strings.Join(p.extra, "\x00") }

// built is one program's compilation, done once.
type built struct {
	once sync.Once
	exe  string
	err  error
	out  []byte // the wrapper's output when it failed
	args []string
}

var builds struct {
	mu       sync.Mutex
	m        map[string]*built
	prebuild sync.Once
}

func buildOf(p program) *built {
	builds.mu.Lock()
	defer builds.mu.Unlock()
	if builds.m == nil {
		builds.m = map[string]*built{}
	}
	b := builds.m[p.key()]
	if b == nil {
		b = &built{}
		builds.m[p.key()] = b
	}
	return b
}

// do compiles p with the installed wrapper unless that is done already.
func (b *built) do(p program) {
	b.once.Do(func() {
		wrapper := "mpicc"
		if strings.HasSuffix(p.src, ".cpp") {
			wrapper = "mpicxx"
		}
		b.exe = filepath.Join(tool.bin, strings.TrimSuffix(p.src, filepath.Ext(p.src)))
		b.args = append([]string{"-Wall", "-Wextra", "-Werror", "-o", b.exe, filepath.Join("testdata", p.src)}, p.extra...)
		b.out, b.err = exec.Command(filepath.Join(tool.prefix, "bin", wrapper), b.args...).CombinedOutput()
	})
}

// prebuild compiles prebuilt, GOMAXPROCS at a time, when the whole package
// runs (with -run only the programs asked for are compiled, by compile).
// Failures are kept and reported by the test that compiles the program.
func prebuild() {
	builds.prebuild.Do(func() {
		if f := flag.Lookup("test.run"); f != nil && f.Value.String() != "" {
			return
		}
		work := make(chan program)
		var wg sync.WaitGroup
		for range runtime.GOMAXPROCS(0) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for p := range work {
					buildOf(p).do(p)
				}
			}()
		}
		for _, p := range prebuilt {
			work <- p
		}
		close(work)
		wg.Wait()
	})
}

// TestPrebuiltCoversCompile checks that every source the tests pass to
// compile is in prebuilt or in notPrebuilt, so that a new test program is
// compiled ahead with the others (or says why not).
func TestPrebuiltCoversCompile(t *testing.T) {
	known := map[string]bool{}
	for _, p := range prebuilt {
		known[p.src] = true
	}
	files, err := filepath.Glob("*_test.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	seen := 0
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) < 2 {
				return true
			}
			if id, ok := call.Fun.(*ast.Ident); !ok || id.Name != "compile" {
				return true
			}
			lit, ok := call.Args[1].(*ast.BasicLit)
			require.True(t, ok && lit.Kind == token.STRING, "%s: compile's source is not a string literal", fset.Position(call.Pos()))
			src, err := strconv.Unquote(lit.Value)
			require.NoError(t, err)
			seen++
			_, skip := notPrebuilt[src]
			require.True(t, known[src] || skip, "%s: %s is neither in prebuilt nor in notPrebuilt (prebuild_test.go)", fset.Position(call.Pos()), src)
			return true
		})
	}
	require.Greater(t, seen, len(notPrebuilt), "no compile calls found: the check reads nothing")
}
