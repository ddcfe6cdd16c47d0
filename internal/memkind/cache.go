// Package memkind tells device memory from host memory by address for the
// CUDA-aware MPI layers, asking the driver once per allocation rather than
// once per call.
//
// A CUDA-aware MPI must classify every buffer it is handed. Asking the
// driver (cuPointerGetAttribute) costs a call into libcuda per message,
// which is what the host-buffer messages of a job whose heap is on the GPU
// paid before this cache. The cache remembers:
//
//   - device allocations by range (the driver's RANGE_START_ADDR and
//     RANGE_SIZE for the allocation an address lies in) with the driver's
//     BUFFER_ID, which is unique per allocation for the life of the
//     process, so that a freed range cudaMalloc hands out again, at the
//     same address or overlapping it, is a different buffer to anyone
//     who compares ids;
//   - host memory by page: a page is host or device as a whole, so any
//     buffer on a page the driver called host is host.
//
// Invalidation. Nothing tells a library that the application freed memory
// (cudaFree, munmap) unless it patches those calls: UCX's memtype cache
// learns of CUDA allocations and frees through its memory hooks (ucm) and
// is wrong for allocators it does not hook, which is why it can be turned
// off; Open MPI's accelerator framework asks the driver for every buffer
// and keeps only its IPC registration cache, validated by BUFFER_ID. This
// cache patches nothing and stays correct by these rules:
//
//   - Where an allocation's identity matters (exporting it by CUDA IPC,
//     whose handle and bounds must be those of the live allocation),
//     callers use Confirm, which always asks the driver and replaces any
//     entry the answer contradicts. A receiver compares the BUFFER_ID it
//     is sent with the one its mapping was opened for.
//   - For the kind alone (host or device), a cached answer is trusted for
//     TTL after the driver gave it, then asked again. The kind of an
//     address changes only when its range is unmapped and the address
//     space handed out again for the other kind (munmap then a driver
//     reservation at that address, or the driver releasing a reservation
//     that mmap reuses): a cudaFree followed by a cudaMalloc at the same
//     address, the common reuse, keeps the kind and is caught by the ids.
//     The residual hazard is that other reuse within one TTL of the last
//     probe, with the new memory passed to MPI in that window.
//   - Every probe that finds a device allocation drops the entries it
//     contradicts: device ranges it overlaps and host pages inside it.
//   - Forget drops what the library itself frees (MPI_Free_mem of device
//     memory).
package memkind

import (
	"slices"
	"sync"
	"time"
)

// Info is what the driver says about an address.
type Info struct {
	Device bool    // device memory (cudaMalloc, cuMemAlloc, a mapped IPC handle)
	Base   uintptr // the allocation's first byte, when the driver knows it
	Size   uintptr // the allocation's length; 0 when the driver did not say
	ID     uint64  // the driver's BUFFER_ID of the allocation
}

// Contains reports whether [p, p+n) lies in the allocation.
func (i Info) Contains(p, n uintptr) bool {
	return i.Size > 0 && p >= i.Base && p-i.Base <= i.Size && n <= i.Size-(p-i.Base)
}

// Prober asks the driver about one address. An error of the driver's
// (an address it does not know) is host memory.
type Prober interface {
	Probe(p uintptr) Info
}

// TTL is how long a cached kind is trusted without asking the driver
// again: long against a message's microseconds (one driver call per
// buffer per TTL), short against the time an application takes to unmap
// memory and have the driver map device memory at that address.
const TTL = 10 * time.Millisecond

const (
	pageShift = 12
	maxHost   = 1 << 14 // host pages remembered; the map is cleared when full
	maxDev    = 1 << 12 // device ranges remembered; cleared when full
)

type entry struct {
	Info
	at int64 // when the driver said so (Cache.now)
}

// Cache is a process's memory kinds. The zero value is not usable: New.
type Cache struct {
	probe Prober
	ttl   int64
	now   func() int64

	mu   sync.RWMutex
	dev  []entry           // device allocations, sorted by Base, disjoint
	host map[uintptr]int64 // host page number -> when the driver said so

	probes uint64 // driver calls made, for tests and figures (under mu)
}

// New returns a cache over p whose answers are trusted for ttl.
func New(p Prober, ttl time.Duration) *Cache {
	start := time.Now()
	return &Cache{probe: p, ttl: int64(ttl), now: func() int64 { return int64(time.Since(start)) }, host: map[uintptr]int64{}}
}

// IsDevice reports whether p is device memory, from the cache when a
// fresh answer is there.
func (c *Cache) IsDevice(p uintptr) bool {
	if p == 0 {
		return false
	}
	now := c.now()
	c.mu.RLock()
	if e, ok := c.find(p); ok && now-e.at < c.ttl {
		c.mu.RUnlock()
		return true
	}
	at, ok := c.host[p>>pageShift]
	c.mu.RUnlock()
	if ok && now-at < c.ttl {
		return false
	}
	return c.Confirm(p).Device
}

// Confirm asks the driver about p, records the answer and returns it: for
// callers that need the live allocation's bounds and id, not only its
// kind.
func (c *Cache) Confirm(p uintptr) Info {
	i := c.probe.Probe(p)
	now := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.probes++
	if !i.Device {
		if len(c.host) >= maxHost {
			clear(c.host)
		}
		c.host[p>>pageShift] = now
		c.dropDevice(p, 1)
		return i
	}
	if !i.Contains(p, 1) {
		// No range from the driver: nothing to remember by range.
		delete(c.host, p>>pageShift)
		c.dropDevice(p, 1)
		return i
	}
	c.dropDevice(i.Base, i.Size)
	c.dropHost(i.Base, i.Size)
	if len(c.dev) >= maxDev {
		c.dev = c.dev[:0]
	}
	k, _ := slices.BinarySearchFunc(c.dev, i.Base, func(e entry, b uintptr) int { return cmpAddr(e.Base, b) })
	c.dev = slices.Insert(c.dev, k, entry{i, now})
	return i
}

// Forget drops what the cache knows of [base, base+n): memory the caller
// has just freed.
func (c *Cache) Forget(base, n uintptr) {
	if n == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropDevice(base, n)
	c.dropHost(base, n)
}

// Probes returns how many times the cache asked the driver.
func (c *Cache) Probes() uint64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.probes
}

// find returns the device entry holding p. Called with mu held.
func (c *Cache) find(p uintptr) (entry, bool) {
	k, _ := slices.BinarySearchFunc(c.dev, p, func(e entry, q uintptr) int { return cmpAddr(e.Base, q) })
	// c.dev[k-1] is the last entry starting at or below p (k itself when
	// one starts exactly at p).
	if k < len(c.dev) && c.dev[k].Base == p {
		return c.dev[k], true
	}
	if k > 0 && c.dev[k-1].Contains(p, 1) {
		return c.dev[k-1], true
	}
	return entry{}, false
}

// dropDevice removes the device entries that overlap [base, base+n).
func (c *Cache) dropDevice(base, n uintptr) {
	end := base + n
	c.dev = slices.DeleteFunc(c.dev, func(e entry) bool { return e.Base < end && base < e.Base+e.Size })
}

// dropHost removes the host pages that overlap [base, base+n).
func (c *Cache) dropHost(base, n uintptr) {
	first, last := base>>pageShift, (base+n-1)>>pageShift
	if last-first < uintptr(len(c.host)) {
		for pg := first; pg <= last; pg++ {
			delete(c.host, pg)
		}
		return
	}
	for pg := range c.host {
		if pg >= first && pg <= last {
			delete(c.host, pg)
		}
	}
}

func cmpAddr(a, b uintptr) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
