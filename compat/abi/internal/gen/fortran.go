package main

import (
	"fmt"
	"sort"
	"strings"
)

// The Fortran binding library (compat/abi/fortran) is generated from the
// same C entry points as mpi.h: every MPI-4.1 routine with a Fortran
// binding becomes a Fortran-callable C function (mpi_send_, pmpi_send_ for
// mpif.h and use mpi; MPI_Send_f08 for use mpi_f08) that converts its
// arguments and calls the C ABI, and an explicit interface in the mpi and
// mpi_f08 modules. The conversion of an argument follows from its C type
// and, where the type alone does not say it, from its name (fclass); the
// few routines whose arguments no rule covers (callbacks, attributes,
// MPI_Init's argv) are written by hand in fortran/special.c and listed in
// fortranHand; fortranOmit names the C parameters a Fortran binding lacks.

// fortranHand: routines whose Fortran binding is hand-written in
// fortran/special.c, callbacks.c, spawn.c (C) and fortran/special_mpi.f90 / special_f08.f90
// (interfaces).
var fortranHand = map[string]bool{
	"Init": true, "Init_thread": true, "Wtime": true, "Wtick": true, "Pcontrol": true,
	"Aint_add": true, "Aint_diff": true,
	"Comm_get_attr": true, "Comm_set_attr": true, "Type_get_attr": true, "Type_set_attr": true,
	"Win_get_attr": true, "Win_set_attr": true, "Attr_get": true, "Attr_put": true,
	"Op_create": true, "Comm_create_errhandler": true, "Win_create_errhandler": true,
	"File_create_errhandler": true, "Session_create_errhandler": true,
	"Comm_create_keyval": true, "Type_create_keyval": true, "Win_create_keyval": true,
	"Keyval_create": true,
	"Comm_spawn":    true, "Comm_spawn_multiple": true, "Grequest_start": true, "Register_datarep": true,
	"Op_create_c": true, "Register_datarep_c": true,
}

// fortranSkip reports whether C entry point f has no Fortran binding: the
// tools interface and the int conversions are C-only in the standard.
func fortranSkip(f *function) bool {
	return strings.HasPrefix(f.name, "T_") || strings.HasSuffix(f.name, "_toint") || strings.HasSuffix(f.name, "_fromint")
}

// fortranOmit: C parameters that the routine's Fortran binding does not
// have, with the value the binding passes in their place. MPI_INFO_CREATE_ENV
// (MPI-4.1 section 11.2.5) takes only INFO: a Fortran program has no argc
// and argv, and the C library reads the process's own command line when
// they are 0 and NULL.
var fortranOmit = map[string]map[string]string{
	"Info_create_env": {"argc": "0", "argv": "NULL"},
}

// fortranLogical: parameters that are Fortran LOGICALs (C ints).
var fortranLogical = map[string]bool{
	"flag": true, "reorder": true, "periods": true, "remain_dims": true, "weighted": true,
	"is_set": true, "logical_true": true, "logical_false": true, "commute": true,
}

// farg is one parameter of a Fortran binding with its conversion class:
//
//	ival  int by value: INTEGER, dereferenced
//	lin   a LOGICAL by value, converted to a C int
//	sval  MPI_Aint/MPI_Offset/MPI_Count by value, dereferenced
//	h     a handle by value: INTEGER through MPI_X_fromint
//	hp    a handle by pointer: converted in, and back with MPI_X_toint
//	ha    an array of handles of length n
//	buf   a choice buffer: special addresses (MPI_BOTTOM, MPI_IN_PLACE) mapped
//	sin   an input string: hidden length, trailing blanks trimmed
//	sout  an output string: blank-padded to the hidden length
//	st    a status or array of statuses (the same 8 INTEGERs as C's)
//	ptr   int, MPI_Aint, MPI_Count, MPI_Offset by pointer, passed through
//	lout  a LOGICAL output
//	lptr  a LOGICAL array or LOGICAL by pointer, passed through
//	spec  an int array with special addresses (errcodes, weights)
//	omit  not in the Fortran binding (fortranOmit): n is the C value passed
//	index the index of a completed request (MPI_WAITANY, _TESTANY,
//	      _REQUEST_GET_STATUS_ANY): 1-based in Fortran, MPI_UNDEFINED kept
//	indices the same for the array_of_indices of the _SOME calls
//	sinfo an info key or value: sin with the leading blanks stripped too
//	buflen MPI_INFO_GET_STRING's BUFLEN: in Fortran the characters the
//	      value holds, and on return the value's length (C counts its NUL)
type farg struct {
	p      param
	class  string
	handle string // h, hp, ha: the handle type without MPI_ ("Comm")
	array  bool
	n      string // ha: the C expression of the array's length; omit: the value
}

