package mpitype

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

type celsius float64

func TestOfSizeString(t *testing.T) {
	assert.Equal(t, BasicInt64, Of[int]())
	assert.Equal(t, BasicFloat64, Of[celsius]())
	assert.Equal(t, BasicUint8, Of[byte]())
	assert.Equal(t, BasicDoubleInt, Of[DoubleInt]())
	assert.Equal(t, 12, BasicDoubleInt.Size())
	assert.Equal(t, 16, BasicDoubleInt.Extent())
	assert.Equal(t, BasicTwoDouble, Of[TwoDouble]())
	assert.Equal(t, 0, Basic(200).Size())
	assert.Equal(t, "MPI_2INT", BasicTwoInt.String())
	assert.Equal(t, "Basic(200)", Basic(200).String())
}
