package mpierr

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gshmem/gshmem/shmem"
)

func TestClassesAndWrapping(t *testing.T) {
	err := Errorf(ClassRank, "rank %d of %d", 5, 4)
	assert.ErrorIs(t, err, ErrRank)
	assert.NotErrorIs(t, err, ErrTag)
	assert.Equal(t, ClassRank, ClassOf(err))
	assert.Equal(t, "MPI_ERR_RANK: rank 5 of 4", err.Error())
	assert.Equal(t, ClassSuccess, ClassOf(nil))
	assert.Equal(t, ClassOther, ClassOf(errors.New("x")))
	assert.Equal(t, "Class(99)", Class(99).String())

	w := Wrap(shmem.ErrBadPE, nil, "put")
	assert.ErrorIs(t, w, ErrRank)
	assert.ErrorIs(t, w, shmem.ErrBadPE)
	assert.ErrorIs(t, Wrap(shmem.ErrAborted, nil, "wait"), ErrOther)
	lost := Wrap(fmt.Errorf("%w: PE 2 was killed", shmem.ErrPeerLost), nil, "recv")
	assert.ErrorIs(t, lost, ErrProcFailed)
	assert.ErrorIs(t, lost, shmem.ErrPeerLost)
	assert.Equal(t, "MPIX_ERR_REVOKED", ClassRevoked.String())
	assert.ErrorIs(t, Wrap(shmem.ErrOutOfBounds, func(error) Class { return ClassRMARange }, "put"), ErrRMARange)
	assert.Same(t, err, Wrap(err, nil, "again"), "an MPI error passes through")
	assert.NoError(t, Wrap(nil, nil, "nothing"))
}
