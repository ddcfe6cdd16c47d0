package compat

// Info is a set of hints (MPI_Info): string keys and values a call may
// take into account. Keys a call does not know are ignored, as MPI does;
// a known key with a value the call does not take is ErrInfoValue. A nil
// Info is MPI_INFO_NULL. windows' creation calls and Win.SetInfo take an
// Info (window keys: windows.InfoNoLocks and the others there).
type Info map[string]string
