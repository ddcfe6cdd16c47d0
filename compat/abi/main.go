//go:build cgo

package main

// main is never called: the library is built with -buildmode=c-shared and
// the C program's own main runs. Go asks for it in a package main.
func main() {}
