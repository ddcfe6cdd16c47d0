package launchwire

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// The tests of Client against a serving launcher live with the server in
// internal/launcher, which imports this package.

func TestDialNoLauncher(t *testing.T) {
	e := Env{Addr: "@gshmem-test-nobody-listens", NPEs: 1, LocalSize: 1, Secret: []byte{1}}
	_, err := Dial(testCtx(t), e)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "connecting to the gshmem run launcher")
}
