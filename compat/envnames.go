package compat

import "github.com/gshmem/gshmem/internal/envnames"

// The GSHMEM_MPI_* variables are read only where compat is linked in; the
// core's check for misspelled variables learns them here.
func init() {
	for _, s := range Settings {
		envnames.Register(s.Name)
	}
}
