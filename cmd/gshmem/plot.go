package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/gshmem/gshmem/cmd/gshmem/internal/perf"
)

// Plotting lives in the gshmem-plot command: the plotting library and its
// dozen modules would otherwise be downloaded and built by everyone who
// runs `go run ./cmd/gshmem` or installs the launcher. --plot finds that
// command and asks it whether the file can be written before measuring.

const plotCmd = "gshmem-plot"

var errNoPlotter = errors.New("perf: --plot needs the gshmem-plot command, installed beside gshmem or in PATH: " +
	"go install github.com/gshmem/gshmem/cmd/gshmem-plot@latest (or write --json FILE and plot it later with gshmem-plot FILE OUT.png)")

// findPlotter looks beside this binary first (go install puts both in one
// directory), then in PATH.
func findPlotter() (string, error) {
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), plotCmd)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	if p, err := exec.LookPath(plotCmd); err == nil {
		return p, nil
	}
	return "", errNoPlotter
}

// checkPlot refuses a --plot file that cannot be written, before anything
// is measured.
func checkPlot(ctx context.Context, file string) error {
	if file == "" {
		return nil
	}
	p, err := findPlotter()
	if err != nil {
		return err
	}
	return runPlotter(ctx, p, "--check", file)
}

// plot hands rows to gshmem-plot on its standard input.
func plot(cli perf.CLI, rows []perf.Row) error {
	p, err := findPlotter()
	if err != nil {
		return err
	}
	var js bytes.Buffer
	if err := perf.WriteJSON(&js, rows); err != nil {
		return err
	}
	cmd := exec.Command(p, "-", cli.Plot)
	cmd.Stdin = &js
	return plotterErr(cmd)
}

func runPlotter(ctx context.Context, p string, args ...string) error {
	return plotterErr(exec.CommandContext(ctx, p, args...))
}

// plotterErr runs cmd and turns its message into this command's error.
func plotterErr(cmd *exec.Cmd) error {
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return fmt.Errorf("perf: --plot: %s", msg)
		}
		return fmt.Errorf("perf: --plot: %s: %w", cmd.Path, err)
	}
	return nil
}
