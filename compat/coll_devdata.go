package compat

import "github.com/gshmem/gshmem/shmem"

// Bcast, Allgather and Alltoall on a device World (coll_device.go): the
// same staging, in pieces of the scratch, and the same direct form on
// symmetric device buffers.

// contiguous reports whether dt is a valid contiguous datatype.
func contiguous(dt Datatype) bool { return dt.Err() == nil && mapOf(dt).Contiguous() }

// devBcast runs Bcast on a device World; done reports whether it did.
func devBcast[T Elem](c *Comm, buf []T, count int, dt Datatype, root int) (bool, error) {
	e := c.env
	dev := devAddr(e, buf)
	if c.coll.team == nil || !contiguous(dt) {
		if dev == 0 {
			return false, nil
		}
		return true, viaHost(c, nil, buf, 0, dev, count, dt, func(_, r []T) error { return Bcast(c, r, count, dt, root) })
	}
	b, size, err := view(buf, count, dt, "Bcast")
	if err != nil {
		return true, err
	}
	if err := e.afterCaller(dev); err != nil {
		return true, err
	}
	s := spanOf(b, dev, size)
	t := c.coll.team
	var direct func() error
	if syms, ok := e.devSyms(size, s); ok {
		direct = func() error {
			return c.teamRun(func() error { return shmem.Broadcast(t, syms[0], syms[0], size, root) })
		}
	}
	return true, staged(direct, func() (int, error) {
		calls := 0
		for off := 0; off < size; off += e.scratch.Len() {
			n := min(e.scratch.Len(), size-off)
			if c.rank == root {
				if err := e.spanIn(0, s, off, n); err != nil {
					return calls, err
				}
			}
			obj := e.scratch.Slice(0, n)
			calls++
			if err := c.teamRun(func() error { return shmem.Broadcast(t, obj, obj, n, root) }); err != nil {
				return calls, err
			}
			if c.rank != root {
				if err := e.spanOut(s, off, 0, n); err != nil {
					return calls, err
				}
			}
		}
		return calls, e.devDone()
	})
}

// devGatherArgs checks the buffers of Allgather and Alltoall on a device
// World: m is the bytes of one block, blocks how many sbuf holds (1 or
// Size), ok whether the kernels take the call.
func devGatherArgs[S, R Elem](c *Comm, sbuf []S, scount int, sdt Datatype, rbuf []R, rcount int, rdt Datatype, blocks int, what string) (in, out dspan, m int, ok bool, err error) {
	e := c.env
	n := c.Size()
	inPlace := isInPlace(sbuf)
	if c.coll.team == nil || rcount <= 0 || !contiguous(rdt) || (!inPlace && !contiguous(sdt)) {
		return in, out, 0, false, nil
	}
	m = rcount * mapOf(rdt).Size()
	if m == 0 {
		return in, out, 0, false, nil
	}
	rb, size, err := view(rbuf, rcount*n, rdt, what+" receive")
	if err != nil {
		return in, out, m, true, err
	}
	out = spanOf(rb, devAddr(e, rbuf), size)
	sdev := devAddr(e, sbuf)
	if err := e.afterCaller(out.dev, sdev); err != nil {
		return in, out, m, true, err
	}
	if inPlace {
		return out, out, m, true, nil
	}
	sb, ssize, err := srcView(sbuf, scount*blocks, sdt, what+" send")
	if err != nil {
		return in, out, m, true, err
	}
	if ssize != m*blocks {
		return in, out, m, true, errorf(ClassTruncate, "%s: %d bytes sent, %d expected", what, ssize, m*blocks)
	}
	return spanOf(sb, sdev, ssize), out, m, true, nil
}

