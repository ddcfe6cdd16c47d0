//go:build !race

package compat

import "unsafe"

func raceAcquire(unsafe.Pointer) {}
func raceRelease(unsafe.Pointer) {}
