package windows

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gshmem/gshmem/compat"
)

// Flavor says how a window's memory was obtained (MPI_WIN_CREATE_FLAVOR).
type Flavor uint8

// The four flavors.
const (
	FlavorCreate   Flavor = iota + 1 // MPI_WIN_FLAVOR_CREATE: over a caller's buffer
	FlavorAllocate                   // MPI_WIN_FLAVOR_ALLOCATE: symmetric heap memory
	FlavorDynamic                    // MPI_WIN_FLAVOR_DYNAMIC: memory attached later
	FlavorShared                     // MPI_WIN_FLAVOR_SHARED: heap memory every PE can load/store
)

func (f Flavor) String() string {
	switch f {
	case FlavorCreate:
		return "create"
	case FlavorAllocate:
		return "allocate"
	case FlavorDynamic:
		return "dynamic"
	case FlavorShared:
		return "shared"
	}
	return fmt.Sprintf("Flavor(%d)", f)
}

// ParseFlavor reads a flavor name as String writes it.
func ParseFlavor(s string) (Flavor, error) {
	for f := FlavorCreate; f <= FlavorShared; f++ {
		if f.String() == s {
			return f, nil
		}
	}
	return 0, errorf(compat.ClassArg, "window flavor %q: want create, allocate, dynamic or shared", s)
}

// Model is a window's memory model (MPI_WIN_MODEL).
type Model uint8

const (
	// Separate (MPI_WIN_SEPARATE): RMA reaches a public copy of the window
	// and local loads and stores the private copy (the caller's buffer);
	// the two are reconciled by Fence, Post, Wait/Test, Lock and Unlock on
	// this PE, LockAll, UnlockAll and Sync. Dynamic windows, and Create
	// windows that ask for it (InfoModel) or whose buffer is GPU memory.
	Separate Model = iota + 1
	// Unified (MPI_WIN_UNIFIED): one copy; RMA lands in the memory local
	// loads read. Allocate, shared and Create windows (create.go).
	Unified
)

func (m Model) String() string {
	switch m {
	case Separate:
		return "separate"
	case Unified:
		return "unified"
	}
	return fmt.Sprintf("Model(%d)", m)
}

// Assert is a set of MPI_MODE_* assertions for a synchronization call.
type Assert uint8

// The assertions. Each call takes some of them (MPI-3.1 11.5.5): Fence
// takes NoStore, NoPut, NoPrecede, NoSucceed; Post takes NoCheck, NoStore,
// NoPut; Start, Lock and LockAll take NoCheck. Others give ErrAssert.
const (
	ModeNoCheck   Assert = 1 << iota // MPI_MODE_NOCHECK: the matching calls already happened / no conflicting lock
	ModeNoStore                      // MPI_MODE_NOSTORE: no local stores since the last synchronization
	ModeNoPut                        // MPI_MODE_NOPUT: no puts or accumulates to this PE until the next synchronization
	ModeNoPrecede                    // MPI_MODE_NOPRECEDE: the fence completes no RMA
	ModeNoSucceed                    // MPI_MODE_NOSUCCEED: no RMA follows the fence
)

func checkAssert(a, allowed Assert, call string) error {
	if a&^allowed != 0 {
		return errorf(compat.ClassAssert, "%s does not take assertion bits %#x", call, uint8(a&^allowed))
	}
	return nil
}

// LockType is MPI_LOCK_SHARED or MPI_LOCK_EXCLUSIVE.
type LockType uint8

// The lock types.
const (
	LockExclusive LockType = iota + 1
	LockShared
)

func (l LockType) String() string {
	switch l {
	case LockExclusive:
		return "exclusive"
	case LockShared:
		return "shared"
	}
	return fmt.Sprintf("LockType(%d)", l)
}

// The window info keys (MPI-3.1 11.2.1, and one of gshmem's): windows'
// creation calls and Win.SetInfo take them in a compat.Info. no_locks,
// accumulate_ordering and accumulate_ops may change after creation; the
// others only at creation. gshmem_dynamic_pool is the bytes of symmetric
// address space a dynamic window reserves on every PE for the pages of
// attached memory (default a sixteenth of the heap; only attached pages
// are ever committed, and they are the caller's own memory). gshmem_memory (device or host) says where an allocate
// window's memory lives on a World whose heap is GPU memory: device (the
// default there, as NVSHMEM-backed windows are) or the heap's host area
// (device.go); a host World has only host memory and ignores it. Unknown
// keys are ignored, as MPI does.
const (
	InfoNoLocks            = "no_locks"
	InfoAccumulateOrdering = "accumulate_ordering"
	InfoAccumulateOps      = "accumulate_ops"
	InfoSameSize           = "same_size"
	InfoSameDispUnit       = "same_disp_unit"
	InfoAllocSharedNoncont = "alloc_shared_noncontig"
	InfoDynamicPool        = "gshmem_dynamic_pool"
	InfoMemory             = "gshmem_memory"
	// InfoModel (unified or separate) asks a Create window for a memory
	// model: unified, the default, reaches the caller's buffer itself;
	// separate keeps a public copy in the heap, reconciled at the
	// synchronization calls (separate.go), for those who want it.
	InfoModel = "gshmem_model"
)

