package main

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strings"
)

// entry is one line of abi.txt.
type entry struct {
	kind  string // int, handle, value, alias, callback, typealias, enumtype, group
	name  string
	ctype string // value: the C type; handle: the incomplete struct; int: the enum type
	value string
	fn    *function // callback
}

// param is one parameter of an entry point or callback.
type param struct {
	text  string // as declared: "const int recvcounts[]"
	base  string // the type without qualifiers and stars: "int"
	stars int    // pointer depth, an array counting as one
	name  string // "recvcounts"
}

// function is one C entry point (MPI_name and PMPI_name) or callback type.
type function struct {
	ret        string
	name       string // without the MPI_ prefix: "Send"
	params     []param
	variadic   bool
	deprecated bool
}

// tables is abi.txt, parsed.
type tables struct {
	entries   []entry
	funcs     []*function
	handles   map[string]bool // MPI_Comm, ..., MPI_T_enum
	callbacks map[string]bool // MPI_User_function, ...
}

var sigRE = regexp.MustCompile(`^(\w+) (\w+)\((.*)\)( deprecated)?$`)

func parseTables(data []byte) (*tables, error) {
	t := &tables{handles: map[string]bool{}, callbacks: map[string]bool{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		kind, rest, _ := strings.Cut(line, " ")
		f := strings.Fields(rest)
		bad := fmt.Errorf("abi.txt:%d: malformed %q", n, line)
		switch kind {
		case "int":
			if len(f) < 2 || len(f) > 3 {
				return nil, bad
			}
			e := entry{kind: kind, name: f[0], value: f[1]}
			if len(f) == 3 {
				e.ctype = f[2]
			}
			t.entries = append(t.entries, e)
		case "handle":
			if len(f) != 2 {
				return nil, bad
			}
			t.handles[f[0]] = true
			t.entries = append(t.entries, entry{kind: kind, name: f[0], ctype: f[1]})
		case "value":
			if len(f) != 3 {
				return nil, bad
			}
			t.entries = append(t.entries, entry{kind: kind, name: f[0], ctype: f[1], value: f[2]})
		case "alias", "typealias":
			if len(f) != 2 {
				return nil, bad
			}
			t.entries = append(t.entries, entry{kind: kind, name: f[0], value: f[1]})
		case "enumtype":
			if len(f) != 1 {
				return nil, bad
			}
			t.entries = append(t.entries, entry{kind: kind, name: f[0]})
		case "group":
			t.entries = append(t.entries, entry{kind: kind, name: rest})
		case "callback", "func":
			fn, err := parseSig(rest)
			if err != nil {
				return nil, fmt.Errorf("abi.txt:%d: %w", n, err)
			}
			if kind == "func" {
				t.funcs = append(t.funcs, fn)
				continue
			}
			t.callbacks[fn.name] = true
			t.entries = append(t.entries, entry{kind: kind, name: fn.name, fn: fn})
		default:
			return nil, bad
		}
	}
	for _, e := range t.entries { // a typealias of a callback is a callback
		if e.kind == "typealias" && t.callbacks[e.value] {
			t.callbacks[e.name] = true
		}
	}
	return t, sc.Err()
}

func parseSig(s string) (*function, error) {
	m := sigRE.FindStringSubmatch(s)
	if m == nil {
		return nil, fmt.Errorf("bad signature %q", s)
	}
	fn := &function{ret: m[1], name: m[2], deprecated: m[4] != ""}
	if m[3] == "void" {
		return fn, nil
	}
	for _, p := range strings.Split(m[3], ",") {
		p = strings.TrimSpace(p)
		if p == "..." {
			fn.variadic = true
			continue
		}
		q, err := parseParam(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s, err)
		}
		fn.params = append(fn.params, q)
	}
	return fn, nil
}

var paramRE = regexp.MustCompile(`^(const )?(\w+)\s*(\**)\s*(\w+)((\[\](\[\d+\])?)?)$`)

func parseParam(p string) (param, error) {
	m := paramRE.FindStringSubmatch(p)
	if m == nil {
		return param{}, fmt.Errorf("bad parameter %q", p)
	}
	q := param{text: p, base: m[2], stars: len(m[3]), name: m[4]}
	if m[5] != "" {
		q.stars++
	}
	return q, nil
}
