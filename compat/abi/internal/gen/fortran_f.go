package main

import (
	"fmt"
	"strings"
)

// The Fortran sources of the binding: mpif.h (fixed and free form alike:
// every line starts in column 7 and ends by column 72), the mpi module and
// the mpi_f08 module.

// specialAddr are MPI's special addresses as Fortran sees them: variables
// the binding library recognises by address (fb_addr, fb_status, fb_ints
// in fortran/fbind.h). In mpif.h and use mpi they live in common blocks
// (symbol mpifcb_<name>_); in use mpi_f08 in bind(C) module variables
// (gshmem_f08_<name>).
var specialAddr = []struct{ name, f77, f08 string }{
	{"bottom", "INTEGER MPI_BOTTOM", "integer(c_int), bind(C, name=\"gshmem_f08_bottom\") :: MPI_BOTTOM"},
	{"in_place", "INTEGER MPI_IN_PLACE", "integer(c_int), bind(C, name=\"gshmem_f08_in_place\") :: MPI_IN_PLACE"},
	{"buffer_automatic", "INTEGER MPI_BUFFER_AUTOMATIC", "integer(c_int), bind(C, name=\"gshmem_f08_buffer_automatic\") :: MPI_BUFFER_AUTOMATIC"},
	{"status_ignore", "INTEGER MPI_STATUS_IGNORE(MPI_STATUS_SIZE)", "type(MPI_Status), bind(C, name=\"gshmem_f08_status_ignore\") :: MPI_STATUS_IGNORE"},
	{"statuses_ignore", "INTEGER MPI_STATUSES_IGNORE(MPI_STATUS_SIZE,1)", "type(MPI_Status), bind(C, name=\"gshmem_f08_statuses_ignore\") :: MPI_STATUSES_IGNORE(1)"},
	{"errcodes_ignore", "INTEGER MPI_ERRCODES_IGNORE(1)", "integer(c_int), bind(C, name=\"gshmem_f08_errcodes_ignore\") :: MPI_ERRCODES_IGNORE(1)"},
	{"unweighted", "INTEGER MPI_UNWEIGHTED(1)", "integer(c_int), bind(C, name=\"gshmem_f08_unweighted\") :: MPI_UNWEIGHTED(1)"},
	{"weights_empty", "INTEGER MPI_WEIGHTS_EMPTY(1)", "integer(c_int), bind(C, name=\"gshmem_f08_weights_empty\") :: MPI_WEIGHTS_EMPTY(1)"},
	{"argv_null", "CHARACTER*1 MPI_ARGV_NULL(1)", "character(kind=c_char), bind(C, name=\"gshmem_f08_argv_null\") :: MPI_ARGV_NULL(1)"},
	{"argvs_null", "CHARACTER*1 MPI_ARGVS_NULL(1,1)", "character(kind=c_char), bind(C, name=\"gshmem_f08_argvs_null\") :: MPI_ARGVS_NULL(1,1)"},
}

// predefined callbacks: external procedures of the binding library.
var fortranCallbackConsts = []string{
	"MPI_NULL_COPY_FN", "MPI_DUP_FN", "MPI_NULL_DELETE_FN",
	"MPI_COMM_NULL_COPY_FN", "MPI_COMM_DUP_FN", "MPI_COMM_NULL_DELETE_FN",
	"MPI_TYPE_NULL_COPY_FN", "MPI_TYPE_DUP_FN", "MPI_TYPE_NULL_DELETE_FN",
	"MPI_WIN_NULL_COPY_FN", "MPI_WIN_DUP_FN", "MPI_WIN_NULL_DELETE_FN",
	"MPI_CONVERSION_FN_NULL",
}

const fortranKinds = `      INTEGER MPI_ADDRESS_KIND, MPI_OFFSET_KIND, MPI_COUNT_KIND
      INTEGER MPI_INTEGER_KIND
      PARAMETER (MPI_ADDRESS_KIND=8, MPI_OFFSET_KIND=8)
      PARAMETER (MPI_COUNT_KIND=8, MPI_INTEGER_KIND=4)
      LOGICAL MPI_SUBARRAYS_SUPPORTED, MPI_ASYNC_PROTECTS_NONBLOCKING
      PARAMETER (MPI_SUBARRAYS_SUPPORTED=.FALSE.)
      PARAMETER (MPI_ASYNC_PROTECTS_NONBLOCKING=.FALSE.)
`

