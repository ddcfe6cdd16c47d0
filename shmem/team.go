package shmem

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"sync/atomic"
)

// MaxTeams is the most teams a PE can be a member of at once, counting the
// world and shared teams. Each team owns a slot of the symmetric heap
// reserved when the World starts (a few KiB per slot); a heap too small to
// spare a quarter of itself for 64 slots gets fewer.
const MaxTeams = 64

// ErrTeamLimit reports that a split would exceed the live-team limit
// (MaxTeams) on some member. It wraps ErrHeapExhausted: team slots are
// reserved heap. Destroy teams that are no longer used.
var ErrTeamLimit = fmt.Errorf("%w: too many live teams", ErrHeapExhausted)

// Team is an ordered subset of the job's PEs, numbered 0..NPEs()-1, over
// which collectives run (shmem_team_t). TeamWorld and TeamShared exist from
// the start; the Split methods make more. A *Team is this PE's handle on
// its team: like a World, it is used by one goroutine per PE for
// collectives, and every member must call the team's collectives in the same
// order.
//
// Each team owns synchronization words and scratch space in a slot of the
// symmetric heap, so collectives on different teams never interfere, even
// when the teams overlap.
type Team struct {
	_        [64]byte // goroutine PEs' teams never share a cache line
	w        *World
	members  []int       // world PE number of each team PE
	index    map[int]int // world PE -> team PE; nil when members[i] == i
	me       int
	slot     int
	slotOff  uint64
	mapped   bool                     // every member's heap is mapped from every member
	hostHeap bool                     // this PE's heap is host memory (not on a GPU)
	direct   bool                     // mapped, and not told otherwise: collectives use loads and stores
	heaps    []atomic.Pointer[[]byte] // what remote returned for each team PE (see remote)
	name     string
	fixed    bool // the world and shared teams cannot be destroyed
	dead     bool
	cfg      TeamConfig
	ctxs     teamCtxs // contexts made from the team (ctx.go)

	// Collective state, advanced identically on every member.
	bepoch    uint32  // barriers run
	cseq      uint64  // collectives run; its parity picks the scratch half
	readyRecv uint64  // ring steps signalled by the left neighbour
	doneRecv  uint64  // ring completions signalled by the right neighbour
	treeRecv  uint64  // broadcast segments signalled by the tree parent
	bdoneRecv uint64  // readers done with this PE's source, as broadcast root
	devEpoch  uint64  // device barriers run (coll_device.go)
	devOK     uint8   // collectives run as kernels: 0 not known yet, 1 yes, 2 no
	devHandle uintptr // the descriptor for kernels, once written (DeviceHandle)

	bufs [][]uint64 // private staging buffers, reused

	checkFn   func() error // waitCheck, for the waits (coll.go)
	down      *uint32      // the World's DownWord, for waitCheck
	interrupt func() error // SetInterrupt's

	// The barrier's current wait, read by readyFn (no allocation per wait).
	wOff, wE, wV     uint64
	readyFn          func() bool
	spinCur, spinMax int  // polls before yielding (see spin)
	adapt            bool // spinCur adapts (goroutine PEs)

	// The last descriptor hashed and its hash (see hash).
	hashedDesc [dSeq]uint64
	hashed     uint32
	hashOK     bool

	lineAcc, lineTmp [lineData / 8]uint64 // a reduction riding in the barrier lines
	lines            lineCall             // the last one that passed its checks

	_ [64]byte
}

// TeamConfig is a team's configuration (shmem_team_config_t), passed to
// a split for the new team.
type TeamConfig struct {
	// NumContexts is the number of communication contexts the team is
	// created for: 0 puts no limit on Team.CreateCtx; n > 0 lets at most
	// n of the team's contexts be live at once, as OpenSHMEM's
	// SHMEM_TEAM_NUM_CONTEXTS reserves them.
	NumContexts int
}

