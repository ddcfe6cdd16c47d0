package transport

import (
	"os"
	"testing"

	"github.com/gshmem/gshmem/internal/guard/outsider"
)

func TestMain(m *testing.M) {
	outsider.Main()
	os.Exit(m.Run())
}