// fortranDecls writes the constants and special addresses in the common
// fixed/free form of mpif.h (also included by the mpi module).
func fortranDecls(cs []fconst) (string, error) {
	var w strings.Builder
	w.WriteString(fortranKinds)
	for _, c := range cs {
		typ := "INTEGER"
		if c.kind != "" {
			typ = "INTEGER(KIND=" + c.kind + ")"
		}
		w.WriteString("      " + typ + " " + c.name + "\n")
		w.WriteString("      PARAMETER (" + c.name + "=" + c.value + ")\n")
	}
	for _, s := range specialAddr {
		w.WriteString("      " + s.f77 + "\n")
		v, _, _ := strings.Cut(strings.Fields(s.f77)[1], "(")
		w.WriteString("      COMMON /MPIFCB_" + strings.ToUpper(s.name) + "/ " + v + "\n")
		w.WriteString("      SAVE /MPIFCB_" + strings.ToUpper(s.name) + "/\n")
	}
	for _, n := range fortranCallbackConsts {
		w.WriteString("      EXTERNAL " + n + "\n")
	}
	for _, l := range strings.Split(w.String(), "\n") {
		if len(l) > 72 {
			return "", fmt.Errorf("mpif.h line over 72 columns: %q", l)
		}
	}
	return w.String(), nil
}

func mpifHeader(cs []fconst) ([]byte, error) {
	d, err := fortranDecls(cs)
	if err != nil {
		return nil, err
	}
	var w strings.Builder
	w.WriteString("! mpif.h: MPI for Fortran over gshmem's MPI-5.0 ABI library\n")
	w.WriteString("! (libmpi_abi.so.1 and libgshmem_mpifort). Valid fixed and free\n")
	w.WriteString("! form. " + banner[:strings.Index(banner, " DO NOT")] + "\n! DO NOT EDIT.\n")
	w.WriteString(d)
	w.WriteString("      DOUBLE PRECISION MPI_WTIME, MPI_WTICK\n")
	w.WriteString("      DOUBLE PRECISION PMPI_WTIME, PMPI_WTICK\n")
	w.WriteString("      EXTERNAL MPI_WTIME, MPI_WTICK, PMPI_WTIME, PMPI_WTICK\n")
	w.WriteString("      INTEGER(KIND=MPI_ADDRESS_KIND) MPI_AINT_ADD, MPI_AINT_DIFF\n")
	w.WriteString("      EXTERNAL MPI_AINT_ADD, MPI_AINT_DIFF\n")
	return []byte(w.String()), nil
}

// ftype is the Fortran declaration of a binding's argument, for use mpi
// (f08 false) or use mpi_f08.
func ftype(a farg, f08 bool) (decl string, noArgCheck bool) {
	kind := map[string]string{"MPI_Aint": "MPI_ADDRESS_KIND", "MPI_Offset": "MPI_OFFSET_KIND", "MPI_Count": "MPI_COUNT_KIND"}
	n := a.p.name
	arr := ""
	if a.array {
		arr = "(*)"
	}
	handle := func() string {
		if f08 {
			return "type(MPI_" + a.handle + ")"
		}
		return "integer"
	}
	switch a.class {
	case "ival":
		return "integer :: " + n, false
	case "lin", "lout":
		return "logical :: " + n, false
	case "lptr":
		return "logical :: " + n + arr, false
	case "sval":
		return "integer(kind=" + kind[a.p.base] + ") :: " + n, false
	case "h", "hp":
		return handle() + " :: " + n, false
	case "ha":
		return handle() + " :: " + n + "(*)", false
	case "buf":
		if f08 {
			return "type(*), dimension(..) :: " + n, false
		}
		return "type(*), dimension(*) :: " + n, true
	case "sin", "sout":
		return "character(len=*) :: " + n, false
	case "st":
		many := strings.Contains(n, "statuses")
		if f08 {
			if many {
				return "type(MPI_Status) :: " + n + "(*)", false
			}
			return "type(MPI_Status) :: " + n, false
		}
		if many {
			return "integer :: " + n + "(MPI_STATUS_SIZE,*)", false
		}
		return "integer :: " + n + "(MPI_STATUS_SIZE)", false
	case "ptr":
		if strings.HasSuffix(a.p.text, "[][3]") {
			return "integer :: " + n + "(3,*)", false
		}
		if k, ok := kind[a.p.base]; ok {
			return "integer(kind=" + k + ") :: " + n + arr, false
		}
		return "integer :: " + n + arr, false
	case "spec":
		return "integer :: " + n + "(*)", false
	}
	return "", false
}

