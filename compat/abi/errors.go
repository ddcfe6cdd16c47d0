package main

/*
#include "abi.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"unsafe"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/shmem"
)

// Errors and error handlers.
//
// An error code is its MPI error class (MPI_ERR_RANK, ...) at the ABI's
// value; codes are not yet refined beyond classes (MPI_Add_error_code is a
// stub). An error goes through the error handler of the object the call
// was on (a communicator's or a window's), or of MPI_COMM_SELF when there
// is none, MPI-4's rule: MPI_ERRORS_ARE_FATAL (the default) prints the
// call, the rank and the message and ends the job with the code as exit
// status; MPI_ERRORS_RETURN returns the code; a user handler is called
// with the handle and the code, then the code is returned.

// abiClass maps compat's error classes to the ABI's values.
var abiClass = map[compat.Class]C.int{
	compat.ClassSuccess:     C.MPI_SUCCESS,
	compat.ClassBuffer:      C.MPI_ERR_BUFFER,
	compat.ClassCount:       C.MPI_ERR_COUNT,
	compat.ClassType:        C.MPI_ERR_TYPE,
	compat.ClassTag:         C.MPI_ERR_TAG,
	compat.ClassComm:        C.MPI_ERR_COMM,
	compat.ClassRank:        C.MPI_ERR_RANK,
	compat.ClassRequest:     C.MPI_ERR_REQUEST,
	compat.ClassRoot:        C.MPI_ERR_ROOT,
	compat.ClassGroup:       C.MPI_ERR_GROUP,
	compat.ClassOp:          C.MPI_ERR_OP,
	compat.ClassArg:         C.MPI_ERR_ARG,
	compat.ClassTruncate:    C.MPI_ERR_TRUNCATE,
	compat.ClassInStatus:    C.MPI_ERR_IN_STATUS,
	compat.ClassNoMem:       C.MPI_ERR_NO_MEM,
	compat.ClassOther:       C.MPI_ERR_OTHER,
	compat.ClassWin:         C.MPI_ERR_WIN,
	compat.ClassSize:        C.MPI_ERR_SIZE,
	compat.ClassDisp:        C.MPI_ERR_DISP,
	compat.ClassInfoKey:     C.MPI_ERR_INFO_KEY,
	compat.ClassInfoValue:   C.MPI_ERR_INFO_VALUE,
	compat.ClassLockType:    C.MPI_ERR_LOCKTYPE,
	compat.ClassAssert:      C.MPI_ERR_ASSERT,
	compat.ClassRMASync:     C.MPI_ERR_RMA_SYNC,
	compat.ClassRMARange:    C.MPI_ERR_RMA_RANGE,
	compat.ClassRMAConflict: C.MPI_ERR_RMA_CONFLICT,
	compat.ClassRMAAttach:   C.MPI_ERR_RMA_ATTACH,
	compat.ClassRMAShared:   C.MPI_ERR_RMA_SHARED,
	compat.ClassRMAFlavor:   C.MPI_ERR_RMA_FLAVOR,
	compat.ClassPort:        C.MPI_ERR_PORT,
	compat.ClassSpawn:       C.MPI_ERR_SPAWN,
}

// classText is MPI_Error_string's text for each class the ABI defines.
var classText = map[C.int]string{
	C.MPI_SUCCESS:                   "MPI_SUCCESS: no error",
	C.MPI_ERR_BUFFER:                "MPI_ERR_BUFFER: invalid buffer pointer",
	C.MPI_ERR_COUNT:                 "MPI_ERR_COUNT: invalid count argument",
	C.MPI_ERR_TYPE:                  "MPI_ERR_TYPE: invalid datatype",
	C.MPI_ERR_TAG:                   "MPI_ERR_TAG: invalid tag argument",
	C.MPI_ERR_COMM:                  "MPI_ERR_COMM: invalid communicator",
	C.MPI_ERR_RANK:                  "MPI_ERR_RANK: invalid rank",
	C.MPI_ERR_REQUEST:               "MPI_ERR_REQUEST: invalid request",
	C.MPI_ERR_ROOT:                  "MPI_ERR_ROOT: invalid root",
	C.MPI_ERR_GROUP:                 "MPI_ERR_GROUP: invalid group",
	C.MPI_ERR_OP:                    "MPI_ERR_OP: invalid reduce operation",
	C.MPI_ERR_TOPOLOGY:              "MPI_ERR_TOPOLOGY: invalid communicator topology",
	C.MPI_ERR_DIMS:                  "MPI_ERR_DIMS: invalid dimension argument",
	C.MPI_ERR_ARG:                   "MPI_ERR_ARG: invalid argument of some other kind",
	C.MPI_ERR_UNKNOWN:               "MPI_ERR_UNKNOWN: unknown error",
	C.MPI_ERR_TRUNCATE:              "MPI_ERR_TRUNCATE: message truncated on receive",
	C.MPI_ERR_OTHER:                 "MPI_ERR_OTHER: known error not in this list",
	C.MPI_ERR_INTERN:                "MPI_ERR_INTERN: internal MPI (implementation) error",
	C.MPI_ERR_PENDING:               "MPI_ERR_PENDING: pending request",
	C.MPI_ERR_IN_STATUS:             "MPI_ERR_IN_STATUS: error code is in status",
	C.MPI_ERR_ACCESS:                "MPI_ERR_ACCESS: permission denied",
	C.MPI_ERR_AMODE:                 "MPI_ERR_AMODE: error related to the amode passed to MPI_FILE_OPEN",
	C.MPI_ERR_ASSERT:                "MPI_ERR_ASSERT: invalid assertion argument",
	C.MPI_ERR_BAD_FILE:              "MPI_ERR_BAD_FILE: invalid file name",
	C.MPI_ERR_BASE:                  "MPI_ERR_BASE: invalid base argument",
	C.MPI_ERR_CONVERSION:            "MPI_ERR_CONVERSION: error in a user data conversion function",
	C.MPI_ERR_DISP:                  "MPI_ERR_DISP: invalid displacement argument",
	C.MPI_ERR_DUP_DATAREP:           "MPI_ERR_DUP_DATAREP: data representation identifier already registered",
	C.MPI_ERR_FILE_EXISTS:           "MPI_ERR_FILE_EXISTS: file exists",
	C.MPI_ERR_FILE_IN_USE:           "MPI_ERR_FILE_IN_USE: file operation could not be completed, the file is in use",
	C.MPI_ERR_FILE:                  "MPI_ERR_FILE: invalid file handle",
	C.MPI_ERR_INFO_KEY:              "MPI_ERR_INFO_KEY: key longer than MPI_MAX_INFO_KEY",
	C.MPI_ERR_INFO_NOKEY:            "MPI_ERR_INFO_NOKEY: invalid key passed to MPI_INFO_DELETE",
	C.MPI_ERR_INFO_VALUE:            "MPI_ERR_INFO_VALUE: value longer than MPI_MAX_INFO_VAL",
	C.MPI_ERR_INFO:                  "MPI_ERR_INFO: invalid info argument",
	C.MPI_ERR_IO:                    "MPI_ERR_IO: other I/O error",
	C.MPI_ERR_KEYVAL:                "MPI_ERR_KEYVAL: invalid keyval",
	C.MPI_ERR_LOCKTYPE:              "MPI_ERR_LOCKTYPE: invalid lock type",
	C.MPI_ERR_NAME:                  "MPI_ERR_NAME: invalid service name",
	C.MPI_ERR_NO_MEM:                "MPI_ERR_NO_MEM: out of memory",
	C.MPI_ERR_NOT_SAME:              "MPI_ERR_NOT_SAME: collective argument not identical on all processes",
	C.MPI_ERR_NO_SPACE:              "MPI_ERR_NO_SPACE: not enough space",
	C.MPI_ERR_NO_SUCH_FILE:          "MPI_ERR_NO_SUCH_FILE: file does not exist",
	C.MPI_ERR_PORT:                  "MPI_ERR_PORT: invalid port name",
	C.MPI_ERR_QUOTA:                 "MPI_ERR_QUOTA: quota exceeded",
	C.MPI_ERR_READ_ONLY:             "MPI_ERR_READ_ONLY: read-only file or file system",
	C.MPI_ERR_RMA_ATTACH:            "MPI_ERR_RMA_ATTACH: memory cannot be attached",
	C.MPI_ERR_RMA_CONFLICT:          "MPI_ERR_RMA_CONFLICT: conflicting accesses to window",
	C.MPI_ERR_RMA_RANGE:             "MPI_ERR_RMA_RANGE: target memory is not part of the window",
	C.MPI_ERR_RMA_SHARED:            "MPI_ERR_RMA_SHARED: memory cannot be shared",
	C.MPI_ERR_RMA_SYNC:              "MPI_ERR_RMA_SYNC: wrong synchronization of RMA calls",
	C.MPI_ERR_SERVICE:               "MPI_ERR_SERVICE: invalid service name",
	C.MPI_ERR_SIZE:                  "MPI_ERR_SIZE: invalid size argument",
	C.MPI_ERR_SPAWN:                 "MPI_ERR_SPAWN: error in spawning processes",
	C.MPI_ERR_UNSUPPORTED_DATAREP:   "MPI_ERR_UNSUPPORTED_DATAREP: unsupported data representation",
	C.MPI_ERR_UNSUPPORTED_OPERATION: "MPI_ERR_UNSUPPORTED_OPERATION: operation not supported (by gshmem's libmpi_abi)",
	C.MPI_ERR_WIN:                   "MPI_ERR_WIN: invalid window",
	C.MPI_ERR_RMA_FLAVOR:            "MPI_ERR_RMA_FLAVOR: window flavor does not support the call",
	C.MPI_ERR_PROC_ABORTED:          "MPI_ERR_PROC_ABORTED: operation failed because a peer process aborted",
	C.MPI_ERR_VALUE_TOO_LARGE:       "MPI_ERR_VALUE_TOO_LARGE: value too large to store",
	C.MPI_ERR_SESSION:               "MPI_ERR_SESSION: invalid session",
	C.MPI_ERR_ERRHANDLER:            "MPI_ERR_ERRHANDLER: invalid error handler",
	C.MPI_ERR_ABI:                   "MPI_ERR_ABI: ABI mismatch",
}

// codeOf is the ABI error code of a compat or windows error.
func codeOf(err error) C.int {
	if err == nil {
		return C.MPI_SUCCESS
	}
	var ce codeErr // a user function's code (grequest.go)
	if errors.As(err, &ce) {
		return C.int(ce)
	}
	if compat.ClassOf(err) == compat.ClassProcFailedPending { // it wraps the loss
		return lostCode(err.Error(), abiClass[compat.ClassProcFailedPending]) // ulfm.go
	}
	if errors.Is(err, shmem.ErrPeerLost) || compat.ClassOf(err) == compat.ClassProcFailed {
		return lostCode(lostMessage(err.Error()), lostClass())
	}
	if c, ok := abiClass[compat.ClassOf(err)]; ok {
		return c
	}
	return C.MPI_ERR_OTHER
}

// lost holds the error codes made for lost peers (lostCode), past every
// other code: each of class MPI_ERR_PROC_ABORTED (lostClass) or
// MPIX_ERR_PROC_FAILED_PENDING, with its message.
var lost struct {
	sync.RWMutex
	code  map[string]C.int
	text  map[C.int]string
	class map[C.int]C.int
}

// lostCode returns an error code of class (lostClass's, or
// MPIX_ERR_PROC_FAILED_PENDING) whose MPI_Error_string is msg, which names
// the lost PE and how it was lost: a caller with MPI_ERRORS_RETURN learns
// who is gone from the code alone. One code per distinct message and
// class, so the codes stay few.
func lostCode(msg string, class C.int) C.int {
	if len(msg) >= C.MPI_MAX_ERROR_STRING {
		msg = msg[:C.MPI_MAX_ERROR_STRING-1]
	}
	key := fmt.Sprint(class) + " " + msg
	lost.Lock()
	defer lost.Unlock()
	if c, ok := lost.code[key]; ok {
		return c
	}
	if lost.code == nil {
		lost.code, lost.text, lost.class = map[string]C.int{}, map[C.int]string{}, map[C.int]C.int{}
	}
	c := C.int(lostCodeBase + len(lost.code))
	lost.code[key], lost.text[c], lost.class[c] = c, msg, class
	return c
}

// lostMessage is the string of a lost-peer code: msg with the class it
// starts with (compat's or windows', MPI_ERR_OTHER for a wait on a lost
// peer's words) replaced by the lost class the code has.
func lostMessage(msg string) string {
	name := "MPI_ERR_PROC_ABORTED"
	if ulfmClasses {
		name = "MPIX_ERR_PROC_FAILED"
	}
	if i := strings.Index(msg, ": "); i > 0 && (strings.HasPrefix(msg, "MPI_ERR_") || strings.HasPrefix(msg, "MPIX_ERR_")) && !strings.Contains(msg[:i], " ") {
		msg = msg[i+2:]
	}
	return name + ": " + msg
}

// lostCodeBase is the first lost-peer code: far above the codes
// MPI_Add_error_code hands out, which count up from MPI_ERR_LASTCODE.
const lostCodeBase = 1 << 24

func lostText(code C.int) (string, bool) {
	lost.RLock()
	defer lost.RUnlock()
	t, ok := lost.text[code]
	return t, ok
}

// lostCodeClass is the class of a lost-peer code.
func lostCodeClass(code C.int) (C.int, bool) {
	lost.RLock()
	defer lost.RUnlock()
	c, ok := lost.class[code]
	return c, ok
}

// errhandler is a user error handler (MPI_Comm_create_errhandler, ...):
// the C function and the kind of object it was made for.
type errhandler struct {
	fn   uintptr
	kind int
}

// handlerOf returns the error handler attached to the object (kind, h),
// or, when h is not a live object of that kind, MPI_COMM_SELF's (MPI_COMM_WORLD's
// while none was set on MPI_COMM_SELF), and the object it is called with.
func handlerOf(kind int, h uintptr) (eh, obj uintptr) {
	if kind == C.ABI_KIND_FILE { // files have their own default (file.go)
		return fileHandler(h), h
	}
	if kind != C.ABI_KIND_NONE {
		if o, ok := lookup(h, kind); ok {
			switch v := o.val.(type) {
			case *commObj:
				return v.errhandler(), h
			case *winObj:
				return v.ws.Errhandler, h
			case *sessionObj:
				return v.errh, h
			}
		}
	}
	// MPI-4 raises such errors on MPI_COMM_SELF; MPI-3 raised them on
	// MPI_COMM_WORLD, where older codes set MPI_ERRORS_RETURN. Until a
	// handler is set on MPI_COMM_SELF, MPI_COMM_WORLD's applies.
	if o, ok := lookup(uintptr(0x102), C.ABI_KIND_COMM); ok && o.val.(*commObj).errhSet {
		return o.val.(*commObj).errhandler(), 0x102
	}
	if o, ok := lookup(uintptr(0x101), C.ABI_KIND_COMM); ok {
		return o.val.(*commObj).errhandler(), 0x101
	}
	return 0x141, 0x102 // before MPI_Init: fatal
}

// raise reports an error of call on object (kind, h) through its error
// handler and returns what the call returns.
func raise(kind int, h uintptr, code C.int, call string, err error) C.int {
	if code == C.MPI_SUCCESS {
		return code
	}
	eh, obj := handlerOf(kind, h)
	switch eh {
	case 0x143: // MPI_ERRORS_RETURN
		return code
	case 0x141, 0x142, 0: // MPI_ERRORS_ARE_FATAL, MPI_ERRORS_ABORT
		msg := classText[code]
		if err != nil {
			msg = err.Error()
		}
		fmt.Fprintf(os.Stderr, "gshmem MPI: %s: rank %d: %s (error code %d)\n", call, worldRank(), msg, int(code))
		abortJob(int(code))
	}
	o, ok := lookup(eh, C.ABI_KIND_ERRHANDLER)
	if !ok {
		return code
	}
	C.abi_call_errhandler(C.uintptr_t(o.val.(*errhandler).fn), C.uintptr_t(obj), code)
	return code
}

// fail raises err (a compat or windows error) on a communicator.
func fail(comm C.uintptr_t, call string, err error) C.int {
	return raise(C.ABI_KIND_COMM, uintptr(comm), codeOf(err), call, err)
}

// failCode raises a code with a message on a communicator.
func failCode(comm C.uintptr_t, call string, code C.int, format string, args ...any) C.int {
	return raise(C.ABI_KIND_COMM, uintptr(comm), code, call, errors.New(classText[code]+": "+fmt.Sprintf(format, args...)))
}

//export abiint_raise
func abiint_raise(kind C.int, h C.uintptr_t, code C.int, call *C.char) C.int {
	return raise(int(kind), uintptr(h), code, C.GoString(call), nil)
}

// User error classes and codes (MPI_Add_error_class, ...): numbered past
// MPI_ERR_LASTCODE, each code with its class and maybe a string.
var userErrors = struct {
	class map[C.int]C.int // code (or class) -> its class
	text  map[C.int]string
	next  C.int
}{class: map[C.int]C.int{}, text: map[C.int]string{}, next: C.MPI_ERR_LASTCODE + 1}

// classOf returns the class of an error code, predefined or added.
func classOf(code C.int) (C.int, bool) {
	if _, ok := classText[code]; ok {
		return code, true
	}
	if c, ok := lostCodeClass(code); ok {
		return c, true
	}
	c, ok := userErrors.class[code]
	return c, ok
}

func addError(class C.int) C.int {
	code := userErrors.next
	userErrors.next++
	if class < 0 {
		class = code
	}
	userErrors.class[code] = class
	global.LastUsed = int32(code)
	return code
}

//export abigo_Add_error_class
func abigo_Add_error_class(class *C.int) C.int {
	if class == nil {
		return failCode(0, "MPI_Add_error_class", C.MPI_ERR_ARG, "errorclass is NULL")
	}
	*class = addError(-1)
	return C.MPI_SUCCESS
}

//export abigo_Add_error_code
func abigo_Add_error_code(class C.int, code *C.int) C.int {
	c, ok := classOf(class)
	if code == nil || !ok || c != class {
		return failCode(0, "MPI_Add_error_code", C.MPI_ERR_ARG, "%d is not an error class, or errorcode is NULL", int(class))
	}
	*code = addError(class)
	return C.MPI_SUCCESS
}

//export abigo_Add_error_string
func abigo_Add_error_string(code C.int, s *C.char) C.int {
	if _, ok := userErrors.class[code]; !ok || s == nil {
		return failCode(0, "MPI_Add_error_string", C.MPI_ERR_ARG, "%d is not an added error code (predefined strings are fixed), or the string is NULL", int(code))
	}
	t := C.GoString(s)
	if len(t) >= C.MPI_MAX_ERROR_STRING {
		return failCode(0, "MPI_Add_error_string", C.MPI_ERR_ARG, "a string of %d bytes", len(t))
	}
	userErrors.text[code] = t
	return C.MPI_SUCCESS
}

//export abigo_Remove_error_string
func abigo_Remove_error_string(code C.int) C.int {
	if _, ok := userErrors.text[code]; !ok {
		return failCode(0, "MPI_Remove_error_string", C.MPI_ERR_ARG, "no string added for %d", int(code))
	}
	delete(userErrors.text, code)
	return C.MPI_SUCCESS
}

//export abigo_Remove_error_code
func abigo_Remove_error_code(code C.int) C.int {
	c, ok := userErrors.class[code]
	if !ok || c == code {
		return failCode(0, "MPI_Remove_error_code", C.MPI_ERR_ARG, "%d is not an added error code", int(code))
	}
	if _, ok := userErrors.text[code]; ok {
		return failCode(0, "MPI_Remove_error_code", C.MPI_ERR_ARG, "code %d still has a string", int(code))
	}
	delete(userErrors.class, code)
	return C.MPI_SUCCESS
}

//export abigo_Remove_error_class
func abigo_Remove_error_class(class C.int) C.int {
	c, ok := userErrors.class[class]
	if !ok || c != class {
		return failCode(0, "MPI_Remove_error_class", C.MPI_ERR_ARG, "%d is not an added error class", int(class))
	}
	for code, cl := range userErrors.class {
		if cl == class && code != class {
			return failCode(0, "MPI_Remove_error_class", C.MPI_ERR_ARG, "class %d still has code %d", int(class), int(code))
		}
	}
	if _, ok := userErrors.text[class]; ok {
		return failCode(0, "MPI_Remove_error_class", C.MPI_ERR_ARG, "class %d still has a string", int(class))
	}
	delete(userErrors.class, class)
	return C.MPI_SUCCESS
}

//export abigo_Error_class
func abigo_Error_class(code C.int, class *C.int) C.int {
	if class == nil {
		return failCode(0, "MPI_Error_class", C.MPI_ERR_ARG, "errorclass is NULL")
	}
	c, ok := classOf(code)
	if !ok {
		return failCode(0, "MPI_Error_class", C.MPI_ERR_ARG, "%d is not an error code", int(code))
	}
	*class = c
	return C.MPI_SUCCESS
}

//export abigo_Error_string
func abigo_Error_string(code C.int, s *C.char, n *C.int) C.int {
	t, ok := classText[code]
	if !ok {
		t, ok = lostText(code)
	}
	if !ok {
		if _, ok = userErrors.class[code]; ok {
			t = userErrors.text[code] // "" until MPI_Add_error_string
		}
	}
	if !ok {
		return failCode(0, "MPI_Error_string", C.MPI_ERR_ARG, "%d is not an error code", int(code))
	}
	if s == nil || n == nil {
		return failCode(0, "MPI_Error_string", C.MPI_ERR_ARG, "string or resultlen is NULL")
	}
	*n = putString(s, t, C.MPI_MAX_ERROR_STRING)
	return C.MPI_SUCCESS
}

// putString copies s into the C buffer dst of max bytes (NUL included) and
// returns the length written, without the NUL.
func putString(dst *C.char, s string, max int) C.int {
	if len(s) > max-1 {
		s = s[:max-1]
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(dst)), len(s)+1)
	copy(b, s)
	b[len(s)] = 0
	return C.int(len(s))
}

// Error handler objects.

func newErrhandler(fn C.uintptr_t, eh *C.uintptr_t, kind int, call string) C.int {
	if fn == 0 || eh == nil {
		return failCode(0, call, C.MPI_ERR_ARG, "function or errhandler is NULL")
	}
	h, _ := newHandle(C.ABI_KIND_ERRHANDLER, &errhandler{fn: uintptr(fn), kind: kind})
	*eh = C.uintptr_t(h)
	return C.MPI_SUCCESS
}

//export abigo_Comm_create_errhandler
func abigo_Comm_create_errhandler(fn C.uintptr_t, eh *C.uintptr_t) C.int {
	return newErrhandler(fn, eh, C.ABI_KIND_COMM, "MPI_Comm_create_errhandler")
}

//export abigo_Win_create_errhandler
func abigo_Win_create_errhandler(fn C.uintptr_t, eh *C.uintptr_t) C.int {
	return newErrhandler(fn, eh, C.ABI_KIND_WIN, "MPI_Win_create_errhandler")
}

//export abigo_Errhandler_free
func abigo_Errhandler_free(eh *C.uintptr_t) C.int {
	if eh == nil {
		return failCode(0, "MPI_Errhandler_free", C.MPI_ERR_ARG, "errhandler is NULL")
	}
	if *eh >= 0x141 && *eh <= 0x143 {
		*eh = 0x140 // freeing a predefined handler only nulls the handle
		return C.MPI_SUCCESS
	}
	if _, ok := lookup(uintptr(*eh), C.ABI_KIND_ERRHANDLER); !ok {
		return failCode(0, "MPI_Errhandler_free", C.MPI_ERR_ERRHANDLER, "not an error handler")
	}
	// Objects keep using a freed handler until they are freed (MPI's rule),
	// so the handle stays valid while attached: it is released when no
	// object holds it, which this version approximates by never reusing
	// a handler's handle.
	*eh = 0x140
	return C.MPI_SUCCESS
}

// validHandler checks eh for attaching to an object of kind.
func validHandler(eh uintptr, kind int) bool {
	if eh >= 0x141 && eh <= 0x143 {
		return true
	}
	o, ok := lookup(eh, C.ABI_KIND_ERRHANDLER)
	return ok && o.val.(*errhandler).kind == kind
}

//export abigo_Comm_set_errhandler
func abigo_Comm_set_errhandler(comm C.uintptr_t, eh C.uintptr_t) C.int {
	o, ok := lookup(uintptr(comm), C.ABI_KIND_COMM)
	if !ok {
		return failCode(comm, "MPI_Comm_set_errhandler", C.MPI_ERR_COMM, "invalid communicator")
	}
	if !validHandler(uintptr(eh), C.ABI_KIND_COMM) {
		return failCode(comm, "MPI_Comm_set_errhandler", C.MPI_ERR_ARG, "not a communicator error handler")
	}
	o.val.(*commObj).cs.Errhandler = uintptr(eh)
	o.val.(*commObj).errhSet = true
	return C.MPI_SUCCESS
}

//export abigo_Comm_get_errhandler
func abigo_Comm_get_errhandler(comm C.uintptr_t, eh *C.uintptr_t) C.int {
	o, ok := lookup(uintptr(comm), C.ABI_KIND_COMM)
	if !ok {
		return failCode(comm, "MPI_Comm_get_errhandler", C.MPI_ERR_COMM, "invalid communicator")
	}
	if eh == nil {
		return failCode(comm, "MPI_Comm_get_errhandler", C.MPI_ERR_ARG, "errhandler is NULL")
	}
	*eh = C.uintptr_t(o.val.(*commObj).errhandler())
	return C.MPI_SUCCESS
}

//export abigo_Comm_call_errhandler
func abigo_Comm_call_errhandler(comm C.uintptr_t, code C.int) C.int {
	if _, ok := lookup(uintptr(comm), C.ABI_KIND_COMM); !ok {
		return failCode(comm, "MPI_Comm_call_errhandler", C.MPI_ERR_COMM, "invalid communicator")
	}
	raise(C.ABI_KIND_COMM, uintptr(comm), code, "MPI_Comm_call_errhandler", nil)
	return C.MPI_SUCCESS
}
