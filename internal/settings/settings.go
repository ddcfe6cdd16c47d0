// Package settings is gshmem's one table of GSHMEM_* variables (table.go):
// each row's name, kind, default, accepted range, reader and help. The
// readers parse and validate their variables through it (shmem's Options,
// compat's, the C library's), gshmem info and the README's table print it,
// and gshmem run checks a job's environment against it once, whatever
// packages the program links: a value out of range is refused in one line
// naming the variable, and a name the table does not hold is flagged as a
// likely misspelling. It imports nothing of gshmem, so every floor may use
// it.
package settings

import (
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Kind is the form of a variable's value.
type Kind string

// The kinds of value.
const (
	Size     Kind = "size"     // bytes: 4096, 512m, 1.5g, 1GiB
	Duration Kind = "duration" // a Go duration or seconds, above zero
	Count    Kind = "count"    // a whole number
	Choice   Kind = "choice"   // one of Choices, case-insensitive
	Text     Kind = "text"     // an address, a path, a pattern, a command
	Launcher Kind = "launcher" // set by gshmem run for its PEs
)

// Var is one row of the table.
type Var struct {
	Name    string
	Kind    Kind
	Default string // as the documentation shows it
	// Range says what values are accepted beyond the kind's form; Min and
	// Max bound a Size or Count (Max 0: no bound); Choices are a Choice's
	// values, the first of each alias group as documented.
	Range    string
	Min, Max uint64
	Choices  []string
	// Aliases maps other spellings of a Choice to one of Choices.
	Aliases map[string]string
	// Reader is who reads it: shmem, compat, the C library, gshmem run, ...
	Reader string
	Help   string
	// NVSHMEM is the NVSHMEM variable of the same meaning, which the C
	// library reads when this one is unset (nvshmem.go); NVSHMEMValues
	// maps its values (upper case) to this one's, nil taking them as
	// they are.
	NVSHMEM       string
	NVSHMEMValues map[string]string
}

// Error is a value a variable does not accept.
type Error struct {
	Name, Value string
	Want        string
}

func (e *Error) Error() string { return fmt.Sprintf("%s=%q: want %s", e.Name, e.Value, e.Want) }

// Lookup returns the row of name.
func Lookup(name string) (Var, bool) {
	i := slices.IndexFunc(table, func(v Var) bool { return v.Name == name })
	if i < 0 {
		return Var{}, false
	}
	return table[i], true
}

// All returns the table in documentation order.
func All() []Var { return slices.Clone(table) }

// must returns the row of name; the readers name rows of the table, so a
// missing one is a programming error caught by any test.
func must(name string) Var {
	v, ok := Lookup(name)
	if !ok {
		panic("settings: no row " + name)
	}
	return v
}

// Get returns the row of name (readers' entry point: settings.Get("GSHMEM_SPIN")).
func Get(name string) Var { return must(name) }

// want says in words what v accepts.
func (v Var) want() string {
	switch v.Kind {
	case Size:
		w := "a size such as 64k, 512m or 1.5g (powers of 1024)"
		if v.Range != "" {
			w += ", " + v.Range
		}
		return w
	case Duration:
		return "a duration above zero such as 30s, or seconds"
	case Count:
		if v.Range != "" {
			return "a whole number, " + v.Range
		}
		return "a whole number"
	case Choice:
		return strings.Join(v.Choices, ", ")
	}
	return v.Range
}

// Check reports whether value (set: not "") is one v accepts.
func (v Var) Check(value string) error {
	var err error
	switch v.Kind {
	case Size:
		_, err = v.size(value)
	case Duration:
		_, err = v.duration(value)
	case Count:
		_, err = v.count(value)
	case Choice:
		_, err = v.choice(value)
	}
	return err
}

func (v Var) fail(value string) error { return &Error{Name: v.Name, Value: value, Want: v.want()} }

func (v Var) size(value string) (uint64, error) {
	n, err := ParseSize(value)
	if err != nil || n < v.Min || v.Max != 0 && n > v.Max {
		return 0, v.fail(value)
	}
	return n, nil
}

func (v Var) duration(value string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(value))
	if err != nil {
		secs, err2 := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err2 != nil || secs > float64(1<<62)/float64(time.Second) {
			return 0, v.fail(value)
		}
		d = time.Duration(secs * float64(time.Second))
	}
	if d <= 0 {
		return 0, v.fail(value)
	}
	return d, nil
}

