package windows

import "encoding/binary"

// The separate memory model (Create windows that ask for it, or whose
// memory cannot be reached in place). The caller's buffer is the private
// copy; the symmetric heap holds the public copy
// that RMA reaches; a shadow holds what both contained at the last
// reconciliation. Reconciling compares the three: a byte the caller
// changed since (private != shadow) goes to the public copy, a byte RMA
// changed (public != shadow) comes to the private copy. Bytes nobody
// changed are left alone, so an owner's stores and peers' RMA to other
// locations of the window in the same epoch both survive. A byte both
// changed is a conflict MPI calls erroneous; the local store wins.

// reconcile brings priv and pub together: push sends local changes to the
// public copy, pull brings RMA changes to the private copy.
func reconcile(priv, pub, shadow []byte, push, pull bool) {
	n := len(priv)
	i := 0
	for ; i+8 <= n; i += 8 {
		p := binary.LittleEndian.Uint64(priv[i:])
		s := binary.LittleEndian.Uint64(shadow[i:])
		u := binary.LittleEndian.Uint64(pub[i:])
		if p == s && u == s {
			continue
		}
		mergeBytes(priv[i:i+8], pub[i:i+8], shadow[i:i+8], push, pull)
	}
	mergeBytes(priv[i:], pub[i:n], shadow[i:], push, pull)
}

func mergeBytes(priv, pub, shadow []byte, push, pull bool) {
	for k := range priv {
		p, u, s := priv[k], pub[k], shadow[k]
		switch {
		case p != s:
			// A local store: it goes out on a push, and stays (is not
			// overwritten by a pull) until then.
			if push {
				pub[k], shadow[k] = p, p
			}
		case pull && u != s:
			priv[k], shadow[k] = u, u
		}
	}
}

// syncAll reconciles every part of this PE's window (nothing to do in the
// unified model).
func (win *Win) syncAll(push, pull bool) {
	raceSynced() // peers' copies into this window are ordered before here (race builds)
	win.settle()
	if win.model != Separate || (!push && !pull) {
		return
	}
	if win.devWorld {
		win.reconcileDevice(push, pull)
		return
	}
	reconcile(win.base, win.public, win.shadow, push, pull)
}
