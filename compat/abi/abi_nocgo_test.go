//go:build !cgo

package main

import "testing"

func TestNeedsCgo(t *testing.T) {
	t.Skip("libmpi_abi.so.1 and its C tests need cgo (CGO_ENABLED=1) and a C compiler")
}
