package transport

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The health's down words (health.down) live in pages of their own, outside
// Go's heap, so that code in other languages (the C ABI's RMA fast paths)
// may keep their address and load them as the Go fast paths do. A page
// holds many; they are never returned (a word per Connect).
var downPages struct {
	sync.Mutex
	page []byte
	used int
}

func downWord() *atomic.Uint32 {
	downPages.Lock()
	defer downPages.Unlock()
	if downPages.used+4 > len(downPages.page) {
		p, err := unix.Mmap(-1, 0, 4096, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
		if err != nil {
			return new(atomic.Uint32) // Go memory: DownWord then offers none
		}
		downPages.page, downPages.used = p, 0
	}
	w := (*atomic.Uint32)(unsafe.Pointer(&downPages.page[downPages.used]))
	downPages.used += 4
	return w
}
