package memkind

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeDriver is an address space: device allocations by range, everything
// else host memory; each allocation gets the next buffer id, as the
// driver's BUFFER_ID.
type fakeDriver struct {
	mu     sync.Mutex
	allocs []Info
	nextID uint64
	calls  int
}

func (f *fakeDriver) Probe(p uintptr) Info {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	for _, a := range f.allocs {
		if a.Contains(p, 1) {
			return a
		}
	}
	return Info{}
}

func (f *fakeDriver) malloc(base, size uintptr) Info {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextID++
	a := Info{Device: true, Base: base, Size: size, ID: f.nextID}
	f.allocs = append(f.allocs, a)
	return a
}

func (f *fakeDriver) free(base uintptr) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, a := range f.allocs {
		if a.Base == base {
			f.allocs = append(f.allocs[:i], f.allocs[i+1:]...)
			return
		}
	}
}

func (f *fakeDriver) probes() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

// newTest returns a cache over a fake driver with a clock the test moves.
func newTest() (*Cache, *fakeDriver, *int64) {
	f := &fakeDriver{}
	c := New(f, TTL)
	var clock int64
	c.now = func() int64 { return clock }
	return c, f, &clock
}

// A buffer used again costs a lookup, not a driver call: device buffers
// by allocation range, host buffers by page.
func TestRepeatedBuffersAskOnce(t *testing.T) {
	c, f, _ := newTest()
	d := f.malloc(0x7f0000000000, 1<<20)
	for range 100 {
		assert.True(t, c.IsDevice(d.Base))
		assert.True(t, c.IsDevice(d.Base+4096))
		assert.True(t, c.IsDevice(d.Base+d.Size-1))
	}
	assert.Equal(t, 1, f.probes(), "one driver call for the whole allocation")
	assert.False(t, c.IsDevice(d.Base+d.Size), "the byte after the allocation is not in it")
	assert.Equal(t, 2, f.probes())

	host := uintptr(0x5000_1000)
	for range 100 {
		assert.False(t, c.IsDevice(host))
		assert.False(t, c.IsDevice(host+64)) // the same page
	}
	assert.Equal(t, 3, f.probes(), "one driver call per host page")
	assert.False(t, c.IsDevice(host+4096))
	assert.Equal(t, 4, f.probes(), "another page is asked about")
	assert.False(t, c.IsDevice(0))
	assert.Equal(t, 4, f.probes(), "address 0 is never asked about")
	assert.Equal(t, uint64(4), c.Probes())
}

// A cached answer is asked again after TTL.
func TestAnswersExpire(t *testing.T) {
	c, f, clock := newTest()
	d := f.malloc(0x7f0000000000, 4096)
	assert.True(t, c.IsDevice(d.Base))
	assert.False(t, c.IsDevice(0x1000))
	*clock += int64(TTL) - 1
	assert.True(t, c.IsDevice(d.Base))
	assert.False(t, c.IsDevice(0x1000))
	assert.Equal(t, 2, f.probes())
	*clock += 1
	assert.True(t, c.IsDevice(d.Base))
	assert.False(t, c.IsDevice(0x1000))
	assert.Equal(t, 4, f.probes())
	// Expiry is what bounds the other kind of reuse: the host page is
	// unmapped and the driver maps device memory there.
	f.malloc(0x1000, 4096)
	assert.False(t, c.IsDevice(0x1000), "within TTL the cache still says host")
	*clock += int64(TTL)
	assert.True(t, c.IsDevice(0x1000), "after TTL the driver is asked again")
}

// cudaFree and a new cudaMalloc of another size at the same address: the
// kind stays device; Confirm sees the new allocation (bounds and id), and
// the cache then answers for the new bounds.
func TestFreeAndReallocSameAddress(t *testing.T) {
	c, f, _ := newTest()
	old := f.malloc(0x7f0000000000, 1<<16)
	assert.True(t, c.IsDevice(old.Base))
	got := c.Confirm(old.Base)
	assert.Equal(t, old, got)

	f.free(old.Base)
	nu := f.malloc(old.Base, 1<<20)
	require.NotEqual(t, old.ID, nu.ID)
	assert.True(t, c.IsDevice(old.Base), "same kind")
	got = c.Confirm(old.Base + 100)
	assert.Equal(t, nu, got, "Confirm asks the driver: the new allocation's bounds and id")
	n := f.probes()
	assert.True(t, c.IsDevice(old.Base+(1<<19)), "beyond the old bounds, within the new: from the cache")
	assert.Equal(t, n, f.probes())

	// A smaller allocation at the same address: the cache forgets the
	// larger range when the driver reports the smaller one.
	f.free(nu.Base)
	small := f.malloc(nu.Base, 4096)
	assert.Equal(t, small, c.Confirm(nu.Base))
	assert.False(t, c.IsDevice(nu.Base+(1<<19)), "past the small allocation: asked, host")
}

