package main

/*
#include "abi.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/mpierr"
)

// MPI-IO (MPI-4.1 chapter 14) over compat.File: the handles, the file
// manipulation calls, views and the error handlers of files. The data
// access calls are in file_access.go.
//
// A file's error handler starts as the one set on MPI_FILE_NULL, which is
// MPI_ERRORS_RETURN until a program changes it (the standard's default for
// files, unlike communicators'); errors of MPI_File_open and
// MPI_File_delete, which have no file yet, go through MPI_FILE_NULL's.

// fileObj is an open file.
type fileObj struct {
	f     *compat.File
	errh  uintptr
	etype C.uintptr_t // the view's datatypes as the program named them
	ftype C.uintptr_t
	split *splitResult // a split collective through conversion functions
}

// fileNullErrh is MPI_FILE_NULL's error handler: new files take it.
var fileNullErrh uintptr = 0x143

func init() {
	for c, code := range map[compat.Class]C.int{
		compat.ClassFile:                 C.MPI_ERR_FILE,
		compat.ClassNotSame:              C.MPI_ERR_NOT_SAME,
		compat.ClassAmode:                C.MPI_ERR_AMODE,
		compat.ClassUnsupportedDatarep:   C.MPI_ERR_UNSUPPORTED_DATAREP,
		compat.ClassUnsupportedOperation: C.MPI_ERR_UNSUPPORTED_OPERATION,
		compat.ClassNoSuchFile:           C.MPI_ERR_NO_SUCH_FILE,
		compat.ClassFileExists:           C.MPI_ERR_FILE_EXISTS,
		compat.ClassBadFile:              C.MPI_ERR_BAD_FILE,
		compat.ClassAccess:               C.MPI_ERR_ACCESS,
		compat.ClassNoSpace:              C.MPI_ERR_NO_SPACE,
		compat.ClassQuota:                C.MPI_ERR_QUOTA,
		compat.ClassReadOnly:             C.MPI_ERR_READ_ONLY,
		compat.ClassFileInUse:            C.MPI_ERR_FILE_IN_USE,
		compat.ClassDupDatarep:           C.MPI_ERR_DUP_DATAREP,
		compat.ClassConversion:           C.MPI_ERR_CONVERSION,
		compat.ClassIO:                   C.MPI_ERR_IO,
	} {
		abiClass[c] = code
	}
}

// fileHandler returns the error handler errors on (kind FILE, h) go to.
func fileHandler(h uintptr) uintptr {
	if o, ok := lookup(h, C.ABI_KIND_FILE); ok {
		return o.val.(*fileObj).errh
	}
	return fileNullErrh
}

// failFile raises err of call on the file fh (or MPI_FILE_NULL).
func failFile(fh C.uintptr_t, call string, err error) C.int {
	return raise(C.ABI_KIND_FILE, uintptr(fh), codeOf(err), call, err)
}

func failFileCode(fh C.uintptr_t, call string, code C.int, format string, args ...any) C.int {
	return raise(C.ABI_KIND_FILE, uintptr(fh), code, call, errorText(code, format, args...))
}

// fileOf returns the open file behind fh.
func fileOf(fh C.uintptr_t, call string) (*fileObj, C.int) {
	if global.Initialized == 0 || global.Finalized != 0 {
		return nil, failFileCode(0x118, call, C.MPI_ERR_OTHER, "MPI is not initialized (or finalized)")
	}
	o, ok := lookup(uintptr(fh), C.ABI_KIND_FILE)
	if !ok {
		return nil, failFileCode(0x118, call, C.MPI_ERR_FILE, "invalid file handle")
	}
	return o.val.(*fileObj), C.MPI_SUCCESS
}

//export abigo_File_open
func abigo_File_open(comm C.uintptr_t, name *C.char, amode C.int, info C.uintptr_t, out *C.uintptr_t) C.int {
	const call = "MPI_File_open"
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	if out == nil || name == nil {
		return failFileCode(0x118, call, C.MPI_ERR_ARG, "filename or fh is NULL")
	}
	in, ok := infoOf(info)
	if !ok {
		return failFileCode(0x118, call, C.MPI_ERR_INFO, "invalid info")
	}
	f, err := compat.OpenFile(o.c, C.GoString(name), int(amode), in)
	if err != nil {
		*out = 0x118
		return failFile(0x118, call, err)
	}
	h, _ := newHandle(C.ABI_KIND_FILE, &fileObj{f: f, errh: fileNullErrh, etype: 0x247, ftype: 0x247})
	*out = C.uintptr_t(h)
	return C.MPI_SUCCESS
}

//export abigo_File_close
func abigo_File_close(fh *C.uintptr_t) C.int {
	const call = "MPI_File_close"
	if fh == nil {
		return failFileCode(0x118, call, C.MPI_ERR_ARG, "fh is NULL")
	}
	o, rc := fileOf(*fh, call)
	if o == nil {
		return rc
	}
	err := o.f.Close()
	h := *fh
	if err != nil {
		rc = failFile(h, call, err)
	}
	release(uintptr(h))
	*fh = 0x118
	return rc
}

//export abigo_File_delete
func abigo_File_delete(name *C.char, info C.uintptr_t) C.int {
	const call = "MPI_File_delete"
	if name == nil {
		return failFileCode(0x118, call, C.MPI_ERR_ARG, "filename is NULL")
	}
	if _, ok := infoOf(info); !ok {
		return failFileCode(0x118, call, C.MPI_ERR_INFO, "invalid info")
	}
	if err := compat.DeleteFile(C.GoString(name)); err != nil {
		return failFile(0x118, call, err)
	}
	return C.MPI_SUCCESS
}

// fileCall runs fn on the file fh, raising what it returns.
func fileCall(fh C.uintptr_t, call string, fn func(o *fileObj) error) C.int {
	o, rc := fileOf(fh, call)
	if o == nil {
		return rc
	}
	if err := fn(o); err != nil {
		return failFile(fh, call, err)
	}
	return C.MPI_SUCCESS
}

// errorText is an error whose text starts with the class's.
func errorText(code C.int, format string, args ...any) error {
	return errors.New(classText[code] + ": " + fmt.Sprintf(format, args...))
}

func argErr(format string, args ...any) error {
	return mpierr.Errorf(mpierr.ClassArg, format, args...)
}

//export abigo_File_set_size
func abigo_File_set_size(fh C.uintptr_t, size C.MPI_Offset) C.int {
	return fileCall(fh, "MPI_File_set_size", func(o *fileObj) error { return o.f.SetSize(int64(size)) })
}

//export abigo_File_preallocate
func abigo_File_preallocate(fh C.uintptr_t, size C.MPI_Offset) C.int {
	return fileCall(fh, "MPI_File_preallocate", func(o *fileObj) error { return o.f.Preallocate(int64(size)) })
}

//export abigo_File_get_size
func abigo_File_get_size(fh C.uintptr_t, size *C.MPI_Offset) C.int {
	return fileCall(fh, "MPI_File_get_size", func(o *fileObj) error {
		if size == nil {
			return argErr("size is NULL")
		}
		s, err := o.f.Size()
		*size = C.MPI_Offset(s)
		return err
	})
}

//export abigo_File_sync
func abigo_File_sync(fh C.uintptr_t) C.int {
	return fileCall(fh, "MPI_File_sync", func(o *fileObj) error { return o.f.Sync() })
}

//export abigo_File_get_group
func abigo_File_get_group(fh C.uintptr_t, group *C.uintptr_t) C.int {
	return fileCall(fh, "MPI_File_get_group", func(o *fileObj) error {
		if group == nil {
			return argErr("group is NULL")
		}
		g, err := o.f.Comm().Group()
		if err == nil {
			*group = newGroupHandle(g)
		}
		return err
	})
}

//export abigo_File_get_amode
func abigo_File_get_amode(fh C.uintptr_t, amode *C.int) C.int {
	return fileCall(fh, "MPI_File_get_amode", func(o *fileObj) error {
		if amode == nil {
			return argErr("amode is NULL")
		}
		*amode = C.int(o.f.Amode())
		return nil
	})
}

//export abigo_File_set_info
func abigo_File_set_info(fh C.uintptr_t, info C.uintptr_t) C.int {
	return fileCall(fh, "MPI_File_set_info", func(o *fileObj) error {
		in, ok := infoOf(info)
		if !ok {
			return mpierr.Errorf(mpierr.ClassArg, "invalid info")
		}
		return o.f.SetInfo(in)
	})
}

//export abigo_File_get_info
func abigo_File_get_info(fh C.uintptr_t, info *C.uintptr_t) C.int {
	return fileCall(fh, "MPI_File_get_info", func(o *fileObj) error {
		if info == nil {
			return argErr("info_used is NULL")
		}
		in, err := o.f.Info()
		if err == nil {
			*info = C.uintptr_t(newInfo(in))
		}
		return err
	})
}

//export abigo_File_set_atomicity
func abigo_File_set_atomicity(fh C.uintptr_t, flag C.int) C.int {
	return fileCall(fh, "MPI_File_set_atomicity", func(o *fileObj) error { return o.f.SetAtomicity(flag != 0) })
}

//export abigo_File_get_atomicity
func abigo_File_get_atomicity(fh C.uintptr_t, flag *C.int) C.int {
	return fileCall(fh, "MPI_File_get_atomicity", func(o *fileObj) error {
		if flag == nil {
			return argErr("flag is NULL")
		}
		on, err := o.f.Atomicity()
		*flag = boolInt(on)
		return err
	})
}

//export abigo_File_set_view
func abigo_File_set_view(fh C.uintptr_t, disp C.MPI_Offset, etype, ftype C.uintptr_t, datarep *C.char, info C.uintptr_t) C.int {
	const call = "MPI_File_set_view"
	return fileCall(fh, call, func(o *fileObj) error {
		et, ok1 := typeOf(etype, true)
		ft, ok2 := typeOf(ftype, true)
		if !ok1 || !ok2 {
			return mpierr.Errorf(mpierr.ClassType, "invalid or uncommitted etype or filetype")
		}
		if datarep == nil {
			return argErr("datarep is NULL")
		}
		in, ok := infoOf(info)
		if !ok {
			return argErr("invalid info")
		}
		rep := C.GoString(datarep)
		fe, ff := et, ft
		if strings.EqualFold(rep, "external32") { // the types as the file lays them out
			var made, more []C.uintptr_t
			var err error
			if fe, made, err = externalTwin(etype); err != nil {
				return err
			}
			defer releaseAll(made)
			if ff, more, err = externalTwin(ftype); err != nil {
				return err
			}
			defer releaseAll(more)
		}
		if err := o.f.SetViewExternal(int64(disp), et, ft, fe, ff, rep, in); err != nil {
			return err
		}
		o.etype, o.ftype = etype, ftype
		return nil
	})
}

//export abigo_File_get_view
func abigo_File_get_view(fh C.uintptr_t, disp *C.MPI_Offset, etype, ftype *C.uintptr_t, datarep *C.char) C.int {
	const call = "MPI_File_get_view"
	return fileCall(fh, call, func(o *fileObj) error {
		if disp == nil || etype == nil || ftype == nil || datarep == nil {
			return argErr("NULL argument")
		}
		d, _, _, rep, err := o.f.View()
		if err != nil {
			return err
		}
		// Derived datatypes come back as new handles the caller frees
		// (MPI-4.1 section 14.3); predefined ones as themselves.
		for _, p := range []struct {
			in  C.uintptr_t
			out *C.uintptr_t
		}{{o.etype, etype}, {o.ftype, ftype}} {
			*p.out = p.in
			if p.in >= predefLimit {
				if rc := abigo_Type_dup(p.in, p.out); rc != C.MPI_SUCCESS {
					return mpierr.Errorf(mpierr.ClassType, "duplicating the view's datatype")
				}
			}
		}
		*disp = C.MPI_Offset(d)
		putString(datarep, rep, C.MPI_MAX_DATAREP_STRING)
		return nil
	})
}

//export abigo_File_get_byte_offset
func abigo_File_get_byte_offset(fh C.uintptr_t, off C.MPI_Offset, disp *C.MPI_Offset) C.int {
	return fileCall(fh, "MPI_File_get_byte_offset", func(o *fileObj) error {
		if disp == nil {
			return argErr("disp is NULL")
		}
		b, err := o.f.ByteOffset(int64(off))
		*disp = C.MPI_Offset(b)
		return err
	})
}

func typeExtent(fh, dtype C.uintptr_t, call string, set func(int64)) C.int {
	return fileCall(fh, call, func(o *fileObj) error {
		dt, ok := typeOf(dtype, false)
		if !ok {
			return mpierr.Errorf(mpierr.ClassType, "invalid datatype")
		}
		if _, _, _, rep, err := o.f.View(); err == nil && rep == "external32" {
			twin, made, err := externalTwin(dtype)
			if err != nil {
				return err
			}
			defer releaseAll(made)
			dt = twin // its extent is the datatype's in the file
		}
		e, err := o.f.TypeExtent(dt)
		if err == nil {
			set(e)
		}
		return err
	})
}

//export abigo_File_get_type_extent
func abigo_File_get_type_extent(fh, dtype C.uintptr_t, extent *C.MPI_Aint) C.int {
	if extent == nil {
		return failFileCode(fh, "MPI_File_get_type_extent", C.MPI_ERR_ARG, "extent is NULL")
	}
	return typeExtent(fh, dtype, "MPI_File_get_type_extent", func(e int64) { *extent = C.MPI_Aint(e) })
}

//export abigo_File_get_type_extent_c
func abigo_File_get_type_extent_c(fh, dtype C.uintptr_t, extent *C.MPI_Count) C.int {
	if extent == nil {
		return failFileCode(fh, "MPI_File_get_type_extent_c", C.MPI_ERR_ARG, "extent is NULL")
	}
	return typeExtent(fh, dtype, "MPI_File_get_type_extent_c", func(e int64) { *extent = C.MPI_Count(e) })
}

//export abigo_File_seek
func abigo_File_seek(fh C.uintptr_t, off C.MPI_Offset, whence C.int) C.int {
	return fileCall(fh, "MPI_File_seek", func(o *fileObj) error {
		if whence != C.MPI_SEEK_SET && whence != C.MPI_SEEK_CUR && whence != C.MPI_SEEK_END {
			return argErr("whence %d", int(whence))
		}
		_, err := o.f.Seek(int64(off), int(whence))
		return err
	})
}

//export abigo_File_seek_shared
func abigo_File_seek_shared(fh C.uintptr_t, off C.MPI_Offset, whence C.int) C.int {
	return fileCall(fh, "MPI_File_seek_shared", func(o *fileObj) error {
		if whence != C.MPI_SEEK_SET && whence != C.MPI_SEEK_CUR && whence != C.MPI_SEEK_END {
			return argErr("whence %d", int(whence))
		}
		return o.f.SeekShared(int64(off), int(whence))
	})
}

//export abigo_File_get_position
func abigo_File_get_position(fh C.uintptr_t, off *C.MPI_Offset) C.int {
	return fileCall(fh, "MPI_File_get_position", func(o *fileObj) error {
		if off == nil {
			return argErr("offset is NULL")
		}
		p, err := o.f.Position()
		*off = C.MPI_Offset(p)
		return err
	})
}

//export abigo_File_get_position_shared
func abigo_File_get_position_shared(fh C.uintptr_t, off *C.MPI_Offset) C.int {
	return fileCall(fh, "MPI_File_get_position_shared", func(o *fileObj) error {
		if off == nil {
			return argErr("offset is NULL")
		}
		p, err := o.f.PositionShared()
		*off = C.MPI_Offset(p)
		return err
	})
}

// Error handlers of files.

//export abigo_File_create_errhandler
func abigo_File_create_errhandler(fn C.uintptr_t, eh *C.uintptr_t) C.int {
	return newErrhandler(fn, eh, C.ABI_KIND_FILE, "MPI_File_create_errhandler")
}

//export abigo_File_set_errhandler
func abigo_File_set_errhandler(fh C.uintptr_t, eh C.uintptr_t) C.int {
	const call = "MPI_File_set_errhandler"
	if !validHandler(uintptr(eh), C.ABI_KIND_FILE) {
		return failFileCode(fh, call, C.MPI_ERR_ARG, "not a file error handler")
	}
	if fh == 0x118 {
		fileNullErrh = uintptr(eh)
		return C.MPI_SUCCESS
	}
	o, rc := fileOf(fh, call)
	if o == nil {
		return rc
	}
	o.errh = uintptr(eh)
	return C.MPI_SUCCESS
}

//export abigo_File_get_errhandler
func abigo_File_get_errhandler(fh C.uintptr_t, eh *C.uintptr_t) C.int {
	const call = "MPI_File_get_errhandler"
	if eh == nil {
		return failFileCode(fh, call, C.MPI_ERR_ARG, "errhandler is NULL")
	}
	if fh == 0x118 {
		*eh = C.uintptr_t(fileNullErrh)
		return C.MPI_SUCCESS
	}
	o, rc := fileOf(fh, call)
	if o == nil {
		return rc
	}
	*eh = C.uintptr_t(o.errh)
	return C.MPI_SUCCESS
}

//export abigo_File_call_errhandler
func abigo_File_call_errhandler(fh C.uintptr_t, code C.int) C.int {
	if fh != 0x118 {
		if _, ok := lookup(uintptr(fh), C.ABI_KIND_FILE); !ok {
			return failFileCode(0x118, "MPI_File_call_errhandler", C.MPI_ERR_FILE, "invalid file handle")
		}
	}
	raise(C.ABI_KIND_FILE, uintptr(fh), code, "MPI_File_call_errhandler", nil)
	return C.MPI_SUCCESS
}