// fline wraps a free-form statement at 100 columns with continuations.
func fline(w *strings.Builder, indent, s string) {
	for len(indent)+len(s) > 100 {
		cut := strings.LastIndex(s[:100-len(indent)], ", ")
		if cut < 0 {
			break
		}
		w.WriteString(indent + s[:cut+1] + " &\n")
		s = "    " + strings.TrimLeft(s[cut+1:], " ")
	}
	w.WriteString(indent + s + "\n")
}

func argNames(b *fbinding) string {
	var ns []string
	for _, a := range b.args {
		ns = append(ns, a.p.name)
	}
	return strings.Join(append(ns, "ierror"), ", ")
}

// mpiModule writes the mpi module: the constants of mpif.h and an explicit
// interface for every routine.
func mpiModule(cs []fconst, bs []*fbinding) ([]byte, error) {
	d, err := fortranDecls(cs)
	if err != nil {
		return nil, err
	}
	var w strings.Builder
	w.WriteString("! The mpi module over gshmem's MPI-5.0 ABI library. " + banner + "\n")
	w.WriteString("module mpi\n      implicit none\n")
	w.WriteString(d)
	w.WriteString("\ninterface\ninclude 'special_mpi.f90'\n")
	for _, b := range bs {
		if _, ok := largeCountBase(b.f.name); ok && strings.HasSuffix(b.f.name, "_c") {
			continue // the large-count forms are mpi_f08's
		}
		fline(&w, "", "subroutine MPI_"+b.f.name+"("+argNames(b)+")")
		w.WriteString("  import\n")
		for _, a := range b.args {
			decl, nac := ftype(a, false)
			if nac {
				w.WriteString("!GCC$ ATTRIBUTES NO_ARG_CHECK :: " + a.p.name + "\n")
			}
			w.WriteString("  " + decl + "\n")
		}
		w.WriteString("  integer :: ierror\nend subroutine\n")
	}
	w.WriteString("end interface\nend module mpi\n")
	return []byte(w.String()), nil
}

// f08sig is a specific procedure's type signature for generic resolution:
// two specifics whose signatures are equal cannot share a generic name.
func f08sig(b *fbinding) string {
	var s []string
	for _, a := range b.args {
		if a.class == "buf" {
			continue
		}
		d, _ := ftype(a, true)
		typ, _, _ := strings.Cut(d, " :: ")
		for _, k := range []string{"MPI_ADDRESS_KIND", "MPI_OFFSET_KIND", "MPI_COUNT_KIND"} {
			typ = strings.ReplaceAll(typ, k, "8") // one kind: int64
		}
		s = append(s, typ+fmt.Sprint(strings.Contains(d, "(")))
	}
	return strings.Join(s, ";")
}

