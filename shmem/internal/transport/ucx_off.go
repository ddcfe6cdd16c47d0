//go:build !ucx || !cgo

package transport

import (
	"context"
	"fmt"
)

// UCXBuilt says whether this program can reach remote peers over UCX: it
// needs cgo, libucx-dev and the ucx build tag.
const UCXBuilt = false

func startUCX(context.Context, ucxConfig) (remote, []string, error) {
	return nil, nil, fmt.Errorf("transport: the ucx transport is not in this build: %w", errUnsupported)
}