// teamPool is a World's team state: the heap slots reserved for teams and
// which of them hold a team of this PE.
type teamPool struct {
	base     uint64 // heap offset of slot 0
	slotSize uint64
	nslots   int
	rounds   int    // barrier rounds of the largest team (the world)
	scrSize  uint64 // bytes of one scratch half
	used     uint64 // bit i: slot i holds a live team of this PE
	// released[i] > 0: slot i holds a team this PE released (Release),
	// kept until that many members have released it (release.go).
	released [MaxTeams]int
	pending  uint64 // bit i: released[i] > 0
	generic  bool   // tests: never use direct access, only the Transport's RMA
	world    *Team
	shared   *Team
}

// Slot layout, relative to the slot's offset. Every part is 64-byte aligned.
//
//	bar:  2 halves x rounds lines: the barrier's words (and small reductions)
//	sig:  sigLines lines: counters that one known peer increments, and the
//	      count of members that released the team (sigReleased)
//	dbg:  2 halves x 128 bytes: full collective descriptors (GSHMEM_DEBUG)
//	scr:  2 halves x scrSize: scratch; a 64-byte header, then data
const (
	sigReady    = iota // ring step done, from the left neighbour
	sigDone            // ring finished reading our memory, from the right neighbour
	sigTree            // broadcast segment arrived, from the tree parent
	sigBDone           // a reader finished with the broadcast root's source
	sigReleased        // members that released the team (release.go)
	sigLines
	dbgSize = 128
)

func (p *teamPool) sigOff() uint64 { return uint64(2*p.rounds) * 64 }
func (p *teamPool) dbgOff() uint64 { return p.sigOff() + sigLines*64 }
func (p *teamPool) scrOff() uint64 { return p.dbgOff() + 2*dbgSize }

// initTeams reserves the team slots (the first allocation of the heap, so
// at the same offset on every PE) and makes the world and shared teams.
func (w *World) initTeams() error {
	p := &w.teams
	p.rounds = max(1, bits.Len(uint(w.npes-1)))
	p.scrSize = max(2048, uint64((p.rounds+1)*128))
	p.slotSize = p.scrOff() + 2*p.scrSize
	usable := w.opts.SymmetricSize - ctrlSize
	p.nslots = MaxTeams
	if fit := usable / 4 / p.slotSize; fit < MaxTeams {
		p.nslots = max(2, int(fit))
	}
	off, err := w.alloc.Alloc(uint64(p.nslots)*p.slotSize, 64)
	if err != nil {
		return fmt.Errorf("%w: the heap (%d bytes) has no room for %d team slots of %d bytes: %v",
			ErrHeapExhausted, w.opts.SymmetricSize, p.nslots, p.slotSize, err)
	}
	p.base = off

	all := make([]int, w.npes)
	for i := range all {
		all[i] = i
	}
	var local []int
	for pe := range w.npes {
		if pe == w.pe || w.local(pe) {
			local = append(local, pe)
		}
	}
	// Node-locality is an equivalence, so "I map everyone" holds on every
	// PE or on none, and every member of the shared team maps the others.
	p.world = w.newTeam("world", all, 0, len(local) == w.npes)
	p.shared = w.newTeam("shared", local, 1, true)
	p.world.fixed, p.shared.fixed = true, true
	p.used = 0b11
	return nil
}

func (w *World) newTeam(name string, members []int, slot int, direct bool) *Team {
	t := &Team{w: w, members: members, slot: slot, name: name, me: -1,
		slotOff: w.teams.base + uint64(slot)*w.teams.slotSize,
		mapped:  direct, direct: direct && !w.teams.generic,
		hostHeap: w.tr.Mapped(w.pe) != nil}
	identity := true
	for i, pe := range members {
		if pe != i {
			identity = false
		}
		if pe == w.pe {
			t.me = i
		}
	}
	if !identity {
		t.index = make(map[int]int, len(members))
		for i, pe := range members {
			t.index[pe] = i
		}
	}
	t.mapHeaps()
	return t
}

// TeamWorld returns the team of every PE, numbered as in the World
// (SHMEM_TEAM_WORLD).
func (w *World) TeamWorld() *Team { return w.teams.world }

