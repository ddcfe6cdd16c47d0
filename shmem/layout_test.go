package shmem_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const module = "github.com/gshmem/gshmem"

// coreMayNotImport are the packages above the core (README, Layout): the
// stages, the launcher and the CLI. The core (shmem and shmem/internal/...)
// must not depend on any of them, or on anything under them, so that every
// PE binary links the core alone and the layers can change without
// touching it.
var coreMayNotImport = []string{"internal/launcher", "kernels", "compat", "windows", "streams", "cmd"}

// listedPackage is the part of `go list -json` this test reads.
type listedPackage struct {
	ImportPath string
	Imports    []string
	DepOnly    bool
	Error      *struct{ Err string }
}

// TestCoreImports holds the core to the layout rule with and without the
// cuda tag (the CUDA backend has imports of its own), and names the import
// chain that breaks it.
func TestCoreImports(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH; the import rule is checked where it is (.ci/run)")
	}
	for _, tags := range []string{"", "cuda"} {
		t.Run("tags="+tags, func(t *testing.T) {
			pkgs := goList(t, goBin, tags)
			var roots []string
			for _, p := range pkgs {
				require.Nil(t, p.Error, "go list: %s", p.ImportPath)
				if !p.DepOnly {
					roots = append(roots, p.ImportPath)
				}
			}
			require.Contains(t, roots, module+"/shmem")
			require.Contains(t, roots, module+"/shmem/internal/bootstrap")
			if tags == "cuda" {
				require.Contains(t, roots, module+"/shmem/internal/cuda")
			}
			for _, root := range roots {
				if chain := forbiddenChain(pkgs, root); chain != nil {
					t.Errorf("%s imports a package above the core: %s", rel(root), strings.Join(chain, " -> "))
				}
			}
		})
	}
}

// goList runs `go list -deps -json` over shmem/... (the test runs in shmem/).
func goList(t *testing.T, goBin, tags string) map[string]listedPackage {
	t.Helper()
	args := []string{"list", "-deps", "-json", "-e"}
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	cmd := exec.Command(goBin, append(args, "./...")...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go %s: %s", strings.Join(args, " "), stderr.String())
	pkgs := map[string]listedPackage{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		err := dec.Decode(&p)
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		pkgs[p.ImportPath] = p
	}
	return pkgs
}

// forbiddenChain returns the import chain from root to the first package
// of coreMayNotImport it reaches (breadth first, so the shortest), or nil.
func forbiddenChain(pkgs map[string]listedPackage, root string) []string {
	from := map[string]string{root: ""}
	queue := []string{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if aboveCore(p) {
			var chain []string
			for q := p; q != ""; q = from[q] {
				chain = append(chain, rel(q))
			}
			slices.Reverse(chain)
			return chain
		}
		for _, imp := range pkgs[p].Imports {
			if _, seen := from[imp]; !seen && strings.HasPrefix(imp, module+"/") {
				from[imp] = p
				queue = append(queue, imp)
			}
		}
	}
	return nil
}

func aboveCore(path string) bool {
	r := rel(path)
	for _, f := range coreMayNotImport {
		if r == f || strings.HasPrefix(r, f+"/") {
			return true
		}
	}
	return false
}

func rel(path string) string { return strings.TrimPrefix(path, module+"/") }
