package shmem

// SyncInteger is the set of types the point-to-point synchronization calls
// (WaitUntil*, Test*, and their vector forms) accept: every type OpenSHMEM
// 1.5 lists for them (short, int, long, long long, their unsigned forms,
// int32_t, int64_t, uint32_t, uint64_t, size_t, ptrdiff_t). The 16-bit
// words are read with atomic loads of the 4-byte word holding them.
type SyncInteger interface {
	Integer | ~int16 | ~uint16 | ~uintptr
}

// TestAllVector is TestAll with one comparison value per element
// (shmem_test_all_vector).
func TestAllVector[T SyncInteger](ivars Sym[T], status []int, cmp Cmp, values []T) (bool, error) {
	ws, err := newWaitSet(ivars, status, cmp, values)
	if err != nil {
		return false, err
	}
	return ws.all(), nil
}

// TestAnyVector is TestAny with one comparison value per element
// (shmem_test_any_vector): the index of an element that satisfies its
// comparison now, or -1.
func TestAnyVector[T SyncInteger](ivars Sym[T], status []int, cmp Cmp, values []T) (int, error) {
	ws, err := newWaitSet(ivars, status, cmp, values)
	if err != nil {
		return -1, err
	}
	return max(ws.any(), -1), nil
}

// TestSomeVector is TestSome with one comparison value per element
// (shmem_test_some_vector).
func TestSomeVector[T SyncInteger](ivars Sym[T], status []int, cmp Cmp, values []T) ([]int, error) {
	ws, err := newWaitSet(ivars, status, cmp, values)
	if err != nil {
		return nil, err
	}
	return ws.some(), nil
}
