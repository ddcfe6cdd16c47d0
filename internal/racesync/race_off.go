//go:build !race

package racesync

// Release is empty outside race builds.
func Release() {}

// Acquire is empty outside race builds.
func Acquire() {}