// A device allocation the driver reports drops what it contradicts: host
// pages inside it and device ranges it overlaps.
func TestDeviceRangeDropsStaleEntries(t *testing.T) {
	c, f, _ := newTest()
	assert.False(t, c.IsDevice(0x10000))
	assert.False(t, c.IsDevice(0x13000))
	a := f.malloc(0x20000, 0x1000)
	b := f.malloc(0x22000, 0x1000)
	assert.True(t, c.IsDevice(a.Base))
	assert.True(t, c.IsDevice(b.Base))
	// Everything above is unmapped; one device allocation now covers it.
	f.free(a.Base)
	f.free(b.Base)
	big := f.malloc(0x10000, 0x20000)
	assert.Equal(t, big, c.Confirm(0x18000))
	n := f.probes()
	assert.True(t, c.IsDevice(0x10000), "the stale host page is gone")
	assert.True(t, c.IsDevice(0x13000))
	assert.True(t, c.IsDevice(0x22000))
	assert.Equal(t, n, f.probes(), "all from the one new range")
	c.mu.RLock()
	assert.Len(t, c.dev, 1)
	assert.Empty(t, c.host)
	c.mu.RUnlock()
}

// Forget drops a freed range at once, without waiting for TTL.
func TestForget(t *testing.T) {
	c, f, _ := newTest()
	d := f.malloc(0x7f0000000000, 1<<20)
	assert.True(t, c.IsDevice(d.Base))
	f.free(d.Base)
	c.Forget(d.Base, d.Size)
	assert.False(t, c.IsDevice(d.Base))
	assert.Equal(t, 2, f.probes())
	c.Forget(0, 0) // nothing
}

// A probe that finds an address host drops a device entry holding it.
func TestHostAnswerDropsDeviceEntry(t *testing.T) {
	c, f, clock := newTest()
	d := f.malloc(0x40000, 0x4000)
	assert.True(t, c.IsDevice(d.Base+0x1000))
	f.free(d.Base)
	*clock += int64(TTL)
	assert.False(t, c.IsDevice(d.Base+0x1000))
	c.mu.RLock()
	assert.Empty(t, c.dev)
	c.mu.RUnlock()
}

// Device memory the driver gives no range for is not cached by range.
func TestNoRangeNotCached(t *testing.T) {
	f := proberFunc(func(uintptr) Info { return Info{Device: true} })
	c := New(f, TTL)
	assert.True(t, c.IsDevice(0x1000))
	assert.True(t, c.IsDevice(0x1000))
	assert.Equal(t, uint64(2), c.Probes())
}

type proberFunc func(uintptr) Info

func (f proberFunc) Probe(p uintptr) Info { return f(p) }

func TestContains(t *testing.T) {
	i := Info{Device: true, Base: 100, Size: 10}
	assert.True(t, i.Contains(100, 10))
	assert.True(t, i.Contains(109, 1))
	assert.False(t, i.Contains(109, 2))
	assert.False(t, i.Contains(99, 1))
	assert.False(t, i.Contains(110, 0+1))
	assert.False(t, Info{Base: 100}.Contains(100, 1), "no size, no range")
	assert.False(t, i.Contains(105, ^uintptr(0)), "no overflow")
}

// The tables stay bounded.
func TestBounded(t *testing.T) {
	c, f, _ := newTest()
	for i := range maxHost + 10 {
		c.IsDevice(uintptr(i+1) << pageShift)
	}
	c.mu.RLock()
	assert.LessOrEqual(t, len(c.host), maxHost)
	c.mu.RUnlock()
	for i := range maxDev + 10 {
		d := f.malloc(uintptr(1<<40)+uintptr(i)<<20, 1<<20)
		c.IsDevice(d.Base)
	}
	c.mu.RLock()
	assert.LessOrEqual(t, len(c.dev), maxDev)
	c.mu.RUnlock()
	assert.True(t, c.IsDevice(uintptr(1<<40)+uintptr(maxDev+9)<<20))
}

// Many goroutines at once (go test -race).
func TestConcurrent(t *testing.T) {
	f := &fakeDriver{}
	c := New(f, time.Microsecond)
	var ds []Info
	for i := range 8 {
		ds = append(ds, f.malloc(uintptr(1<<40)+uintptr(i)<<20, 1<<20))
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				d := ds[(g+i)%len(ds)]
				if !c.IsDevice(d.Base + uintptr(i)) {
					t.Errorf("device address %#x said host", d.Base+uintptr(i))
					return
				}
				if c.IsDevice(uintptr(0x1000 + i*64)) {
					t.Errorf("host address said device")
					return
				}
				if i%100 == 0 {
					c.Confirm(d.Base)
				}
			}
		}()
	}
	wg.Wait()
}
