package windows_test

import (
	"fmt"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/internal/transcript"
	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/windows"
)

// TestEpochTranscripts drives the window epoch machine (fence, lock,
// lock-all and post/start/complete/wait epochs, the RMA calls allowed in
// each, and their errors) through the transcripts in
// testdata/epochs/*.txt, on one PE whose window is both origin and
// target: every transition is a line of a file, and a new rule a new
// block.
//
// Commands (T is a target rank, K an element of 8 int64s, V a value):
//
//	window allocate|create|shared|dynamic    free
//	fence [noprecede|nosucceed|nostore|noput ...]
//	lock exclusive|shared T [nocheck]    unlock T    lockall [nocheck]    unlockall
//	post    start    complete    wait    test
//	put T K V    get T K    got    acc T K V    fop T K V    cas T K COMPARE V
//	flush T    flushlocal T    flushall    sync    local K
//
// Each prints ok, a value, or "error: " and the MPI error class.
func TestEpochTranscripts(t *testing.T) {
	files, _ := filepath.Glob("testdata/epochs/*.txt")
	if len(files) == 0 {
		t.Fatal("no transcripts in testdata/epochs")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			petest.RunConfig(t, petest.Config{N: 1, Modes: []string{"inproc"}}, func(pt *petest.T, w *shmem.World) {
				h := &epochs{t: pt, w: w}
				transcript.Run(t, f, h.do)
				if h.x != nil {
					h.x.free(pt)
				}
			})
		})
	}
}

type epochs struct {
	t   *petest.T
	w   *shmem.World
	x   *tw
	got []int64 // the last get's result
}

var assertNames = map[string]windows.Assert{
	"nocheck": windows.ModeNoCheck, "nostore": windows.ModeNoStore, "noput": windows.ModeNoPut,
	"noprecede": windows.ModeNoPrecede, "nosucceed": windows.ModeNoSucceed,
}

func result(err error) string {
	if err != nil {
		return "error: " + compat.ClassOf(err).String()
	}
	return "ok"
}

func (h *epochs) do(c transcript.Cmd) (out string) {
	defer func() {
		if r := recover(); r != nil {
			out = fmt.Sprintf("panic: %v", r)
		}
	}()
	if c.Name == "window" {
		flavor := map[string]windows.Flavor{"allocate": windows.FlavorAllocate, "create": windows.FlavorCreate,
			"shared": windows.FlavorShared, "dynamic": windows.FlavorDynamic}[c.Arg(0)]
		h.x = newTW(h.t, h.w, flavor, 8)
		return "ok"
	}
	if h.x == nil {
		return "no window: start with window FLAVOR"
	}
	win := h.x.win
	n := func(i int) int {
		v, err := strconv.Atoi(c.Arg(i))
		if err != nil {
			panic(fmt.Sprintf("%s: argument %d: %v", c.Pos, i, err))
		}
		return v
	}
	asserts := func(from int) windows.Assert {
		var a windows.Assert
		for _, w := range c.Args[min(from, len(c.Args)):] {
			a |= assertNames[w]
		}
		return a
	}
	self := func() *compat.Group { return grp(h.t, win, 0) }
	switch c.Name {
	case "free":
		err := win.Free()
		if err == nil {
			h.x = nil
		}
		return result(err)
	case "fence":
		return result(win.Fence(asserts(0)))
	case "lock":
		typ := windows.LockShared
		if c.Arg(0) == "exclusive" {
			typ = windows.LockExclusive
		}
		return result(win.Lock(typ, n(1), asserts(2)))
	case "unlock":
		return result(win.Unlock(n(0)))
	case "lockall":
		return result(win.LockAll(asserts(0)))
	case "unlockall":
		return result(win.UnlockAll())
	case "post":
		return result(win.Post(self(), asserts(0)))
	case "start":
		return result(win.Start(self(), asserts(0)))
	case "complete":
		return result(win.Complete())
	case "wait":
		return result(win.Wait())
	case "test":
		done, err := win.Test()
		if err != nil {
			return result(err)
		}
		return strconv.FormatBool(done)
	case "put":
		return result(windows.Put(win, []int64{int64(n(2))}, n(0), h.x.disp(n(0), n(1))))
	case "get": // into h.got, which MPI lets the program read after a flush or the epoch's end
		h.got = []int64{-1}
		return result(windows.Get(win, h.got, n(0), h.x.disp(n(0), n(1))))
	case "got":
		return strconv.FormatInt(h.got[0], 10)
	case "acc":
		return result(windows.Accumulate(win, []int64{int64(n(2))}, n(0), h.x.disp(n(0), n(1)), compat.OpSum))
	case "fop":
		old, err := windows.FetchAndOp(win, int64(n(2)), n(0), h.x.disp(n(0), n(1)), compat.OpSum)
		if err != nil {
			return result(err)
		}
		return strconv.FormatInt(old, 10)
	case "cas":
		old, err := windows.CompareAndSwap(win, int64(n(2)), int64(n(3)), n(0), h.x.disp(n(0), n(1)))
		if err != nil {
			return result(err)
		}
		return strconv.FormatInt(old, 10)
	case "flush":
		return result(win.Flush(n(0)))
	case "flushlocal":
		return result(win.FlushLocal(n(0)))
	case "flushall":
		return result(win.FlushAll())
	case "sync":
		return result(win.Sync())
	case "local":
		return strconv.FormatInt(h.x.mem[n(0)], 10)
	}
	return "unknown command " + c.Name
}
