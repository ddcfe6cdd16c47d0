package main

/*
#include "abi.h"
*/
import "C"

import "github.com/gshmem/gshmem/windows"

// Windows (MPI-3 RMA) over windows.Win.

type winObj struct {
	w    *windows.Win
	errh uintptr // the MPI_Errhandler attached
}
