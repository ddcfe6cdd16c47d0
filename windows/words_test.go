package windows

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWithArticle(t *testing.T) {
	assert.Equal(t, "an exclusive", withArticle(LockExclusive.String()))
	assert.Equal(t, "a shared", withArticle(LockShared.String()))
	assert.Equal(t, "an allocate", withArticle("allocate"))
	assert.Equal(t, "a dynamic", withArticle("dynamic"))
}
