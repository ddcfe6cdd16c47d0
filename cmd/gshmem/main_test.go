package main

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestErrLinePrefixesOnce(t *testing.T) {
	assert.Equal(t, "gshmem run: no program given", errLine(errors.New("gshmem run: no program given")))
	assert.Equal(t, "gshmem: perf: unknown test", errLine(errors.New("perf: unknown test")))
}
