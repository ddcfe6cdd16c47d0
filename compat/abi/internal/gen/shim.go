package main

import (
	"fmt"
	"strings"
)

// The large-count forms (MPI_Send_c, ...) of implemented calls are
// generated shims over the int forms: each MPI_Count (or MPI_Aint) that
// the int form takes as an int is checked to fit and converted, and each
// pointer to one (an output, or Pack's in-out position) goes through a
// temporary of the int form's type. A count past INT_MAX raises
// MPI_ERR_UNSUPPORTED_OPERATION; forms with count arrays (the v
// and w collectives) are not shimmed: compat/abi/collc.go writes them,
// and the datatype constructors and queries have Go bodies of their own
// that take the full width.

// largeCountBase is the int form a large-count form (X_c, or MPI-3's
// deprecated X_x) stands beside.
func largeCountBase(name string) (string, bool) {
	if b, ok := strings.CutSuffix(name, "_c"); ok {
		return b, true
	}
	return strings.CutSuffix(name, "_x")
}

// narrow reports whether a parameter of the _c form maps onto the int
// form's: the same, or a wider integer (or a pointer to one).
func narrow(c, b param) (same, ok bool) {
	if c.text == b.text {
		return true, true
	}
	if c.name != b.name || c.stars != b.stars || c.stars > 1 || strings.Contains(c.text, "[") || strings.Contains(b.text, "[") {
		return false, false
	}
	wide := c.base == "MPI_Count" || c.base == "MPI_Aint"
	smaller := b.base == "int" || b.base == "MPI_Aint"
	return false, wide && smaller && c.base != b.base
}

func shimmable(c, b *function) bool {
	if b == nil || c.ret != "int" || b.ret != "int" || len(c.params) != len(b.params) || c.variadic || b.variadic {
		return false
	}
	for i := range c.params {
		if _, ok := narrow(c.params[i], b.params[i]); !ok {
			return false
		}
	}
	return true
}

// limits is the C range of an int form's type.
func limits(base string) (lo, hi string) {
	if base == "int" {
		return "INT_MIN", "INT_MAX"
	}
	return "INTPTR_MIN", "INTPTR_MAX"
}

// fits reports whether every value of the _c form's type fits the int
// form's, so no check is needed (an MPI_Count into an MPI_Aint on LP64).
func fits(c, b string) bool { return b == "MPI_Aint" && (c == "MPI_Count" || c == "MPI_Aint") }

// shim is the body of PMPI_X_c over PMPI_X.
func shim(c, b *function) string {
	var body, after, args []string
	kind, arg := errObject(c)
	tooBig := fmt.Sprintf("return abiint_raise(%s, (uintptr_t)%s, MPI_ERR_UNSUPPORTED_OPERATION, (char *)\"MPI_%s\")", kind, arg, c.name)
	for i, q := range c.params {
		same, _ := narrow(q, b.params[i])
		bq := b.params[i]
		switch {
		case same:
			args = append(args, q.name)
		case q.stars == 0:
			if !fits(q.base, bq.base) {
				lo, hi := limits(bq.base)
				body = append(body, fmt.Sprintf("    if (%s < %s || %s > %s)\n        %s;", q.name, lo, q.name, hi, tooBig))
			}
			args = append(args, fmt.Sprintf("(%s)%s", bq.base, q.name))
		default: // a pointer: through a temporary
			tmp := "t_" + q.name
			body = append(body, fmt.Sprintf("    %s %s = 0;", bq.base, tmp))
			if q.name == "position" { // Pack's and Unpack's, read and written
				lo, hi := limits(bq.base)
				body = append(body, fmt.Sprintf("    if (%s != NULL) {\n        if (*%s < %s || *%s > %s)\n            %s;\n        %s = (%s)*%s;\n    }",
					q.name, q.name, lo, q.name, hi, tooBig, tmp, bq.base, q.name))
			}
			args = append(args, fmt.Sprintf("%s == NULL ? NULL : &%s", q.name, tmp))
			if !strings.HasPrefix(q.text, "const ") {
				after = append(after, fmt.Sprintf("    if (%s != NULL)\n        *%s = (%s)%s;", q.name, q.name, q.base, tmp))
			}
		}
	}
	var sb strings.Builder
	for _, l := range body {
		sb.WriteString(l + "\n")
	}
	fmt.Fprintf(&sb, "    int rc = PMPI_%s(%s);\n", b.name, strings.Join(args, ", "))
	for _, l := range after {
		sb.WriteString(l + "\n")
	}
	sb.WriteString("    return rc;\n")
	return sb.String()
}
