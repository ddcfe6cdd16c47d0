// Package transcript runs behaviour tests written as data, in the manner
// of etcd-io/raft's and cockroachdb's datadriven tests: a file in
// testdata/ holds commands, each followed by the output it must give, and
// one handler per subject turns a command into its output. A state
// machine's behaviour is then read, reviewed and extended as a
// transcript rather than as code.
//
// A file is a sequence of blocks:
//
//	# a comment (lines starting with #, and blank lines between blocks)
//	name arg arg ...
//	----
//	the expected output, one or more lines,
//	ending at a blank line or the end of the file
//
// Run with -rewrite (go test ./pkg -run X -args -rewrite) to write each
// file back with the outputs the handler gives: review the diff before
// committing it.
package transcript

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var rewrite = flag.Bool("rewrite", false, "transcript: write the outputs the handler gives back into the files")

// Cmd is one command of a transcript.
type Cmd struct {
	Pos  string   // file:line, for messages
	Name string   // the command's first word
	Args []string // the words after it
}

// String is the command as the file writes it.
func (c Cmd) String() string { return strings.Join(append([]string{c.Name}, c.Args...), " ") }

// Arg returns argument i, or "" past the end.
func (c Cmd) Arg(i int) string {
	if i < len(c.Args) {
		return c.Args[i]
	}
	return ""
}

// block is a command and the output the file expects.
type block struct {
	comments []string // lines before the command
	cmd      Cmd
	want     string
}

// parse reads the blocks of a transcript, and the lines after the last.
func parse(path string) ([]block, []string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	var blocks []block
	var pending []string
	sc := bufio.NewScanner(f)
	line := 0
	next := func() (string, bool) {
		if !sc.Scan() {
			return "", false
		}
		line++
		return sc.Text(), true
	}
	for {
		l, ok := next()
		if !ok {
			break
		}
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") {
			pending = append(pending, l)
			continue
		}
		words := strings.Fields(t)
		b := block{comments: pending, cmd: Cmd{Pos: fmt.Sprintf("%s:%d", path, line), Name: words[0], Args: words[1:]}}
		pending = nil
		if sep, ok := next(); !ok || strings.TrimSpace(sep) != "----" {
			return nil, nil, fmt.Errorf("%s: command %q is not followed by ----", b.cmd.Pos, t)
		}
		var out []string
		for {
			o, ok := next()
			if !ok || strings.TrimSpace(o) == "" {
				break
			}
			out = append(out, o)
		}
		b.want = strings.Join(out, "\n")
		blocks = append(blocks, b)
	}
	return blocks, pending, sc.Err()
}

// Run runs the transcript at path through do, which returns a command's
// output (without a trailing newline; "" is written as "ok" by
// convention of the handlers, not by Run). Each mismatch is reported at
// its command's line; with -rewrite the file gets the outputs instead.
func Run(t testing.TB, path string, do func(c Cmd) string) {
	t.Helper()
	blocks, tail, err := parse(path)
	if err != nil {
		t.Fatalf("transcript: %v", err)
	}
	var out strings.Builder
	for _, b := range blocks {
		got := strings.TrimRight(do(b.cmd), "\n")
		if !*rewrite && got != b.want {
			t.Errorf("%s: %s\ngot:\n%s\nwant:\n%s", b.cmd.Pos, b.cmd, got, b.want)
		}
		for _, c := range b.comments {
			out.WriteString(c + "\n")
		}
		fmt.Fprintf(&out, "%s\n----\n%s\n\n", b.cmd, got)
	}
	for _, c := range tail {
		out.WriteString(c + "\n")
	}
	if *rewrite {
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatalf("transcript: rewriting %s: %v", path, err)
		}
	}
}