// TeamShared returns the team of the PEs whose heaps this PE reaches by load
// and store (SHMEM_TEAM_SHARED): the PEs of its node, in World order. Ptr
// gives direct access to their memory.
func (w *World) TeamShared() *Team { return w.teams.shared }

// MyPE returns this PE's number in the team, or -1 for a nil or destroyed
// team.
func (t *Team) MyPE() int {
	if t == nil || t.dead {
		return -1
	}
	return t.me
}

// NPEs returns the number of PEs in the team, or -1 for a nil or destroyed
// team.
func (t *Team) NPEs() int {
	if t == nil || t.dead {
		return -1
	}
	return len(t.members)
}

// Config returns the configuration the team was created with.
func (t *Team) Config() TeamConfig {
	if t == nil {
		return TeamConfig{}
	}
	return t.cfg
}

// String describes the team, as "team world (PE 2 of 4)".
func (t *Team) String() string {
	if t == nil {
		return "team <nil>"
	}
	state := ""
	if t.dead {
		state = ", destroyed"
	}
	return fmt.Sprintf("team %s (PE %d of %d%s)", t.name, t.me, len(t.members), state)
}

// rank returns the team PE number of world PE pe, or -1.
func (t *Team) rank(pe int) int {
	if t.index == nil {
		if pe >= 0 && pe < len(t.members) {
			return pe
		}
		return -1
	}
	if i, ok := t.index[pe]; ok {
		return i
	}
	return -1
}

// TranslatePE returns the number in team dst of the PE numbered pe in team
// src, or -1 when that PE is not a member of dst, either team is nil or
// destroyed, or pe is out of range (shmem_team_translate_pe). Translating to
// TeamWorld gives the PE number that RMA calls take.
func TranslatePE(src *Team, pe int, dst *Team) int {
	if src == nil || dst == nil || src.dead || dst.dead || src.w != dst.w || pe < 0 || pe >= len(src.members) {
		return -1
	}
	return dst.rank(src.members[pe])
}

// usable reports why t cannot run a collective, or nil.
func (t *Team) usable() error {
	if t == nil {
		return errf(ErrInvalid, "nil team (a split returns nil to the PEs it leaves out)")
	}
	if t.w.closed.Load() {
		return ErrFinalized
	}
	if t.dead {
		return errf(ErrInvalid, "%s was destroyed", t.name)
	}
	return nil
}

// Destroy releases the team and its heap slot (shmem_team_destroy). It is
// collective over the team's members and waits for all of them, so no member
// still uses the team when its slot is recycled. The world and shared teams
// cannot be destroyed. Afterwards every call on the team fails.
func (t *Team) Destroy() error {
	if err := t.usable(); err != nil {
		return err
	}
	if t.fixed {
		return errf(ErrInvalid, "the %s team cannot be destroyed", t.name)
	}
	d := newDesc(kDestroy)
	t.open()
	if err := t.agree(&d, nil); err != nil {
		return err
	}
	// After a second barrier no member reads or writes this slot any more
	// (the first one's debug check reads descriptors); clear it for the
	// next team.
	if err := t.exitSync(); err != nil {
		return err
	}
	w := t.w
	if err := t.clearDevice(); err != nil {
		return err
	}
	clear(w.heap[t.slotOff : t.slotOff+w.teams.slotSize])
	w.teams.used &^= 1 << t.slot
	t.dead = true
	t.bufs = nil
	return nil
}

