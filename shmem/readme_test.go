package shmem_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/shmem"
)

// The README's table documents every variable the runtime reads.
func TestReadmeListsEverySetting(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	for _, s := range shmem.Settings {
		assert.True(t, strings.Contains(string(b), "| `"+s.Name+"` |"), "README lacks a row for %s", s.Name)
	}
}
