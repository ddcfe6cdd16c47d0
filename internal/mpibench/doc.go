// Package mpibench is the harness of the OSU-shaped MPI benchmarks: the
// point-to-point and collective patterns over compat (Bench) and the
// one-sided epoch patterns over windows (Window, SyncMode, Pattern). Both
// `gshmem perf` and the Go benchmarks of compat and windows run them, so
// they live in one place inside the module rather than in those packages'
// exported API; they use only that API.
package mpibench
