package doorbell

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
)

// TestBellLayout pins the words the ucx transport's C side reads from a
// heap's bell without Go (gs_amo_fast in shmem/internal/transport/
// ucx_shim.c: bell[1] user, bell[2] ctrl, bell[3] lock, as uint32 words).
// A change here must change that code too.
func TestBellLayout(t *testing.T) {
	var b Bell
	assert.Equal(t, uintptr(Size), unsafe.Sizeof(b))
	assert.Equal(t, uintptr(0), unsafe.Offsetof(b.seq))
	assert.Equal(t, uintptr(1*4), unsafe.Offsetof(b.user), "bell[1] in ucx_shim.c")
	assert.Equal(t, uintptr(2*4), unsafe.Offsetof(b.ctrl), "bell[2] in ucx_shim.c")
	assert.Equal(t, uintptr(3*4), unsafe.Offsetof(b.lock), "bell[3] in ucx_shim.c")
	assert.Equal(t, unsafe.Pointer(&b.user), unsafe.Pointer(b.UserWaiters()))
}
