package main

import (
	"fmt"
	"strings"
)

// The large-count forms (MPI_Send_c, ...) of implemented calls are
// generated shims over the int forms: each MPI_Count (or MPI_Aint) that
// the int form takes as an int is checked to fit and converted, and each
// pointer to one (an output, or Pack's in-out position) goes through a
// temporary of the int form's type. A count of elements of a datatype
// (a count parameter followed by its datatype: MPI_Send_c's count,
// MPI_Get_c's origin and target counts) takes any value: past INT_MAX
// the shim describes the count elements as one contiguous datatype of
// them (MPI_Type_contiguous_c), which has the same type signature, so
// the message, its matching and its status are those of count elements;
// a reduction does so only under a predefined op (a user function would
// see the datatype the program never made, so past INT_MAX it raises
// MPI_ERR_UNSUPPORTED_OPERATION); a negative count reaches the int form
// as -1, which raises MPI_ERR_COUNT. Another count past INT_MAX
// raises MPI_ERR_UNSUPPORTED_OPERATION; forms with count arrays (the v
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

// typedCount reports whether c's parameter i is a count of elements of
// the datatype parameter that follows it.
func typedCount(c *function, i int) bool {
	q := c.params[i]
	return q.stars == 0 && q.base == "MPI_Count" && strings.HasSuffix(q.name, "count") &&
		i+1 < len(c.params) && c.params[i+1].base == "MPI_Datatype" && c.params[i+1].stars == 0
}

// opParam is the name of c's MPI_Op parameter, or "".
func opParam(c *function) string {
	for _, q := range c.params {
		if q.base == "MPI_Op" && q.stars == 0 {
			return q.name
		}
	}
	return ""
}

// shim is the body of PMPI_X_c over PMPI_X.
func shim(c, b *function) string {
	var body, after, args []string
	kind, arg := errObject(c)
	tooBig := fmt.Sprintf("return abiint_raise(%s, (uintptr_t)%s, MPI_ERR_UNSUPPORTED_OPERATION, (char *)\"MPI_%s\")", kind, arg, c.name)
	wide := map[int]bool{} // typed counts, described as contiguous types past INT_MAX
	for i := range c.params {
		if _, ok := narrow(c.params[i], b.params[i]); ok && b.params[i].base == "int" && typedCount(c, i) {
			wide[i] = true
		}
	}
	var frees []string
	for i, q := range c.params {
		same, _ := narrow(q, b.params[i])
		bq := b.params[i]
		switch {
		case same:
			if i > 0 && wide[i-1] {
				args = append(args, "t_"+q.name)
				continue
			}
			args = append(args, q.name)
		case wide[i]:
			dt, t := c.params[i+1].name, "t_"+c.params[i+1].name
			cond := fmt.Sprintf("%s > INT_MAX", q.name)
			if op := opParam(c); op != "" {
				cond += fmt.Sprintf(" && (uintptr_t)%s < 0x40", op) // a predefined op
			}
			body = append(body, fmt.Sprintf("    MPI_Datatype %s = %s;\n    int n_%s = (int)%s;", t, dt, q.name, q.name))
			body = append(body, fmt.Sprintf("    if (%s) {\n        int trc = PMPI_Type_contiguous_c(%s, %s, &%s);\n        if (trc == MPI_SUCCESS)\n            trc = PMPI_Type_commit(&%s);\n        if (trc != MPI_SUCCESS)\n            return trc;\n        n_%s = 1;\n    } else if (%s > INT_MAX)\n        %s;\n    else if (%s < INT_MIN)\n        n_%s = -1;",
				cond, q.name, dt, t, t, q.name, q.name, tooBig, q.name, q.name))
			frees = append(frees, fmt.Sprintf("    if (%s != %s)\n        PMPI_Type_free(&%s);", t, dt, t))
			args = append(args, "n_"+q.name)
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
	for _, l := range append(after, frees...) {
		sb.WriteString(l + "\n")
	}
	sb.WriteString("    return rc;\n")
	return sb.String()
}
