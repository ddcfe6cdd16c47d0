package settings

import (
	"slices"
	"strings"
)

// The misspelling check: a GSHMEM_* variable the table does not hold is
// most often a typo, and the job otherwise runs with the default the user
// meant to change.

// Prefix starts every gshmem variable.
const Prefix = "GSHMEM_"

// Unknown is a GSHMEM_* variable the table does not hold.
type Unknown struct {
	Name string
	// Closest is the known variable nearest in spelling, "" when none is
	// close enough to be a likely misspelling.
	Closest string
}

// Find returns the GSHMEM_* variables of environ ("NAME=value" entries)
// that are not among known, sorted by name.
func Find(environ []string, known []string) []Unknown {
	all := slices.Clone(known)
	slices.Sort(all)
	var out []Unknown
	seen := map[string]bool{}
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, Prefix) || seen[name] || slices.Contains(all, name) {
			continue
		}
		seen[name] = true
		out = append(out, Unknown{Name: name, Closest: closest(name, all)})
	}
	slices.SortFunc(out, func(a, b Unknown) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// closest returns the known name within a misspelling's reach of name: an
// edit distance of at most a quarter of the part after the prefix (at
// least 1), counting a swap of neighbours as one edit.
func closest(name string, known []string) string {
	best, bestD := "", -1
	limit := max(1, (len(name)-len(Prefix))/4)
	for _, k := range known {
		if d := distance(name, k); d <= limit && (bestD < 0 || d < bestD) {
			best, bestD = k, d
		}
	}
	return best
}

// distance is the optimal string alignment distance: insertions,
// deletions, substitutions and transpositions of adjacent characters.
func distance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// Warning is the line a job prints once for u, or "" when u is not close
// to any known variable (then only `gshmem info` lists it: test harnesses
// and other tools use GSHMEM_ names of their own).
func Warning(u Unknown) string {
	if u.Closest == "" {
		return ""
	}
	return "gshmem: warning: " + u.Name + " is not a gshmem variable and is ignored; did you mean " + u.Closest + "?"
}
