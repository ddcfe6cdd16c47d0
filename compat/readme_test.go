package compat_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
)

// The README's table documents every variable compat reads.
func TestReadmeListsEverySetting(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	for _, s := range compat.Settings {
		assert.True(t, strings.Contains(string(b), "| `"+s.Name+"` |"), "README lacks a row for %s", s.Name)
	}
}