// fbinding is one routine's Fortran binding.
type fbinding struct {
	f       *function
	args    []farg
	hasBuf  bool
	hasStr  bool
	noblock bool // the buffer outlives the call (nonblocking, persistent, attach)
	addr    bool // only the buffer's address is used (MPI_Get_address): never a copy
}

// has reports whether one of b's arguments is of class c.
func (b *fbinding) has(c string) bool {
	for _, a := range b.args {
		if a.class == c {
			return true
		}
	}
	return false
}

// hasFlag reports whether b returns a LOGICAL named flag.
func (b *fbinding) hasFlag() bool {
	for _, a := range b.args {
		if a.class == "lout" && a.p.name == "flag" {
			return true
		}
	}
	return false
}

func fortranBindings(t *tables) ([]*fbinding, error) {
	var out []*fbinding
	for _, f := range t.funcs {
		if fortranSkip(f) || fortranHand[f.name] {
			continue
		}
		b, err := fortranBinding(f, t)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

func fortranBinding(f *function, t *tables) (*fbinding, error) {
	if f.ret != "int" || f.variadic {
		return nil, fmt.Errorf("Fortran binding of MPI_%s: returns %s: add it to fortranHand or fortranOmit", f.name, f.ret)
	}
	b := &fbinding{f: f}
	for _, p := range f.params {
		a := farg{p: p, array: strings.Contains(p.text, "[]")}
		handle := t.handles[p.base] && !strings.HasPrefix(p.base, "MPI_T_")
		omit, omitted := fortranOmit[f.name][p.name]
		switch {
		case omitted:
			a.class, a.n = "omit", omit
		case p.stars == 0 && p.base == "int":
			a.class = "ival"
			if fortranLogical[p.name] {
				a.class = "lin"
			}
		case p.stars == 0 && (p.base == "MPI_Aint" || p.base == "MPI_Offset" || p.base == "MPI_Count"):
			a.class = "sval"
		case p.stars == 0 && handle:
			a.class, a.handle = "h", strings.TrimPrefix(p.base, "MPI_")
		case p.stars == 1 && p.base == "void":
			a.class = "buf"
			if fortranLogical[p.name] {
				a.class = "lptr"
			}
			b.hasBuf = b.hasBuf || a.class == "buf"
		case p.stars == 1 && p.base == "char":
			a.class = "sout"
			if strings.HasPrefix(p.text, "const ") {
				a.class = "sin"
				// An info key or value loses its leading blanks too.
				if strings.HasPrefix(f.name, "Info_") && (p.name == "key" || p.name == "value") {
					a.class = "sinfo"
				}
			}
			b.hasStr = true
		case p.stars == 1 && p.base == "MPI_Status":
			a.class = "st"
		case p.stars == 1 && handle:
			a.handle = strings.TrimPrefix(p.base, "MPI_")
			a.class = "hp"
			if a.array {
				a.class = "ha"
				n, err := handleArrayLen(f, p)
				if err != nil {
					return nil, err
				}
				a.n = n
			}
		case p.stars == 1 && p.base == "int":
			switch {
			case p.name == "buflen" && f.name == "Info_get_string":
				a.class = "buflen"
			case p.name == "indx" && !a.array:
				a.class = "index"
			case p.name == "array_of_indices":
				a.class = "indices"
			case p.name == "array_of_errcodes" || strings.HasSuffix(p.name, "weights"):
				a.class = "spec"
			case fortranLogical[p.name] && !a.array:
				a.class = "lout"
			case fortranLogical[p.name]:
				a.class = "lptr"
			default:
				a.class = "ptr"
			}
		case p.stars == 1 && (p.base == "MPI_Aint" || p.base == "MPI_Offset" || p.base == "MPI_Count"):
			a.class = "ptr"
		default:
			return nil, fmt.Errorf("Fortran binding of MPI_%s: no rule for parameter %q: add it to fortranHand or fortranOmit", f.name, p.text)
		}
		b.args = append(b.args, a)
	}
	if b.hasBuf {
		for _, p := range f.params {
			if p.base == "MPI_Request" && p.stars == 1 {
				b.noblock = true
			}
		}
		switch strings.TrimSuffix(f.name, "_c") {
		case "Buffer_attach", "Win_create", "Win_attach",
			// RMA: the origin and result buffers are the program's own
			// until the epoch ends, never a copy the call drops.
			"Put", "Get", "Accumulate", "Get_accumulate", "Fetch_and_op", "Compare_and_swap":
			b.noblock = true
		case "Get_address", "Free_mem":
			b.addr = true
		}
	}
	return b, nil
}

// handleArrayLen is the length of an array of handles: the comm's size
// (or remote size, or neighbour count) for the w-collectives, the count
// argument otherwise.
func handleArrayLen(f *function, p param) (string, error) {
	switch {
	case strings.Contains(f.name, "eighbor_alltoallw"):
		return fmt.Sprintf("fb_nbr_count(FB_FROM(Comm, *comm), %d)", map[bool]int{true: 1, false: 0}[p.name == "sendtypes"]), nil
	case strings.Contains(f.name, "lltoallw"):
		return "fb_comm_count(FB_FROM(Comm, *comm))", nil
	case f.name == "Type_get_contents" || f.name == "Type_get_contents_c":
		return "*max_datatypes", nil
	}
	for _, q := range f.params {
		if q.stars == 0 && (q.name == "count" || q.name == "incount") {
			return "*" + q.name, nil
		}
	}
	return "", fmt.Errorf("Fortran binding of MPI_%s: no length for %s", f.name, p.name)
}

// fortranName is the link name gfortran gives an external procedure.
func fortranName(prefix, name string) string { return strings.ToLower(prefix+"_"+name) + "_" }

// fortranC writes fortran/zbind.c: the Fortran-callable entry points.
func fortranC(bs []*fbinding) []byte {
	var w strings.Builder
	p := func(f string, a ...any) { fmt.Fprintf(&w, f, a...) }
	p("/* The Fortran bindings of libgshmem_mpifort over the C ABI. %s */\n", banner)
	p("#include \"fbind.h\"\n")
	for _, b := range bs {
		fortranCOne(&w, b)
	}
	return []byte(w.String())
}

func fortranCOne(w *strings.Builder, b *fbinding) {
	p := func(f string, a ...any) { fmt.Fprintf(w, f, a...) }
	f := b.f
	var params, hidden, call, pre, post []string
	argParam := make([]string, len(b.args)) // each argument's C parameter ("" for omit)
	for i, a := range b.args {
		n := a.p.name
		before := len(params)
		switch a.class {
		case "omit":
			call = append(call, a.n)
		case "ival", "lin", "sval", "h":
			ctype := map[string]string{"ival": "int", "lin": "int", "sval": a.p.base, "h": "int"}[a.class]
			params = append(params, "const "+ctype+" *"+n)
			switch a.class {
			case "ival", "sval":
				call = append(call, "*"+n)
			case "lin":
				call = append(call, "fb_lin(*"+n+")")
			case "h":
				call = append(call, fmt.Sprintf("FB_FROM(%s, *%s)", a.handle, n))
			}
		case "hp":
			params = append(params, "int *"+n)
			pre = append(pre, fmt.Sprintf("MPI_%s c_%s = FB_FROM(%s, *%s);", a.handle, n, a.handle, n))
			call = append(call, "&c_"+n)
			post = append(post, fmt.Sprintf("*%s = FB_TO(%s, c_%s);", n, a.handle, n))
		case "ha":
			params = append(params, "int *"+n)
			pre = append(pre, fmt.Sprintf("int n_%s = %s; MPI_%s *c_%s = fb_alloc(n_%s, sizeof(MPI_%s));", n, a.n, a.handle, n, n, a.handle),
				fmt.Sprintf("if (n_%s > 0 && !c_%s) { fb_ret(ierror, MPI_ERR_NO_MEM); return; }", n, n),
				fmt.Sprintf("for (int i = 0; i < n_%s; i++) c_%s[i] = FB_FROM(%s, %s[i]);", n, n, a.handle, n))
			call = append(call, "c_"+n)
			if !strings.HasPrefix(a.p.text, "const ") {
				post = append(post, fmt.Sprintf("for (int i = 0; i < n_%s; i++) %s[i] = FB_TO(%s, c_%s[i]);", n, n, a.handle, n))
			}
			post = append(post, fmt.Sprintf("free(c_%s);", n))
		case "buf":
			params = append(params, "void *"+n)
			call = append(call, "fb_addr("+n+")")
		case "lptr", "ptr":
			params = append(params, a.p.base+" *"+n)
			if strings.HasSuffix(a.p.text, "[][3]") { // MPI_Group_range_incl's ranges
				call = append(call, "(int (*)[3])"+n)
			} else {
				call = append(call, n)
			}
		case "lout":
			params = append(params, "int *"+n)
			call = append(call, n)
			post = append(post, fmt.Sprintf("*%s = fb_lout(*%s);", n, n))
		case "index":
			params = append(params, "int *"+n)
			call = append(call, n)
			post = append(post, fmt.Sprintf("if ((rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) && *%s >= 0) (*%s)++;", n, n))
		case "indices":
			params = append(params, "int *"+n)
			call = append(call, n)
			post = append(post, fmt.Sprintf("if ((rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) && *outcount >= 0 && *outcount <= *incount) for (int i = 0; i < *outcount; i++) %s[i]++;", n))
		case "spec":
			params = append(params, "int *"+n)
			call = append(call, "fb_ints("+n+")")
		case "st":
			params = append(params, "MPI_Status *"+n)
			call = append(call, "fb_status("+n+")")
		case "buflen":
			params = append(params, "int *"+n)
			pre = append(pre, fmt.Sprintf("int c_%s = *%s < 0 ? 0 : *%s + 1;", n, n, n))
			call = append(call, "&c_"+n)
		case "sin", "sinfo":
			conv := map[string]string{"sin": "fb_cstr", "sinfo": "fb_cstr_info"}[a.class]
			params = append(params, "const char *"+n)
			hidden = append(hidden, "size_t "+n+"_len")
			pre = append(pre, fmt.Sprintf("char *c_%s = %s(%s, %s_len);", n, conv, n, n),
				fmt.Sprintf("if (!c_%s) { fb_ret(ierror, MPI_ERR_NO_MEM); return; }", n))
			call = append(call, "c_"+n)
			post = append(post, fmt.Sprintf("free(c_%s);", n))
		case "sout":
			params = append(params, "char *"+n)
			hidden = append(hidden, "size_t "+n+"_len")
			room := n + "_len"
			if b.has("buflen") {
				room = "(size_t)c_buflen > " + n + "_len ? (size_t)c_buflen : " + n + "_len"
			}
			pre = append(pre, fmt.Sprintf("char *c_%s = fb_outbuf(%s);", n, room),
				fmt.Sprintf("if (!c_%s) { fb_ret(ierror, MPI_ERR_NO_MEM); return; }", n))
			call = append(call, "c_"+n)
			// A value that was not found leaves the program's string as
			// it was (MPI_INFO_GET, _GET_STRING); so does a BUFLEN of 0.
			out := fmt.Sprintf("fb_fstr(%s, %s_len, c_%s);", n, n, n)
			if b.hasFlag() {
				pre = append(pre, "*flag = 0; /* as it reads when the call fails */")
			}
			switch {
			case b.has("buflen"):
				out = fmt.Sprintf("if (*flag) { if (*buflen > 0) %s *buflen = c_buflen - 1; }", out)
			case b.hasFlag():
				out = fmt.Sprintf("if (*flag) %s", out)
			}
			post = append(post, out+fmt.Sprintf(" free(c_%s);", n))
		}
		if len(params) > before {
			argParam[i] = params[before]
		}
	}
	params = append(params, "int *ierror")
	params = append(params, hidden...)
	fname := fortranName("pmpi", f.name)
	p("\nvoid %s(%s)\n{\n", fname, strings.Join(params, ", "))
	for _, s := range pre {
		p("    %s\n", s)
	}
	p("    int rc = MPI_%s(%s);\n", f.name, strings.Join(call, ", "))
	for _, s := range post {
		p("    %s\n", s)
	}
	p("    fb_ret(ierror, rc);\n}\n")
	p("FB_ALIAS(%s, %s)\n", fortranName("mpi", f.name), fname)
	if !b.hasBuf && !b.hasStr {
		return // use mpi_f08 binds to the same entry point
	}
	// The mpi_f08 entry point: buffers and strings come as descriptors.
	// A refused buffer is raised on the call's communicator, window or
	// file (its error handler), else on MPI_COMM_SELF.
	errOn := "FB_ON_SELF, 0"
	for _, a := range b.args {
		if a.class == "h" && (a.handle == "Comm" || a.handle == "Win" || a.handle == "File") {
			errOn = "FB_ON_" + strings.ToUpper(a.handle) + ", *" + a.p.name
			break
		}
	}
	var fparams, fcall []string
	var fpre, fpost []string
	sect := sectionArgs(b)
	for i, a := range b.args {
		n := a.p.name
		if o, ok := sect[i]; ok {
			// The count or datatype of a nonblocking buffer: 1 of the
			// section's own type where fb_cfi_sec made one.
			fparams = append(fparams, argParam[i])
			fcall = append(fcall, o)
			continue
		}
		switch a.class {
		case "buf":
			fparams = append(fparams, "CFI_cdesc_t *"+n)
			fcall = append(fcall, "b_"+n)
			if _, ok := sect[i+1]; ok {
				cnt, dt := b.args[i+1].p.name, b.args[i+2].p.name
				fpre = append(fpre,
					fmt.Sprintf("int s_%s; void *b_%s = fb_cfi_sec(%s, *%s, *%s, &s_%s, ierror, %s); if (b_%s == FB_BAD) %s", n, n, n, cnt, dt, n, errOn, n, bail(fpost)),
					fmt.Sprintf("__typeof__(*%s) one_%s = 1; MPI_Datatype c_s_%s = FB_FROM(Datatype, s_%s);", cnt, n, n, n))
				fpost = append(fpost, fmt.Sprintf("if (c_s_%s != MPI_DATATYPE_NULL) MPI_Type_free(&c_s_%s);", n, n))
				continue
			}
			fpre = append(fpre, fmt.Sprintf("void *b_%s = fb_cfi(%s, %d, ierror, %s); if (b_%s == FB_BAD) %s", n, n, map[bool]int{true: 1, false: 0}[b.noblock], errOn, n, bail(fpost)))
		case "sin", "sinfo", "sout":
			fparams = append(fparams, "CFI_cdesc_t *"+n)
			fcall = append(fcall, "(char *)"+n+"->base_addr")
		case "omit":
		default:
			fparams = append(fparams, argParam[i])
			fcall = append(fcall, n)
		}
	}
	fparams = append(fparams, "int *ierror")
	fcall = append(fcall, "ierror")
	for _, a := range b.args {
		if a.class == "sin" || a.class == "sinfo" || a.class == "sout" {
			fcall = append(fcall, a.p.name+"->elem_len")
		}
	}
	p("void MPI_%s_f08(%s)\n{\n", f.name, strings.Join(fparams, ", "))
	for _, s := range fpre {
		p("    %s\n", s)
	}
	p("    %s(%s);\n", fname, strings.Join(fcall, ", "))
	for _, s := range fpost {
		p("    %s\n", s)
	}
	p("}\n")
}

// bail is how an mpi_f08 entry point leaves when a buffer is refused:
// freeing the section types made for the buffers before it.
func bail(frees []string) string {
	if len(frees) == 0 {
		return "return;"
	}
	return "{ " + strings.Join(frees, " ") + " return; }"
}

// sectionCalls are the calls whose buffers outlive them and hold the
// whole message their count and datatype say (not one block per process,
// as a gather's receive buffer, nor a count shared with another buffer,
// as a reduction's): nonblocking point-to-point and broadcast, RMA and
// nonblocking file I/O. Not the persistent inits: the section's datatype is
// freed once the call has started, and compat's persistent requests name
// their datatype again at each MPI_Start.
var sectionCalls = map[string]bool{
	"Isend": true, "Ibsend": true, "Issend": true, "Irsend": true, "Irecv": true, "Imrecv": true,
	"Isendrecv": true, "Isendrecv_replace": true, "Ibcast": true,
	"Put": true, "Get": true, "Accumulate": true, "Get_accumulate": true,
	"Rput": true, "Rget": true, "Raccumulate": true, "Rget_accumulate": true,
	"File_iread": true, "File_iwrite": true, "File_iread_at": true, "File_iwrite_at": true,
	"File_iread_all": true, "File_iwrite_all": true, "File_iread_at_all": true, "File_iwrite_at_all": true,
	"File_iread_shared": true, "File_iwrite_shared": true,
}

// sectionArgs finds, in a call of sectionCalls, each buffer followed by
// its count and datatype (MPI_Isend's buf, count, datatype; MPI_Put's
// origin_addr, origin_count, origin_datatype): fb_cfi_sec may describe a
// noncontiguous section of such a buffer by a datatype of its own. It maps
// the count's and the datatype's argument index to what the mpi_f08 entry
// point passes for them.
func sectionArgs(b *fbinding) map[int]string {
	out := map[int]string{}
	if !b.noblock || !sectionCalls[strings.TrimSuffix(b.f.name, "_c")] {
		return out
	}
	for i, a := range b.args {
		if a.class != "buf" || i+2 >= len(b.args) {
			continue
		}
		c, d := b.args[i+1], b.args[i+2]
		if !strings.HasSuffix(c.p.name, "count") || c.p.stars != 0 || d.class != "h" || d.handle != "Datatype" {
			continue
		}
		n := a.p.name
		out[i+1] = fmt.Sprintf("c_s_%s != MPI_DATATYPE_NULL ? &one_%s : %s", n, n, c.p.name)
		out[i+2] = fmt.Sprintf("c_s_%s != MPI_DATATYPE_NULL ? &s_%s : %s", n, n, d.p.name)
	}
	return out
}

// fortranConstants lists the named integer constants of the Fortran
// bindings with their values: the ABI's integer constants and the toint
// values of its predefined handles.
type fconst struct {
	name, value, kind string // kind: "" (INTEGER) or a KIND name
	handle            string // the handle type for mpi_f08 ("Comm"), or ""
}

func fortranConstants(t *tables) ([]fconst, error) {
	var out []fconst
	vals := map[string]string{}
	seen := map[string]bool{}
	add := func(c fconst) error {
		u := strings.ToUpper(c.name)
		if seen[u] {
			return fmt.Errorf("Fortran constant %s defined twice (Fortran names ignore case)", c.name)
		}
		seen[u] = true
		vals[c.name] = c.value
		out = append(out, c)
		return nil
	}
	for _, e := range t.entries {
		var c fconst
		switch {
		case e.kind == "int" && e.ctype == "" && !strings.HasPrefix(e.name, "MPI_T_") && !strings.HasPrefix(e.name, "MPI_F_"):
			c = fconst{name: e.name, value: decimal(e.value)}
		case e.kind == "value" && t.handles[e.ctype] && !strings.HasPrefix(e.ctype, "MPI_T_"):
			c = fconst{name: e.name, value: decimal(e.value), handle: strings.TrimPrefix(e.ctype, "MPI_")}
		case e.kind == "value" && e.ctype == "MPI_Offset":
			c = fconst{name: e.name, value: decimal(e.value), kind: "MPI_OFFSET_KIND"}
		case e.kind == "alias":
			v, ok := vals[e.value]
			if !ok {
				continue
			}
			c = fconst{name: e.name, value: v}
			for _, o := range out {
				if o.name == e.value {
					c.handle, c.kind = o.handle, o.kind
				}
			}
		default:
			continue
		}
		if err := add(c); err != nil {
			return nil, err
		}
	}
	for _, e := range t.entries { // the Fortran status indices (1-based)
		switch e.name {
		case "MPI_F_STATUS_SIZE":
			add(fconst{name: "MPI_STATUS_SIZE", value: e.value})
		case "MPI_F_SOURCE", "MPI_F_TAG", "MPI_F_ERROR":
			var v int
			fmt.Sscan(e.value, &v)
			add(fconst{name: "MPI_" + strings.TrimPrefix(e.name, "MPI_F_"), value: fmt.Sprint(v + 1)})
		}
	}
	return out, nil
}

// decimal turns 0x1F into 31: Fortran has no hex literal of C's form.
func decimal(v string) string {
	var n int64
	if strings.HasPrefix(v, "0x") || strings.HasPrefix(v, "0X") {
		fmt.Sscanf(v[2:], "%x", &n)
		return fmt.Sprint(n)
	}
	if strings.HasPrefix(v, "-0x") {
		fmt.Sscanf(v[3:], "%x", &n)
		return fmt.Sprint(-n)
	}
	return v
}

// handleKinds lists the handle types that have Fortran forms.
func handleKinds(t *tables) []string {
	var ks []string
	for h := range t.handles {
		if !strings.HasPrefix(h, "MPI_T_") {
			ks = append(ks, strings.TrimPrefix(h, "MPI_"))
		}
	}
	sort.Strings(ks)
	return ks
}
