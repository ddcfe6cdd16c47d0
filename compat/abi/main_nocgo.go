//go:build !cgo

package main

import (
	"fmt"
	"os"
)

// Without cgo there is no C library to build; the package still compiles
// so that CGO_ENABLED=0 go build ./... stays green.
func main() {
	fmt.Fprintln(os.Stderr, "libmpi_abi needs cgo: build it with CGO_ENABLED=1 go build -buildmode=c-shared (see gshmem abi install)")
	os.Exit(2)
}
