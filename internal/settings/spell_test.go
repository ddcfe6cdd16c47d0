package settings

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFind(t *testing.T) {
	known := []string{"GSHMEM_SYMMETRIC_SIZE", "GSHMEM_DEBUG", "GSHMEM_DEBUG_FILE", "GSHMEM_NPES", "GSHMEM_MPI_RING_SIZE"}
	env := []string{
		"PATH=/bin", "GSHMEM_SYMETRIC_SIZE=2g", "GSHMEM_DEBGU=info", "GSHMEM_DEBUG=warn",
		"GSHMEM_MPI_RING_SIZE=64k", "GSHMEM_MPI_RNG_SIZE=64k", "GSHMEM_PETEST_CHILD=1", "GSHMEM_DEBGU=again",
	}
	got := Find(env, known)
	assert.Equal(t, []Unknown{
		{Name: "GSHMEM_DEBGU", Closest: "GSHMEM_DEBUG"},
		{Name: "GSHMEM_MPI_RNG_SIZE", Closest: "GSHMEM_MPI_RING_SIZE"},
		{Name: "GSHMEM_PETEST_CHILD"},
		{Name: "GSHMEM_SYMETRIC_SIZE", Closest: "GSHMEM_SYMMETRIC_SIZE"},
	}, got)
	assert.Equal(t, "gshmem: warning: GSHMEM_DEBGU is not a gshmem variable and is ignored; did you mean GSHMEM_DEBUG?", Warning(got[0]))
	assert.Empty(t, Warning(got[2]), "a name far from every variable is not warned about")
	assert.Empty(t, Find([]string{"GSHMEM_DEBUG=1", "HOME=/root"}, known))
}

func TestDistance(t *testing.T) {
	assert.Equal(t, 0, distance("abc", "abc"))
	assert.Equal(t, 1, distance("abc", "acb"), "a swap is one edit")
	assert.Equal(t, 1, distance("abc", "abcd"))
	assert.Equal(t, 3, distance("", "abc"))
	assert.Equal(t, 2, distance("kitten", "sitting")-1)
}
