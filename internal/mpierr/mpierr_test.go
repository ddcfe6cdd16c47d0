package mpierr

import (
	"errors"
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
	assert.ErrorIs(t, Wrap(shmem.ErrOutOfBounds, func(error) Class { return ClassRMARange }, "put"), ErrRMARange)
	assert.Same(t, err, Wrap(err, nil, "again"), "an MPI error passes through")
	assert.NoError(t, Wrap(nil, nil, "nothing"))
}
