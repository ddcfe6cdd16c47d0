// Package accops is the seam through which the core's transports apply
// accumulates without importing the MPI layers' element arithmetic
// (internal/mpitype, which sits above the core): mpitype registers its op
// table here when it is initialized, and a tcp target applies an
// accumulate frame with it. A program that never links mpitype never
// sends an accumulate, and a target without the table refuses one.
package accops

import (
	"sync/atomic"
	"unsafe"

	"github.com/gshmem/gshmem/internal/atomicop"
)

// Table is the element arithmetic of accumulates, over the layers' own
// numbering of element types and ops.
type Table struct {
	// Size is the size of an element of typ in bytes, 0 for no type.
	Size func(typ uint8) int
	// Defined reports whether op combines elements of typ.
	Defined func(typ, op uint8) bool
	// Combine sets *dst = *dst op *src for one element of typ.
	Combine func(typ, op uint8, dst, src unsafe.Pointer)
	// Hardware is the hardware atomic that does op on an aligned element
	// of typ of 1 to 8 bytes, when there is one.
	Hardware func(typ, op uint8) (atomicop.Op, bool)
	// NoOp reads without writing (no source); Replace stores the source
	// (the op of a compare-and-swap).
	NoOp, Replace uint8
}

var table atomic.Pointer[Table]

// Set registers the table.
func Set(t *Table) { table.Store(t) }

// Get returns the registered table, or nil.
func Get() *Table { return table.Load() }