// devAllgather runs Allgather on a device World; done reports whether it
// did.
func devAllgather[S, R Elem](c *Comm, sbuf []S, scount int, sdt Datatype, rbuf []R, rcount int, rdt Datatype) (bool, error) {
	e := c.env
	in, out, m, ok, err := devGatherArgs(c, sbuf, scount, sdt, rbuf, rcount, rdt, 1, "Allgather")
	if !ok {
		sdev, rdev := devAddr(e, sbuf), devAddr(e, rbuf)
		if sdev == 0 && rdev == 0 {
			return false, nil
		}
		return true, viaHostPair(c, sbuf, scount, sdt, sdev, rbuf, rcount*c.Size(), rdt, rdev, func(s []S, r []R) error {
			return Allgather(c, s, scount, sdt, r, rcount, rdt)
		})
	}
	if err != nil {
		return true, err
	}
	n, me, t := c.Size(), c.rank, c.coll.team
	inPlace := isInPlace(sbuf)
	var direct func() error
	if syms, ok := e.devSyms(m*n, out); ok && !inPlace {
		if src, ok := e.devSyms(m, in); ok {
			direct = func() error {
				return c.teamRun(func() error { return shmem.FCollect(t, syms[0], src[0], m) })
			}
		}
	}
	return true, staged(direct, func() (int, error) {
		calls := 0
		p := max(1, min(m, e.scratch.Len()/(n+1)))
		for off := 0; off < m; off += p {
			k := min(p, m-off)
			from := off
			if inPlace {
				from = me*m + off
			}
			if err := e.spanIn(0, in, from, k); err != nil {
				return calls, err
			}
			src, dst := e.scratch.Slice(0, k), e.scratch.Slice(k, k+k*n)
			calls++
			if err := c.teamRun(func() error { return shmem.FCollect(t, dst, src, k) }); err != nil {
				return calls, err
			}
			for i := range n {
				if err := e.spanOut(out, i*m+off, k+i*k, k); err != nil {
					return calls, err
				}
			}
		}
		return calls, e.devDone()
	})
}

// devAlltoall runs Alltoall on a device World; done reports whether it did.
func devAlltoall[S, R Elem](c *Comm, sbuf []S, scount int, sdt Datatype, rbuf []R, rcount int, rdt Datatype) (bool, error) {
	e := c.env
	n, t := c.Size(), c.coll.team
	in, out, m, ok, err := devGatherArgs(c, sbuf, scount, sdt, rbuf, rcount, rdt, n, "Alltoall")
	if !ok {
		sdev, rdev := devAddr(e, sbuf), devAddr(e, rbuf)
		if sdev == 0 && rdev == 0 {
			return false, nil
		}
		return true, viaHostPair(c, sbuf, scount*n, sdt, sdev, rbuf, rcount*n, rdt, rdev, func(s []S, r []R) error {
			return Alltoall(c, s, scount, sdt, r, rcount, rdt)
		})
	}
	if err != nil {
		return true, err
	}
	var direct func() error
	if !isInPlace(sbuf) {
		if syms, ok := e.devSyms(m*n, out, in); ok {
			direct = func() error {
				return c.teamRun(func() error { return shmem.Alltoall(t, syms[0], syms[1], m) })
			}
		}
	}
	return true, staged(direct, func() (int, error) {
		calls := 0
		p := max(1, min(m, e.scratch.Len()/(2*n)))
		for off := 0; off < m; off += p {
			k := min(p, m-off)
			for j := range n {
				if err := e.spanIn(j*k, in, j*m+off, k); err != nil {
					return calls, err
				}
			}
			src, dst := e.scratch.Slice(0, n*k), e.scratch.Slice(n*k, 2*n*k)
			calls++
			if err := c.teamRun(func() error { return shmem.Alltoall(t, dst, src, k) }); err != nil {
				return calls, err
			}
			for j := range n {
				if err := e.spanOut(out, j*m+off, n*k+j*k, k); err != nil {
					return calls, err
				}
			}
		}
		return calls, e.devDone()
	})
}

// viaHostPair is viaHost for a send and a receive buffer of different
// element types: sn instances of sdt from sbuf, rn of rdt into rbuf.
func viaHostPair[S, R Elem](c *Comm, sbuf []S, sn int, sdt Datatype, sdev uintptr, rbuf []R, rn int, rdt Datatype, rdev uintptr, f func(s []S, r []R) error) error {
	var s []S
	err := viaHost(c, sbuf, nil, sdev, 0, sn, sdt, func(hs, _ []S) error {
		s = hs
		return viaHost(c, nil, rbuf, 0, rdev, rn, rdt, func(_, hr []R) error { return f(s, hr) })
	})
	return err
}