// SplitStrided makes a team of size PEs of t: PE start, start+stride,
// start+2*stride, ... of t, numbered in that order
// (shmem_team_split_strided). A negative stride lists them in decreasing
// order; stride 0 needs size 1. Every member of t must call it with the same
// arguments; it returns the new team to its members and (nil, nil) to the
// others. Bad or differing arguments, or a new team that would exceed
// MaxTeams on one of its members, give every PE of t an error and no team.
//
// An optional TeamConfig configures the new team (its NumContexts).
func (t *Team) SplitStrided(start, stride, size int, cfg ...TeamConfig) (*Team, error) {
	if err := t.usable(); err != nil {
		return nil, err
	}
	n := len(t.members)
	var lerr error
	switch {
	case size < 1:
		lerr = errf(ErrInvalid, "SplitStrided size %d: want at least 1", size)
	case stride == 0 && size != 1:
		lerr = errf(ErrInvalid, "SplitStrided stride 0 with size %d: want size 1", size)
	case start < 0 || start >= n || start+(size-1)*stride < 0 || start+(size-1)*stride >= n:
		lerr = errf(ErrBadPE, "SplitStrided(%d, %d, %d) leaves the parent team of %d PEs", start, stride, size, n)
	}
	var list []int
	if lerr == nil {
		list = make([]int, size)
		for i := range list {
			list[i] = start + i*stride
		}
	}
	name := fmt.Sprintf("%s/strided(%d,%d,%d)", t.name, start, stride, size)
	teams, err := t.split(kSplitStrided, []uint64{uint64(start), uint64(stride), uint64(size)}, lerr,
		func(int) [][]int { return [][]int{list} }, name)
	if err != nil {
		return nil, err
	}
	return configured(teams[0], cfg, 0), nil
}

// SplitList makes a team of the PEs of t listed in pes, numbered in list
// order: pes[i] (a PE number of t) becomes PE i of the new team. It is
// collective over t: every member must pass the same list; the listed PEs
// get the new team and the others (nil, nil). Members of disjoint lists may
// share a slot, so splitting t into groups (MPI_Comm_split) with one call
// per group costs each PE one slot.
//
// An optional TeamConfig configures the new team.
func (t *Team) SplitList(pes []int, cfg ...TeamConfig) (*Team, error) {
	if err := t.usable(); err != nil {
		return nil, err
	}
	n := len(t.members)
	var lerr error
	seen := make(map[int]bool, len(pes))
	for _, p := range pes {
		if p < 0 || p >= n {
			lerr = errf(ErrBadPE, "SplitList: PE %d of a team of %d", p, n)
			break
		}
		if seen[p] {
			lerr = errf(ErrInvalid, "SplitList: PE %d listed twice", p)
			break
		}
		seen[p] = true
	}
	if lerr == nil && len(pes) == 0 {
		lerr = errf(ErrInvalid, "SplitList of an empty list")
	}
	list := append([]int(nil), pes...)
	h := newHasher()
	for _, p := range pes {
		h.add(uint64(p))
	}
	teams, err := t.split(kSplitList, []uint64{uint64(len(pes)), h.sum64()}, lerr,
		func(int) [][]int { return [][]int{list} }, t.name+"/list"+listName(pes))
	if err != nil {
		return nil, err
	}
	return configured(teams[0], cfg, 0), nil
}

func listName(pes []int) string {
	if len(pes) > 8 {
		return fmt.Sprintf("[%d PEs]", len(pes))
	}
	s := make([]string, len(pes))
	for i, p := range pes {
		s[i] = strconv.Itoa(p)
	}
	return "[" + strings.Join(s, ",") + "]"
}

// Split2D arranges the PEs of t in rows of xrange PEs (PE p of t at column
// p%xrange, row p/xrange) and returns this PE's row as x and its column as
// y (shmem_team_split_2d): MyPE of x is the column, MyPE of y the row. The
// last row may be short, so y teams may differ in size by one. An xrange
// larger than t is taken as t's size. Collective over t, with the same
// xrange on every member.
//
// Optional TeamConfigs configure the new teams: the first x, the second y.
func (t *Team) Split2D(xrange int, cfg ...TeamConfig) (x, y *Team, err error) {
	if err := t.usable(); err != nil {
		return nil, nil, err
	}
	n := len(t.members)
	var lerr error
	if xrange < 1 {
		lerr = errf(ErrInvalid, "Split2D xrange %d: want at least 1", xrange)
	}
	xr := min(max(xrange, 1), n)
	lists := func(p int) [][]int {
		col, row := p%xr, p/xr
		var xs, ys []int
		for c := 0; c < xr && row*xr+c < n; c++ {
			xs = append(xs, row*xr+c)
		}
		for q := col; q < n; q += xr {
			ys = append(ys, q)
		}
		return [][]int{xs, ys}
	}
	me := t.me
	teams, err := t.split(kSplit2D, []uint64{uint64(xrange)}, lerr, lists,
		fmt.Sprintf("%s/x%d", t.name, me/xr), fmt.Sprintf("%s/y%d", t.name, me%xr))
	if err != nil {
		return nil, nil, err
	}
	return configured(teams[0], cfg, 0), configured(teams[1], cfg, 1), nil
}

