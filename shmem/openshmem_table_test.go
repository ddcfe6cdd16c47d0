package shmem_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exportedNames returns the package's exported top-level names and its
// methods as Type.Method: what go doc ./shmem lists.
func exportedNames(t *testing.T) map[string]bool {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	names := map[string]bool{}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, d := range af.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					names[d.Name.Name] = true
					continue
				}
				typ := d.Recv.List[0].Type
				if s, ok := typ.(*ast.StarExpr); ok {
					typ = s.X
				}
				switch x := typ.(type) {
				case *ast.IndexExpr:
					typ = x.X
				case *ast.IndexListExpr:
					typ = x.X
				}
				if id, ok := typ.(*ast.Ident); ok {
					names[id.Name+"."+d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					switch sp := sp.(type) {
					case *ast.TypeSpec:
						names[sp.Name.Name] = true
					case *ast.ValueSpec:
						for _, n := range sp.Names {
							names[n.Name] = true
						}
					}
				}
			}
		}
	}
	return names
}

// Every Go name the OpenSHMEM table of the porting guide gives exists, and
// every routine the issue lists has a row.
func TestOpenSHMEMTableNamesExist(t *testing.T) {
	b, err := os.ReadFile("../porting-guide/07-openshmem.md")
	require.NoError(t, err)
	names := exportedNames(t)
	ref := regexp.MustCompile("`(?:shmem\\.([A-Z]\\w*)|(World|Team|Ctx|Sym)\\.([A-Z]\\w*))`")
	seen := 0
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		for _, m := range ref.FindAllStringSubmatch(line, -1) {
			seen++
			name := m[1]
			if name == "" {
				name = m[2] + "." + m[3]
			}
			assert.True(t, names[name], "the table names %s, which package shmem does not have", m[0])
		}
	}
	assert.Greater(t, seen, 150, "the table's Go names were not found")
	for _, c := range []string{"shmem_realloc", "shmem_malloc_with_hints", "shmem_pe_accessible", "shmem_addr_accessible",
		"shmem_ctx_create", "shmem_team_create_ctx", "shmem_set_lock", "shmem_test_any_vector", "shmem_atomic_fetch_add_nbi",
		"shmem_info_get_version", "shmem_query_thread", "shmem_pcontrol", "shmem_signal_fetch", "shmem_team_split_2d"} {
		assert.Contains(t, string(b), "| `"+c+"`", "no row for %s", c)
	}
}
