package compat

import "slices"

// Special ranks and values, as MPI defines them.
const (
	// AnySource matches a message from any rank (MPI_ANY_SOURCE).
	AnySource = -2
	// ProcNull is the null peer (MPI_PROC_NULL): a send to it completes at
	// once, a receive from it completes at once with Source ProcNull, Tag
	// AnyTag and a count of 0.
	ProcNull = -1
	// AnyTag matches a message with any tag (MPI_ANY_TAG).
	AnyTag = -1
	// Undefined is MPI_UNDEFINED: the rank of a PE not in a group, the
	// color that leaves a PE out of Split, the count of a Status whose
	// bytes are not a whole number of the datatype.
	Undefined = -32766
	// TagUB is the largest tag (MPI_TAG_UB).
	TagUB = 1<<31 - 1
)

// Group is an ordered set of PEs (MPI_Group). Its members are named by
// world rank underneath; Rank and the calls taking ranks use positions in
// the group. A Group is immutable and local to the PE that made it.
type Group struct {
	world []int // member i is world PE world[i]
	self  int   // the calling PE's world rank
}

func newGroup(world []int, self int) *Group { return &Group{world: world, self: self} }

// Size returns the number of members (MPI_Group_size).
func (g *Group) Size() int {
	if g == nil {
		return 0
	}
	return len(g.world)
}

// Rank returns the calling PE's position in the group, or Undefined
// (MPI_Group_rank).
func (g *Group) Rank() int {
	if g == nil {
		return Undefined
	}
	if i := slices.Index(g.world, g.self); i >= 0 {
		return i
	}
	return Undefined
}

// WorldRank returns the world PE number of member i, or Undefined for a
// bad i: WorldRanks without the copy.
func (g *Group) WorldRank(i int) int {
	if g == nil || i < 0 || i >= len(g.world) {
		return Undefined
	}
	return g.world[i]
}

// WorldRanks returns the world PE numbers of the members, in group order:
// what windows and teams need to address them.
func (g *Group) WorldRanks() []int {
	if g == nil {
		return nil
	}
	return slices.Clone(g.world)
}

func (g *Group) check(what string) error {
	if g == nil {
		return errorf(ClassGroup, "%s: nil group", what)
	}
	return nil
}

// checkRanks validates positions in g: in range and distinct.
func (g *Group) checkRanks(ranks []int, what string) error {
	seen := make(map[int]bool, len(ranks))
	for _, r := range ranks {
		if r < 0 || r >= len(g.world) {
			return errorf(ClassRank, "%s: rank %d of a group of %d", what, r, len(g.world))
		}
		if seen[r] {
			return errorf(ClassRank, "%s: rank %d given twice", what, r)
		}
		seen[r] = true
	}
	return nil
}

// Incl returns the group of the members at the given positions, in that
// order (MPI_Group_incl).
func (g *Group) Incl(ranks []int) (*Group, error) {
	if err := g.check("Incl"); err != nil {
		return nil, err
	}
	if err := g.checkRanks(ranks, "Incl"); err != nil {
		return nil, err
	}
	w := make([]int, len(ranks))
	for i, r := range ranks {
		w[i] = g.world[r]
	}
	return newGroup(w, g.self), nil
}

// Excl returns the group without the members at the given positions, the
// others in their order (MPI_Group_excl).
func (g *Group) Excl(ranks []int) (*Group, error) {
	if err := g.check("Excl"); err != nil {
		return nil, err
	}
	if err := g.checkRanks(ranks, "Excl"); err != nil {
		return nil, err
	}
	var w []int
	for i, pe := range g.world {
		if !slices.Contains(ranks, i) {
			w = append(w, pe)
		}
	}
	return newGroup(w, g.self), nil
}

// Union returns the members of g followed by those of h not in g
// (MPI_Group_union).
func (g *Group) Union(h *Group) (*Group, error) {
	if err := errorsOf(g.check("Union"), h.check("Union")); err != nil {
		return nil, err
	}
	w := slices.Clone(g.world)
	for _, pe := range h.world {
		if !slices.Contains(g.world, pe) {
			w = append(w, pe)
		}
	}
	return newGroup(w, g.self), nil
}

// Intersection returns the members of g that are also in h, in g's order
// (MPI_Group_intersection).
func (g *Group) Intersection(h *Group) (*Group, error) {
	if err := errorsOf(g.check("Intersection"), h.check("Intersection")); err != nil {
		return nil, err
	}
	var w []int
	for _, pe := range g.world {
		if slices.Contains(h.world, pe) {
			w = append(w, pe)
		}
	}
	return newGroup(w, g.self), nil
}

// Difference returns the members of g not in h, in g's order
// (MPI_Group_difference).
func (g *Group) Difference(h *Group) (*Group, error) {
	if err := errorsOf(g.check("Difference"), h.check("Difference")); err != nil {
		return nil, err
	}
	var w []int
	for _, pe := range g.world {
		if !slices.Contains(h.world, pe) {
			w = append(w, pe)
		}
	}
	return newGroup(w, g.self), nil
}

// Comparison results (MPI_IDENT, MPI_CONGRUENT, MPI_SIMILAR, MPI_UNEQUAL).
const (
	Ident     = 0
	Congruent = 1
	Similar   = 2
	Unequal   = 3
)

// Compare returns Ident when g and h have the same members in the same
// order, Similar when only the order differs, else Unequal
// (MPI_Group_compare).
func (g *Group) Compare(h *Group) (int, error) {
	if err := errorsOf(g.check("Compare"), h.check("Compare")); err != nil {
		return Unequal, err
	}
	if slices.Equal(g.world, h.world) {
		return Ident, nil
	}
	a, b := slices.Clone(g.world), slices.Clone(h.world)
	slices.Sort(a)
	slices.Sort(b)
	if slices.Equal(a, b) {
		return Similar, nil
	}
	return Unequal, nil
}

// TranslateRanks returns, for each position in g1, the position of the
// same PE in g2, or Undefined when it is not a member; ProcNull stays
// ProcNull (MPI_Group_translate_ranks).
func TranslateRanks(g1 *Group, ranks []int, g2 *Group) ([]int, error) {
	if err := errorsOf(g1.check("TranslateRanks"), g2.check("TranslateRanks")); err != nil {
		return nil, err
	}
	out := make([]int, len(ranks))
	for i, r := range ranks {
		switch {
		case r == ProcNull:
			out[i] = ProcNull
		case r < 0 || r >= len(g1.world):
			return nil, errorf(ClassRank, "TranslateRanks: rank %d of a group of %d", r, len(g1.world))
		default:
			out[i] = Undefined
			if j := slices.Index(g2.world, g1.world[r]); j >= 0 {
				out[i] = j
			}
		}
	}
	return out, nil
}

func errorsOf(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
