// Package test holds integration tests that cross packages or processes:
// the gshmem CLI launching real jobs, faults, and what a job leaves behind.
package test
