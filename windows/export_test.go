package windows

// SetForceRemote makes windows created afterwards reach peers through
// shmem calls instead of load/store, as on a transport without mapped
// peers.
func SetForceRemote(b bool) { forceRemote.Store(b) }

// RawMemory returns rank's whole copy of the window's heap allocation (the
// largest size, for allocate windows), to check what lies past a window.
func RawMemory(win *Win, rank int) []byte { return win.dataMem[rank].mapped }
