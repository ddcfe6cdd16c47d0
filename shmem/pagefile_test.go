package shmem_test

import (
	"os"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
)

// A page file takes the pages of private memory that hold data (a page
// never written stays a hole), is mapped in their place and over a PE's
// view of a heap range, where stores through the heap reach the memory
// itself (a goroutine peer's too: one view serves the process; a process
// peer overlays its own view, which windows' tests cover); Undo gives the
// view its heap pages back and leaves the memory with what it holds.
func TestPageFileOverlay(t *testing.T) {
	petest.Run(t, 2, func(t *petest.T, w *shmem.World) {
		require.True(t, w.CanOverlay())
		page := os.Getpagesize()
		n := 4 * page
		mem, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
		require.NoError(t, err)
		defer unix.Munmap(mem)
		mem[0], mem[2*page+5] = 11, 22 // pages 1 and 3 never written
		at := uintptr(unsafe.Pointer(&mem[0]))
		sym, err := shmem.Calloc[byte](w, n+page)
		require.NoError(t, err)
		skip := (page - int(sym.Offset())%page) % page
		sub := sym.Slice(skip, skip+n)
		f, err := w.NewPageFile(at, n, [][2]int{{0, n}})
		require.NoError(t, err)
		require.NoError(t, f.MapOver(0, n))
		o, err := w.Overlay(sub, w.MyPE(), f.Fd(), 0)
		require.NoError(t, err)
		f.Close() // the mappings keep the file
		assert.Equal(t, []byte{11, 0, 22}, []byte{sub.Local()[0], sub.Local()[page], sub.Local()[2*page+5]})
		require.NoError(t, w.BarrierAll())
		peer := w.MyPE()
		if w.BootstrapName() == "inproc" {
			peer = 1 - peer
		}
		require.NoError(t, shmem.Put(sub.Slice(3*page+1, 3*page+2), []byte{byte(40 + w.MyPE())}, peer))
		require.NoError(t, w.BarrierAll())
		assert.Equal(t, byte(40+peer), mem[3*page+1], "a put through the heap is in the memory itself")
		require.NoError(t, w.BarrierAll())
		require.NoError(t, o.Undo())
		assert.Equal(t, byte(0), sub.Local()[0], "the heap view has its own pages again")
		assert.Equal(t, []byte{11, 22, byte(40 + peer)}, []byte{mem[0], mem[2*page+5], mem[3*page+1]})
		require.NoError(t, w.BarrierAll())
		require.NoError(t, shmem.Free(sym))
	})
}
