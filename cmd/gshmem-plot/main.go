// Command gshmem-plot draws the rows that `gshmem perf --json FILE` wrote
// as curves over message size (or bars, for tests of one size):
//
//	gshmem perf put_bw --json put_bw.json
//	gshmem-plot put_bw.json put_bw.png
//
// It is a command of its own so that the launcher and perf (the gshmem
// binary) do not carry the plotting library and its modules: most users
// never plot, and `go run`/`go install` of gshmem stays quick. `gshmem perf
// --plot FILE` runs this command when it is installed.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// errPlot marks every failure to draw, so callers and tests can tell them
// from usage errors.
var errPlot = errors.New("gshmem-plot")

// Row is the part of a `gshmem perf --json` row that a plot needs.
type Row struct {
	Test          string  `json:"test"`
	Kind          string  `json:"kind"` // "latency" or "bandwidth": the column plotted
	Size          int     `json:"size"`
	LatencyUS     float64 `json:"latency_us"`
	BandwidthGBps float64 `json:"bandwidth_gbps"`
	PEs           int     `json:"pes"`
	Op            string  `json:"op"`
}

// formats are the extensions gonum/plot writes.
var formats = []string{".png", ".svg", ".pdf"}

// CheckFile says whether file can be written as a plot: a known extension
// in a directory that exists. gshmem perf --plot asks before it measures.
func CheckFile(file string) error {
	ext := strings.ToLower(filepath.Ext(file))
	known := false
	for _, f := range formats {
		known = known || ext == f
	}
	if !known {
		return fmt.Errorf("%w: %s: the format follows the extension, one of %s", errPlot, file, strings.Join(formats, ", "))
	}
	dir := filepath.Dir(file)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("%w: %s: directory %s does not exist", errPlot, file, dir)
	}
	return nil
}

// save writes the plot through a temporary file in the same directory, so
// that a failure leaves no empty or partial file behind.
func save(p *plot.Plot, file string) error {
	w, err := p.WriterTo(8*vg.Inch, 5*vg.Inch, strings.TrimPrefix(filepath.Ext(file), "."))
	if err != nil {
		return fmt.Errorf("%w: %w", errPlot, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), ".gshmem-plot-*")
	if err != nil {
		return fmt.Errorf("%w: %w", errPlot, err)
	}
	_, err = w.WriteTo(tmp)
	if err == nil {
		// CreateTemp makes the file 0600; a plot is a document, as a
		// file made by os.Create would be.
		err = tmp.Chmod(0o644)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), file)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("%w: writing %s: %w", errPlot, file, err)
	}
	return nil
}

// ReadRows reads a JSON array of rows.
func ReadRows(in io.Reader) ([]Row, error) {
	var rows []Row
	if err := json.NewDecoder(in).Decode(&rows); err != nil {
		return nil, fmt.Errorf("%w: reading rows: %w", errPlot, err)
	}
	return rows, nil
}

func run(args []string, stdin io.Reader) error {
	if len(args) == 2 && args[0] == "--check" {
		// gshmem perf --plot asks this before it measures.
		return CheckFile(args[1])
	}
	if len(args) != 2 || args[0] == "-h" || args[0] == "--help" {
		return errUsage
	}
	if err := CheckFile(args[1]); err != nil {
		return err
	}
	in := stdin
	if args[0] != "-" {
		f, err := os.Open(args[0])
		if err != nil {
			return fmt.Errorf("%w: %w", errPlot, err)
		}
		defer f.Close()
		in = f
	}
	rows, err := ReadRows(in)
	if err != nil {
		return err
	}
	return Plot(args[1], rows)
}

var errUsage = errors.New(`usage: gshmem-plot ROWS.json|- FILE.png|.svg|.pdf   draw the rows of gshmem perf --json
       gshmem-plot --check FILE                        say whether FILE can be written as a plot`)

func main() {
	err := run(os.Args[1:], os.Stdin)
	switch {
	case err == nil:
	case errors.Is(err, errUsage):
		fmt.Fprintln(os.Stderr, err)
		if len(os.Args) == 2 && (os.Args[1] == "-h" || os.Args[1] == "--help") {
			return
		}
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
