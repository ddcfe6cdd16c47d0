package main

/*
#include "abi.h"
*/
import "C"

// MPI_T events: gshmem defines no event types, so MPI_T_event_get_num
// answers 0, every call naming an event type by index or name finds none
// (MPI_T_ERR_INVALID_INDEX, MPI_T_ERR_INVALID_NAME), and every call on a
// registration or an event instance has no valid handle to be given
// (MPI_T_ERR_INVALID_HANDLE). Each still reports
// MPI_T_ERR_NOT_INITIALIZED first.

// eventCall is the answer of an event call once the interface is known to
// be initialized.
func eventCall(rc C.int) C.int {
	if r := toolsLock(); r != C.MPI_SUCCESS {
		return r
	}
	tools.mu.Unlock()
	return rc
}

//export abigo_T_event_get_num
func abigo_T_event_get_num(num *C.int) C.int {
	if rc := toolsLock(); rc != C.MPI_SUCCESS {
		return rc
	}
	defer tools.mu.Unlock()
	if num == nil {
		return C.MPI_T_ERR_INVALID
	}
	*num = 0
	return C.MPI_SUCCESS
}

//export abigo_T_event_get_index
func abigo_T_event_get_index(name *C.char, index *C.int) C.int {
	if name == nil || index == nil {
		return eventCall(C.MPI_T_ERR_INVALID)
	}
	return eventCall(C.MPI_T_ERR_INVALID_NAME)
}

//export abigo_T_event_get_info
func abigo_T_event_get_info(index C.int, name *C.char, nameLen *C.int, verbosity *C.int, types *C.uintptr_t, displs *C.MPI_Aint,
	num *C.int, enumtype *C.uintptr_t, info *C.uintptr_t, desc *C.char, descLen *C.int, bind *C.int) C.int {
	return eventCall(C.MPI_T_ERR_INVALID_INDEX)
}

//export abigo_T_event_handle_alloc
func abigo_T_event_handle_alloc(index C.int, obj C.uintptr_t, info C.uintptr_t, reg *C.uintptr_t) C.int {
	return eventCall(C.MPI_T_ERR_INVALID_INDEX)
}

//export abigo_T_event_handle_free
func abigo_T_event_handle_free(reg C.uintptr_t, user C.uintptr_t, fn C.uintptr_t) C.int {
	return eventCall(C.MPI_T_ERR_INVALID_HANDLE)
}

//export abigo_T_event_handle_get_info
func abigo_T_event_handle_get_info(reg C.uintptr_t, info *C.uintptr_t) C.int {
	return eventCall(C.MPI_T_ERR_INVALID_HANDLE)
}

//export abigo_T_event_handle_set_info
func abigo_T_event_handle_set_info(reg C.uintptr_t, info C.uintptr_t) C.int {
	return eventCall(C.MPI_T_ERR_INVALID_HANDLE)
}

//export abigo_T_event_register_callback
func abigo_T_event_register_callback(reg C.uintptr_t, safety C.MPI_T_cb_safety, info C.uintptr_t, user C.uintptr_t, fn C.uintptr_t) C.int {
	return eventCall(C.MPI_T_ERR_INVALID_HANDLE)
}

//export abigo_T_event_callback_get_info
func abigo_T_event_callback_get_info(reg C.uintptr_t, safety C.MPI_T_cb_safety, info *C.uintptr_t) C.int {
	return eventCall(C.MPI_T_ERR_INVALID_HANDLE)
}

//export abigo_T_event_callback_set_info
func abigo_T_event_callback_set_info(reg C.uintptr_t, safety C.MPI_T_cb_safety, info C.uintptr_t) C.int {
	return eventCall(C.MPI_T_ERR_INVALID_HANDLE)
}

//export abigo_T_event_set_dropped_handler
func abigo_T_event_set_dropped_handler(reg C.uintptr_t, fn C.uintptr_t) C.int {
	return eventCall(C.MPI_T_ERR_INVALID_HANDLE)
}

//export abigo_T_event_copy
func abigo_T_event_copy(ev C.uintptr_t, buf C.uintptr_t) C.int {
	return eventCall(C.MPI_T_ERR_INVALID_HANDLE)
}

//export abigo_T_event_read
func abigo_T_event_read(ev C.uintptr_t, element C.int, buf C.uintptr_t) C.int {
	return eventCall(C.MPI_T_ERR_INVALID_HANDLE)
}

//export abigo_T_event_get_timestamp
func abigo_T_event_get_timestamp(ev C.uintptr_t, stamp *C.MPI_Count) C.int {
	return eventCall(C.MPI_T_ERR_INVALID_HANDLE)
}

//export abigo_T_event_get_source
func abigo_T_event_get_source(ev C.uintptr_t, source *C.int) C.int {
	return eventCall(C.MPI_T_ERR_INVALID_HANDLE)
}
