package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func handler(c Cmd) string {
	switch c.Name {
	case "echo":
		return strings.Join(c.Args, " ")
	case "upper":
		return strings.ToUpper(strings.Join(c.Args, " "))
	case "lines":
		return strings.Join(c.Args, "\n")
	}
	return "unknown command " + c.Name
}

func TestTranscript(t *testing.T) { Run(t, "testdata/echo.txt", handler) }

// fakeT records the failures Run reports.
type fakeT struct {
	testing.TB
	errs []string
}

func (f *fakeT) Helper()                           {}
func (f *fakeT) Errorf(format string, args ...any) { f.errs = append(f.errs, format) }
func (f *fakeT) Fatalf(format string, args ...any) {
	f.errs = append(f.errs, "fatal: "+format)
	panic(f)
}

func TestMismatchAndRewrite(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.txt")
	require.NoError(t, os.WriteFile(p, []byte("# c\necho a\n----\nb\n\nupper q\n----\nQ\n"), 0o644))
	f := &fakeT{}
	Run(f, p, handler)
	require.Len(t, f.errs, 1, "one mismatch: echo a gives a, not b")
	*rewrite = true
	defer func() { *rewrite = false }()
	Run(f, p, handler)
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	require.Equal(t, "# c\necho a\n----\na\n\nupper q\n----\nQ\n\n", string(b))
	*rewrite = false
	g := &fakeT{}
	Run(g, p, handler)
	require.Empty(t, g.errs)
}

func TestMalformed(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bad.txt")
	require.NoError(t, os.WriteFile(p, []byte("echo a\nno separator\n"), 0o644))
	f := &fakeT{}
	func() {
		defer func() { recover() }()
		Run(f, p, handler)
	}()
	require.Len(t, f.errs, 1)
	require.Contains(t, f.errs[0], "fatal")
}
