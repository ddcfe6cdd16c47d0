package main

/*
#include "abi.h"
*/
import "C"

import (
	"strings"
	"sync"

	"github.com/gshmem/gshmem/internal/settings"
)

// MPI_T categories: "gshmem", whose subcategories group the control
// variables by who reads them and the performance variables by what they
// count. The set never changes while the process runs, so
// MPI_T_category_changed always answers the same number, and no category
// holds events (there are none).

// category is one category: indices of its variables and subcategories.
type category struct {
	name, desc    string
	cvars, pvars  []int
	subcategories []int
}

var (
	catsOnce sync.Once
	catList  []category
)

func categories() []category {
	catsOnce.Do(func() {
		cats := []category{
			{name: "gshmem", desc: "gshmem's settings and counters"},
			{name: "gshmem_settings_shmem", desc: "settings of the symmetric heap, its bootstrap and transports"},
			{name: "gshmem_settings_mpi", desc: "settings of the MPI layer and of libmpi_abi"},
			{name: "gshmem_settings_launcher", desc: "what gshmem run sets for each process"},
			{name: "gshmem_settings_tools", desc: "settings of gshmem's compiler wrappers and installer"},
			{name: "gshmem_p2p", desc: "messages and the matching queues", pvars: []int{0, 1, 2, 3, 6, 7}},
			{name: "gshmem_rma", desc: "one-sided operations", pvars: []int{4}},
			{name: "gshmem_wait", desc: "time spent waiting", pvars: []int{5}},
		}
		for i := 1; i < len(cats); i++ {
			cats[0].subcategories = append(cats[0].subcategories, i)
		}
		for i, c := range cvarTable() {
			k := 4
			switch {
			case c.v.Kind == settings.Launcher:
				k = 3
			case c.v.Reader == "shmem":
				k = 1
			case c.v.Reader == "compat" || strings.Contains(c.v.Reader, "libmpi_abi"):
				k = 2
			}
			cats[k].cvars = append(cats[k].cvars, i)
		}
		catList = cats
	})
	return catList
}

// catArg returns category i, with the interface locked; the caller
// unlocks when rc is success.
func catArg(i C.int) (category, C.int) {
	if rc := toolsLock(); rc != C.MPI_SUCCESS {
		return category{}, rc
	}
	cs := categories()
	if i < 0 || int(i) >= len(cs) {
		tools.mu.Unlock()
		return category{}, C.MPI_T_ERR_INVALID_INDEX
	}
	return cs[i], C.MPI_SUCCESS
}

//export abigo_T_category_get_num
func abigo_T_category_get_num(num *C.int) C.int {
	if rc := toolsLock(); rc != C.MPI_SUCCESS {
		return rc
	}
	defer tools.mu.Unlock()
	if num == nil {
		return C.MPI_T_ERR_INVALID
	}
	*num = C.int(len(categories()))
	return C.MPI_SUCCESS
}

//export abigo_T_category_get_info
func abigo_T_category_get_info(i C.int, name *C.char, nameLen *C.int, desc *C.char, descLen *C.int, ncvars, npvars, ncats *C.int) C.int {
	c, rc := catArg(i)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	defer tools.mu.Unlock()
	tString(name, nameLen, c.name)
	tString(desc, descLen, c.desc)
	setInt(ncvars, len(c.cvars))
	setInt(npvars, len(c.pvars))
	setInt(ncats, len(c.subcategories))
	return C.MPI_SUCCESS
}

//export abigo_T_category_get_num_events
func abigo_T_category_get_num_events(i C.int, num *C.int) C.int {
	_, rc := catArg(i)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	defer tools.mu.Unlock()
	if num == nil {
		return C.MPI_T_ERR_INVALID
	}
	*num = 0
	return C.MPI_SUCCESS
}

//export abigo_T_category_get_index
func abigo_T_category_get_index(name *C.char, index *C.int) C.int {
	if rc := toolsLock(); rc != C.MPI_SUCCESS {
		return rc
	}
	defer tools.mu.Unlock()
	s, ok := tName(name)
	if !ok || index == nil {
		return C.MPI_T_ERR_INVALID
	}
	for i, c := range categories() {
		if c.name == s {
			*index = C.int(i)
			return C.MPI_SUCCESS
		}
	}
	return C.MPI_T_ERR_INVALID_NAME
}

func catIndices(i C.int, n C.int, indices *C.int, pick func(category) []int) C.int {
	c, rc := catArg(i)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	defer tools.mu.Unlock()
	return tIndices(indices, n, pick(c))
}

//export abigo_T_category_get_cvars
func abigo_T_category_get_cvars(i C.int, n C.int, indices *C.int) C.int {
	return catIndices(i, n, indices, func(c category) []int { return c.cvars })
}

//export abigo_T_category_get_pvars
func abigo_T_category_get_pvars(i C.int, n C.int, indices *C.int) C.int {
	return catIndices(i, n, indices, func(c category) []int { return c.pvars })
}

//export abigo_T_category_get_categories
func abigo_T_category_get_categories(i C.int, n C.int, indices *C.int) C.int {
	return catIndices(i, n, indices, func(c category) []int { return c.subcategories })
}

//export abigo_T_category_get_events
func abigo_T_category_get_events(i C.int, n C.int, indices *C.int) C.int {
	return catIndices(i, n, indices, func(category) []int { return nil })
}

//export abigo_T_category_changed
func abigo_T_category_changed(update *C.int) C.int {
	if rc := toolsLock(); rc != C.MPI_SUCCESS {
		return rc
	}
	defer tools.mu.Unlock()
	if update == nil {
		return C.MPI_T_ERR_INVALID
	}
	*update = 1
	return C.MPI_SUCCESS
}