// defaultPool (0) lets dynPool size a dynamic window's pool.
const defaultPool = 0

type settings struct {
	noLocks, sameSize, sameDisp, noncontig bool
	separate                               bool // InfoModel=separate
	ordering, accOps                       string
	pool                                   int
	memory                                 string // InfoMemory: "", MemoryDevice or MemoryHost
}

func defaultSettings() settings {
	return settings{ordering: "rar,raw,war,waw", accOps: "same_op_no_op", pool: defaultPool}
}

func parseBool(k, v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, errorf(compat.ClassInfoValue, "info %s=%q: want true or false", k, v)
}

// apply sets the keys of info on s. creation says whether the keys fixed
// at creation may be set; after it they are ignored, as hints an
// implementation does not take are (MPI_Win_set_info with the info
// MPI_Win_get_info returned must succeed).
func (s *settings) apply(info compat.Info, creation bool) error {
	for k, v := range info {
		var err error
		switch k {
		case InfoNoLocks:
			s.noLocks, err = parseBool(k, v)
		case InfoSameSize, InfoSameDispUnit, InfoAllocSharedNoncont, InfoDynamicPool, InfoMemory, InfoModel:
			if !creation {
				continue // fixed at creation: a hint not taken now is ignored (MPI-4.1 §12.2.7)
			}
			switch k {
			case InfoSameSize:
				s.sameSize, err = parseBool(k, v)
			case InfoSameDispUnit:
				s.sameDisp, err = parseBool(k, v)
			case InfoAllocSharedNoncont:
				s.noncontig, err = parseBool(k, v)
			case InfoModel:
				switch strings.ToLower(strings.TrimSpace(v)) {
				case "unified":
					s.separate = false
				case "separate":
					s.separate = true
				default:
					err = errorf(compat.ClassInfoValue, "info %s=%q: want unified or separate", k, v)
				}
			case InfoMemory:
				switch v = strings.ToLower(strings.TrimSpace(v)); v {
				case MemoryDevice, MemoryHost:
					s.memory = v
				default:
					err = errorf(compat.ClassInfoValue, "info %s=%q: want device or host", k, v)
				}
			default:
				n, perr := strconv.Atoi(strings.TrimSpace(v))
				if perr != nil || n < 0 {
					err = errorf(compat.ClassInfoValue, "info %s=%q: want a byte count", k, v)
				}
				s.pool = n
			}
		case InfoAccumulateOrdering:
			v = strings.ToLower(strings.TrimSpace(v))
			if v != "none" {
				for _, p := range strings.Split(v, ",") {
					if !slices.Contains([]string{"rar", "raw", "war", "waw"}, strings.TrimSpace(p)) {
						return errorf(compat.ClassInfoValue, "info %s=%q: want none or a list of rar, raw, war, waw", k, v)
					}
				}
			}
			s.ordering = v
		case InfoAccumulateOps:
			if v != "same_op" && v != "same_op_no_op" {
				return errorf(compat.ClassInfoValue, "info %s=%q: want same_op or same_op_no_op", k, v)
			}
			s.accOps = v
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (s settings) info() compat.Info {
	return compat.Info{
		InfoNoLocks:            strconv.FormatBool(s.noLocks),
		InfoAccumulateOrdering: s.ordering,
		InfoAccumulateOps:      s.accOps,
		InfoSameSize:           strconv.FormatBool(s.sameSize),
		InfoSameDispUnit:       strconv.FormatBool(s.sameDisp),
		InfoAllocSharedNoncont: strconv.FormatBool(s.noncontig),
		InfoDynamicPool:        strconv.Itoa(s.pool),
		InfoMemory:             s.memoryName(),
		InfoModel:              map[bool]string{false: "unified", true: "separate"}[s.separate],
	}
}

// memoryName is where the window's memory is, once created.
func (s settings) memoryName() string {
	if s.memory == "" {
		return MemoryHost
	}
	return s.memory
}
