package racesync_test

import (
	"sync/atomic"
	"syscall"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/internal/racesync"
)

// TestOrdersHandoffThroughMappedWord hands a plain write in Go memory
// from one goroutine to two others through a flag in mapped memory, as
// goroutine PEs do through the heap: the detector ignores atomics outside
// Go's memory, so without the token a race build reports this handoff.
func TestOrdersHandoffThroughMappedWord(t *testing.T) {
	page, err := syscall.Mmap(-1, 0, 4096, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_SHARED)
	require.NoError(t, err)
	defer func() { _ = syscall.Munmap(page) }()
	flag := (*uint32)(unsafe.Pointer(&page[0]))

	var data [3]int
	done := make(chan int, 2)
	for i := range 2 {
		go func() {
			for atomic.LoadUint32(flag) == 0 {
			}
			racesync.Acquire()
			v := data[0]
			data[1+i]++ // a write too, ordered after the writer's
			done <- v
		}()
	}
	data = [3]int{41, 1, 1}
	racesync.Release()
	atomic.StoreUint32(flag, 1)
	assert.Equal(t, 41, <-done)
	assert.Equal(t, 41, <-done)
}