// mpiF08Module writes the mpi_f08 module: the handle types, the
// constants, and for every routine a generic name with its default and,
// where one exists, its large-count (_c) specific.
func mpiF08Module(t *tables, cs []fconst, bs []*fbinding) []byte {
	var w strings.Builder
	p := func(f string, a ...any) { fmt.Fprintf(&w, f, a...) }
	p("! The mpi_f08 module over gshmem's MPI-5.0 ABI library. %s\n", banner)
	p("module mpi_f08\n  use, intrinsic :: iso_c_binding\n  implicit none\n")
	kinds := handleKinds(t)
	for _, k := range kinds {
		p("  type, bind(C) :: MPI_%s\n    integer :: MPI_VAL\n  end type\n", k)
	}
	p("  type, bind(C) :: MPI_Status\n    integer :: MPI_SOURCE, MPI_TAG, MPI_ERROR\n    integer :: MPI_internal(5)\n  end type\n")
	p("  integer, parameter :: MPI_ADDRESS_KIND = 8, MPI_OFFSET_KIND = 8, MPI_COUNT_KIND = 8, MPI_INTEGER_KIND = 4\n")
	p("  logical, parameter :: MPI_SUBARRAYS_SUPPORTED = .false., MPI_ASYNC_PROTECTS_NONBLOCKING = .false.\n")
	for _, c := range cs {
		switch {
		case c.handle != "":
			p("  type(MPI_%s), parameter :: %s = MPI_%s(%s)\n", c.handle, c.name, c.handle, c.value)
		case c.kind != "":
			p("  integer(kind=%s), parameter :: %s = %s\n", c.kind, c.name, c.value)
		default:
			p("  integer, parameter :: %s = %s\n", c.name, c.value)
		}
	}
	for _, s := range specialAddr {
		p("  %s\n", s.f08)
	}
	for _, n := range fortranCallbackConsts {
		p("  external :: %s\n", n)
	}
	p("  interface operator(==)\n")
	for _, k := range kinds {
		p("    module procedure gshmem_eq_%s\n", k)
	}
	p("  end interface\n  interface operator(/=)\n")
	for _, k := range kinds {
		p("    module procedure gshmem_ne_%s\n", k)
	}
	p("  end interface\n")
	p("  include 'special_f08.f90'\n")
	// Group the specifics under their generic names.
	by := map[string]*fbinding{}
	for _, b := range bs {
		by[b.f.name] = b
	}
	generic := map[string][]*fbinding{}
	var order []string
	for _, b := range bs {
		g := b.f.name
		if base, ok := largeCountBase(g); ok && strings.HasSuffix(g, "_c") {
			if bb := by[base]; bb != nil && f08sig(bb) != f08sig(b) {
				g = base
			}
		}
		if generic[g] == nil {
			order = append(order, g)
		}
		generic[g] = append(generic[g], b)
	}
	for _, g := range order {
		p("  interface MPI_%s\n", g)
		for _, b := range generic[g] {
			link := fortranName("pmpi", b.f.name)
			if b.hasBuf || b.hasStr {
				link = "MPI_" + b.f.name + "_f08"
			}
			fline(&w, "    ", "subroutine MPI_"+b.f.name+"_f08("+argNames(b)+") bind(C, name=\""+link+"\")")
			p("      import\n")
			for _, a := range b.args {
				d, _ := ftype(a, true)
				if a.class == "buf" && !b.noblock {
					d = strings.Replace(d, "dimension(..)", "dimension(..), contiguous", 1)
				}
				p("      %s\n", d)
			}
			p("      integer, optional :: ierror\n    end subroutine\n")
		}
		p("  end interface\n")
	}
	p("contains\n")
	for _, k := range kinds {
		p("  elemental logical function gshmem_eq_%s(a, b)\n    type(MPI_%s), intent(in) :: a, b\n    gshmem_eq_%s = a%%MPI_VAL == b%%MPI_VAL\n  end function\n", k, k, k)
		p("  elemental logical function gshmem_ne_%s(a, b)\n    type(MPI_%s), intent(in) :: a, b\n    gshmem_ne_%s = a%%MPI_VAL /= b%%MPI_VAL\n  end function\n", k, k, k)
	}
	p("end module mpi_f08\n")
	return []byte(w.String())
}

// fortranFiles is every generated file of the binding, by path under
// compat/abi.
func fortranFiles(t *tables) (map[string][]byte, error) {
	bs, err := fortranBindings(t)
	if err != nil {
		return nil, err
	}
	cs, err := fortranConstants(t)
	if err != nil {
		return nil, err
	}
	h, err := mpifHeader(cs)
	if err != nil {
		return nil, err
	}
	m, err := mpiModule(cs, bs)
	if err != nil {
		return nil, err
	}
	return map[string][]byte{
		"fortran/zbind.c":        fortranC(bs),
		"fortran/include/mpif.h": h,
		"fortran/zmpi.f90":       m,
		"fortran/zmpi_f08.f90":   mpiF08Module(t, cs, bs),
	}, nil
}
