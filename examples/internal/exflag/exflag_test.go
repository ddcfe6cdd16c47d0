package exflag

import (
	"bytes"
	"errors"
	"flag"
	"testing"

	"github.com/stretchr/testify/assert"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestParseSpeaksOncePerJob(t *testing.T) {
	newFS := func() (*flag.FlagSet, *int) {
		fs := flag.NewFlagSet("ex", flag.ExitOnError)
		return fs, fs.Int("cells", 1, "cells")
	}
	check := func(n *int) func() error {
		return func() error {
			if *n < 1 {
				return errors.New("-cells must be at least 1")
			}
			return nil
		}
	}
	for rank, speaks := range map[string]bool{"0": true, "3": false, "": true} {
		var out bytes.Buffer
		fs, n := newFS()
		code, done := parse(fs, []string{"-h"}, check(n), &out, env(map[string]string{"GSHMEM_RANK": rank}))
		assert.True(t, done)
		assert.Equal(t, 0, code, "-h exits 0")
		assert.Equal(t, speaks, bytes.Contains(out.Bytes(), []byte("-cells")), "rank %q usage", rank)

		out.Reset()
		fs, n = newFS()
		code, done = parse(fs, []string{"-nope"}, check(n), &out, env(map[string]string{"GSHMEM_RANK": rank}))
		assert.True(t, done)
		assert.Equal(t, 2, code)
		assert.Equal(t, speaks, bytes.Contains(out.Bytes(), []byte("flag provided but not defined: -nope")), "rank %q", rank)

		out.Reset()
		fs, n = newFS()
		code, done = parse(fs, []string{"-cells", "0"}, check(n), &out, env(map[string]string{"GSHMEM_RANK": rank}))
		assert.True(t, done)
		assert.Equal(t, 2, code)
		assert.Equal(t, speaks, out.String() == "ex: -cells must be at least 1\n", "rank %q: %q", rank, out.String())
	}
	fs, n := newFS()
	code, done := parse(fs, []string{"-cells", "5"}, check(n), &bytes.Buffer{}, env(nil))
	assert.False(t, done)
	assert.Equal(t, 0, code)
	assert.Equal(t, 5, *n)
	assert.False(t, First(env(map[string]string{"OMPI_COMM_WORLD_RANK": "1"})))
}