func (v Var) count(value string) (int, error) {
	n, err := strconv.ParseUint(strings.TrimSpace(value), 10, 62)
	if err != nil || n < v.Min || v.Max != 0 && n > v.Max {
		return 0, v.fail(value)
	}
	return int(n), nil
}

func (v Var) choice(value string) (string, error) {
	c := strings.ToLower(strings.TrimSpace(value))
	if a, ok := v.Aliases[c]; ok {
		c = a
	}
	if !slices.Contains(v.Choices, c) {
		return "", v.fail(value)
	}
	return c, nil
}

// Size reads v's value through getenv: set is false when it is unset or
// empty, err names the variable when it is not a size in range.
func (v Var) Size(getenv func(string) string) (n uint64, set bool, err error) {
	s := getenv(v.Name)
	if s == "" {
		return 0, false, nil
	}
	n, err = v.size(s)
	return n, err == nil, err
}

// Duration reads v's value, as Size.
func (v Var) Duration(getenv func(string) string) (d time.Duration, set bool, err error) {
	s := getenv(v.Name)
	if s == "" {
		return 0, false, nil
	}
	d, err = v.duration(s)
	return d, err == nil, err
}

// Count reads v's value, as Size.
func (v Var) Count(getenv func(string) string) (n int, set bool, err error) {
	s := getenv(v.Name)
	if s == "" {
		return 0, false, nil
	}
	n, err = v.count(s)
	return n, err == nil, err
}

// Choice reads v's value as one of its Choices (aliases resolved, lower
// case), "" when unset.
func (v Var) Choice(getenv func(string) string) (string, error) {
	s := getenv(v.Name)
	if strings.TrimSpace(s) == "" {
		return "", nil
	}
	return v.choice(s)
}

// CheckEnv checks every GSHMEM_* variable of environ ("NAME=value") against
// the table: the values it refuses, and the names it does not hold.
func CheckEnv(environ []string) (bad []error, unknown []Unknown) {
	var names []string
	for _, v := range table {
		names = append(names, v.Name)
	}
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, Prefix) || value == "" {
			continue
		}
		if v, ok := Lookup(name); ok {
			if err := v.Check(value); err != nil {
				bad = append(bad, err)
			}
		}
	}
	return bad, Find(environ, names)
}

// ParseSize parses a byte count: digits with an optional fraction and an
// optional k, m, g or t suffix, each a power of 1024 whatever its spelling
// (k, kb, kib; case-insensitive): 4096, 512m, 512MiB, 1g, 1.5g, 1GiB. A
// fraction must come to a whole number of bytes. Errors say what is
// accepted; callers add the variable or flag they read.
func ParseSize(s string) (uint64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	num := strings.TrimRight(t, "kmgtib")
	unit := t[len(num):]
	shift, ok := map[string]uint{"": 0, "b": 0, "k": 10, "kb": 10, "kib": 10, "m": 20, "mb": 20, "mib": 20,
		"g": 30, "gb": 30, "gib": 30, "t": 40, "tb": 40, "tib": 40}[unit]
	whole, frac, hasFrac := strings.Cut(num, ".")
	if !ok || whole == "" || !allDigits(whole) || hasFrac && (frac == "" || !allDigits(frac)) {
		return 0, fmt.Errorf("%q is not a size: want bytes, or a number with k, m, g or t (powers of 1024; 512m, 1.5g, 1GiB)", s)
	}
	n, err := strconv.ParseUint(whole, 10, 64)
	if err != nil || n > (^uint64(0))>>shift {
		return 0, fmt.Errorf("size %q overflows", s)
	}
	n <<= shift
	if hasFrac {
		// frac/10^len(frac) of the unit, exactly: digits beyond 19 would
		// overflow and cannot make a whole byte count of a power of 1024.
		if len(frac) > 18 {
			return 0, fmt.Errorf("size %q has too many decimals", s)
		}
		f, _ := strconv.ParseUint(frac, 10, 64)
		den := uint64(1)
		for range frac {
			den *= 10
		}
		hi, lo := bits.Mul64(f, uint64(1)<<shift)
		if hi != 0 {
			return 0, fmt.Errorf("size %q overflows", s)
		}
		if lo%den != 0 {
			return 0, fmt.Errorf("size %q is not a whole number of bytes", s)
		}
		add := lo / den
		if n+add < n {
			return 0, fmt.Errorf("size %q overflows", s)
		}
		n += add
	}
	return n, nil
}

func allDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