// split is the collective part of every split. lists(p) gives, for PE p of
// t, the member lists (PE numbers of t) of the new teams p belongs to, one
// per new team kind (nil where p is in none).
//
// Every PE of t publishes its used-slot mask and whether it maps its new
// teams' members; after one barrier each PE reads every PE's word, so all
// reach the same verdict. A single new team takes the lowest slot free on
// all its members (disjoint teams may share it); the two kinds of Split2D
// take the two lowest slots free on every PE of t, so that a PE's x and y
// teams never collide.
func (t *Team) split(kind collKind, args []uint64, lerr error, lists func(p int) [][]int, names ...string) ([]*Team, error) {
	w := t.w
	w.reclaimTeams()
	d := newDesc(kind)
	copy(d[dArgs:], args)
	mine := lists(t.me)
	var maps uint64
	if lerr == nil {
		for k, l := range mine {
			ok := true
			for _, p := range l {
				if !w.local(t.members[p]) && t.members[p] != w.pe {
					ok = false
				}
			}
			if ok {
				maps |= 1 << k
			}
		}
	}
	par := t.open()
	hdr := t.scrHdr(par)
	storeLocal(w.heap, hdr, w.teams.used)
	storeLocal(w.heap, hdr+8, maps)
	if err := t.agree(&d, lerr); err != nil {
		return nil, err
	}
	n := len(t.members)
	words := make([]uint64, 2*n)
	f := t.fetch()
	for p := range n {
		if err := f.into(p, hdr, asBytes(words[2*p:2*p+2])); err != nil {
			return nil, err
		}
	}
	if err := f.wait(); err != nil {
		return nil, err
	}
	free := uint64(1)<<w.teams.nslots - 1
	if w.teams.nslots == 64 {
		free = ^uint64(0)
	}
	var all uint64
	for p := range n {
		all |= words[2*p]
	}
	slots := make([]int, len(mine))
	if len(mine) == 2 { // Split2D
		fx := free &^ all
		sx := bits.TrailingZeros64(fx)
		sy := bits.TrailingZeros64(fx &^ (1 << sx))
		if sx >= 64 || sy >= 64 {
			return nil, errf(ErrTeamLimit, "Split2D needs two slots free on every PE of %s; %d of %d are taken on some PE", t.name, bits.OnesCount64(all&free), w.teams.nslots)
		}
		slots[0], slots[1] = sx, sy
	} else {
		// The list is the same on every PE, so all reach the same verdict.
		var used uint64
		for _, q := range mine[0] {
			used |= words[2*q]
		}
		s := bits.TrailingZeros64(free &^ used)
		if s >= 64 {
			return nil, errf(ErrTeamLimit, "a new team of %d PEs would exceed %d live teams on one of them", len(mine[0]), w.teams.nslots)
		}
		slots[0] = s
	}
	out := make([]*Team, len(mine))
	for k, l := range mine {
		if !contains(l, t.me) {
			continue
		}
		members := make([]int, len(l))
		direct := true
		for i, p := range l {
			members[i] = t.members[p]
			if words[2*p+1]&(1<<k) == 0 {
				direct = false
			}
		}
		nt := w.newTeam(names[k], members, slots[k], direct)
		w.teams.used |= 1 << slots[k]
		out[k] = nt
	}
	return out, nil
}

func contains(l []int, x int) bool {
	for _, v := range l {
		if v == x {
			return true
		}
	}
	return false
}
