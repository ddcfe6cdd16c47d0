package compat

import "github.com/gshmem/gshmem/internal/mpitype"

// The gathering, scattering and all-to-all collectives, in their uniform
// and v (per-rank counts and displacements) forms.

// layout is a buffer divided into one region per rank: counts[i]
// instances of d starting displs[i] instances into b.
type layout struct {
	b              []byte
	d              *mpitype.Map
	counts, displs []int
}

func (l layout) region(i int) []byte {
	if l.counts[i] == 0 {
		return l.b[:0] // wherever its displacement points
	}
	lo := l.displs[i] * l.d.Extent()
	return l.b[lo : lo+l.d.Span(l.counts[i])]
}

// data returns region i's bytes, packed.
func (l layout) data(i int) []byte { return packed(l.region(i), l.d, l.counts[i]) }

// into returns where region i's bytes are received and how to unpack them.
func (l layout) into(i int) ([]byte, func([]byte)) {
	return recvBuffer(l.region(i), l.counts[i]*l.d.Size(), l.counts[i], l.d)
}

func uniform(n, count int) (counts, displs []int) {
	counts, displs = make([]int, n), make([]int, n)
	for i := range n {
		counts[i], displs[i] = count, i*count
	}
	return
}

// makeLayout checks buf against per-rank counts and displacements.
func makeLayout[T Elem](buf []T, dt Datatype, counts, displs []int, n int, what string) (layout, error) {
	b, _, err := view(buf, 0, dt, what)
	if err != nil {
		return layout{}, err
	}
	if len(counts) != n || len(displs) != n {
		return layout{}, errorf(ClassCount, "%s: %d counts and %d displacements for %d ranks", what, len(counts), len(displs), n)
	}
	l := layout{b: b, d: mapOf(dt), counts: counts, displs: displs}
	for i := range n {
		if counts[i] < 0 {
			return l, errorf(ClassCount, "%s: count %d for rank %d", what, counts[i], i)
		}
		if counts[i] == 0 { // touches no byte: its displacement is not significant
			continue
		}
		if displs[i] < 0 {
			return l, errorf(ClassArg, "%s: displacement %d for rank %d", what, displs[i], i)
		}
		if sz := l.d.Size(); sz > 0 && counts[i] > len(b)/sz || l.d.Extent() > 0 && displs[i] > len(b)/l.d.Extent() {
			return l, errorf(ClassBuffer, "%s: rank %d's region (%d at %d) is outside a buffer of %d bytes", what, i, counts[i], displs[i], len(b))
		}
		if end := displs[i]*l.d.Extent() + l.d.Span(counts[i]); end > len(b) {
			return l, errorf(ClassBuffer, "%s: rank %d's region ends at byte %d of a buffer of %d", what, i, end, len(b))
		}
	}
	return l, nil
}

// localCopy places this rank's own contribution.
func localCopy(dst []byte, d *mpitype.Map, count int, src []byte, what string) error {
	if len(src) > count*d.Size() {
		return errorf(ClassTruncate, "%s: %d bytes into room for %d", what, len(src), count*d.Size())
	}
	place(dst, d, count, src)
	return nil
}

// sendData checks a send buffer and returns its packed bytes.
func sendData[T Elem](buf []T, count int, dt Datatype, what string) ([]byte, error) {
	b, _, err := view(buf, count, dt, what)
	if err != nil {
		return nil, err
	}
	return packed(b, mapOf(dt), count), nil
}

// Gather collects scount instances of sdt from every member into root's
// rbuf, member i's at rcount*i instances of rdt (MPI_Gather). At the root,
// sbuf may be InPlace: its part is then already in rbuf.
func Gather[S, R Elem](c *Comm, sbuf []S, scount int, sdt Datatype, rbuf []R, rcount int, rdt Datatype, root int) error {
	if c.IsInter() {
		counts, displs := uniform(c.RemoteSize(), rcount)
		return Gatherv(c, sbuf, scount, sdt, rbuf, counts, displs, rdt, root)
	}
	if c != nil && c.rank == root {
		if err := checkAlias(sbuf, rbuf, "Gather"); err != nil {
			return err
		}
	}
	counts, displs := uniform(c.Size(), rcount)
	return Gatherv(c, sbuf, scount, sdt, rbuf, counts, displs, rdt, root)
}

// Gatherv is Gather with rcounts[i] instances from member i placed displs[i]
// instances into rbuf (MPI_Gatherv); rcounts and displs matter at the root.
func Gatherv[S, R Elem](c *Comm, sbuf []S, scount int, sdt Datatype, rbuf []R, rcounts, displs []int, rdt Datatype, root int) error {
	if c.IsInter() {
		return c.checkThen("Gatherv", func() error {
			return interGatherv(c, asBytes(sbuf), scount, sdt, asBytes(rbuf), rcounts, displs, rdt, root)
		})
	}
	if c != nil && c.rank == root {
		if err := checkAlias(sbuf, rbuf, "Gatherv"); err != nil {
			return err
		}
	}
	if err := c.rootArg(root, "Gatherv"); err != nil {
		return err
	}
	if c.env.devV() {
		if done, err := devGatherv(c, sbuf, scount, sdt, rbuf, rcounts, displs, rdt, root); done {
			return err
		}
	}
	inPlace := isInPlace(sbuf) && c.rank == root
	var mine []byte
	if !inPlace {
		var err error
		if mine, err = sendData(sbuf, scount, sdt, "Gatherv send"); err != nil {
			return err
		}
	}
	if c.rank != root {
		_, err := wait1(c.csend(mine, root, tagGather))
		return err
	}
	rl, err := makeLayout(rbuf, rdt, rcounts, displs, c.Size(), "Gatherv receive")
	if err != nil {
		return err
	}
	var reqs []*Request
	for i := range c.Size() {
		if i != root {
			dst, un := rl.into(i)
			reqs = append(reqs, c.crecv(dst, un, i, tagGather))
		}
	}
	if !inPlace {
		err = localCopy(rl.region(root), rl.d, rl.counts[root], mine, "Gatherv")
	}
	return errorsOf(waitReqs(reqs), err)
}

// Scatter sends rank i the scount instances of sdt at scount*i in root's
// sbuf (MPI_Scatter). At the root, rbuf may be InPlace: its part stays in
// sbuf.
func Scatter[S, R Elem](c *Comm, sbuf []S, scount int, sdt Datatype, rbuf []R, rcount int, rdt Datatype, root int) error {
	if c.IsInter() {
		counts, displs := uniform(c.RemoteSize(), scount)
		return Scatterv(c, sbuf, counts, displs, sdt, rbuf, rcount, rdt, root)
	}
	if c != nil && c.rank == root {
		if err := checkAlias(sbuf, rbuf, "Scatter"); err != nil {
			return err
		}
	}
	counts, displs := uniform(c.Size(), scount)
	return Scatterv(c, sbuf, counts, displs, sdt, rbuf, rcount, rdt, root)
}

// Scatterv is Scatter with scounts[i] instances sent to member i from
// displs[i] instances into sbuf (MPI_Scatterv).
func Scatterv[S, R Elem](c *Comm, sbuf []S, scounts, displs []int, sdt Datatype, rbuf []R, rcount int, rdt Datatype, root int) error {
	if c.IsInter() {
		return c.checkThen("Scatterv", func() error {
			return interScatterv(c, asBytes(sbuf), scounts, displs, sdt, asBytes(rbuf), rcount, rdt, root)
		})
	}
	if c != nil && c.rank == root {
		if err := checkAlias(sbuf, rbuf, "Scatterv"); err != nil {
			return err
		}
	}
	if err := c.rootArg(root, "Scatterv"); err != nil {
		return err
	}
	if c.env.devV() {
		if done, err := devScatterv(c, sbuf, scounts, displs, sdt, rbuf, rcount, rdt, root); done {
			return err
		}
	}
	inPlace := isInPlace(rbuf) && c.rank == root
	var rb []byte
	if !inPlace {
		var err error
		if rb, _, err = view(rbuf, rcount, rdt, "Scatterv receive"); err != nil {
			return err
		}
	}
	if c.rank != root {
		dst, un := recvBuffer(rb, rcount*mapOf(rdt).Size(), rcount, mapOf(rdt))
		_, err := wait1(c.crecv(dst, un, root, tagScatter))
		return err
	}
	sl, err := makeLayout(sbuf, sdt, scounts, displs, c.Size(), "Scatterv send")
	if err != nil {
		return err
	}
	var reqs []*Request
	for i := range c.Size() {
		if i != root {
			reqs = append(reqs, c.csend(sl.data(i), i, tagScatter))
		}
	}
	if !inPlace {
		err = localCopy(rb, mapOf(rdt), rcount, sl.data(root), "Scatterv")
	}
	return errorsOf(waitReqs(reqs), err)
}

// Allgather gives every member every member's scount instances of sdt,
// member i's at rcount*i instances into rbuf (MPI_Allgather); sbuf may be
// InPlace, each member's part then being already in its rbuf.
func Allgather[S, R Elem](c *Comm, sbuf []S, scount int, sdt Datatype, rbuf []R, rcount int, rdt Datatype) error {
	if c.IsInter() {
		counts, displs := uniform(c.RemoteSize(), rcount)
		return Allgatherv(c, sbuf, scount, sdt, rbuf, counts, displs, rdt)
	}
	if err := checkAlias(sbuf, rbuf, "Allgather"); err != nil {
		return err
	}
	if c.check("Allgather") == nil && c.env.dev {
		if done, err := devAllgather(c, sbuf, scount, sdt, rbuf, rcount, rdt); done {
			return err
		}
	}
	if done, err := teamAllgather(c, sbuf, scount, sdt, rbuf, rcount, rdt); done {
		return err
	}
	counts, displs := uniform(c.Size(), rcount)
	return Allgatherv(c, sbuf, scount, sdt, rbuf, counts, displs, rdt)
}

// Allgatherv is Allgather with rcounts[i] instances from member i placed
// displs[i] instances into rbuf (MPI_Allgatherv).
func Allgatherv[S, R Elem](c *Comm, sbuf []S, scount int, sdt Datatype, rbuf []R, rcounts, displs []int, rdt Datatype) error {
	if c.IsInter() {
		return c.checkThen("Allgatherv", func() error {
			return interAllgatherv(c, asBytes(sbuf), scount, sdt, asBytes(rbuf), rcounts, displs, rdt)
		})
	}
	if err := checkAlias(sbuf, rbuf, "Allgatherv"); err != nil {
		return err
	}
	if err := c.collCheck("Allgatherv"); err != nil {
		return err
	}
	if c.env.devV() {
		if done, err := devAllgatherv(c, sbuf, scount, sdt, rbuf, rcounts, displs, rdt); done {
			return err
		}
	}
	n, me := c.Size(), c.rank
	rl, err := makeLayout(rbuf, rdt, rcounts, displs, n, "Allgatherv receive")
	if err != nil {
		return err
	}
	inPlace := isInPlace(sbuf)
	var mine []byte
	if inPlace {
		mine = rl.data(me)
	} else if mine, err = sendData(sbuf, scount, sdt, "Allgatherv send"); err != nil {
		return err
	}
	reqs := make([]*Request, 0, 2*n)
	for k := 1; k < n; k++ {
		j := (me - k + n) % n
		dst, un := rl.into(j)
		reqs = append(reqs, c.crecv(dst, un, j, tagAllgather))
	}
	for k := 1; k < n; k++ {
		reqs = append(reqs, c.csend(mine, (me+k)%n, tagAllgather))
	}
	if !inPlace {
		err = localCopy(rl.region(me), rl.d, rl.counts[me], mine, "Allgatherv")
	}
	return errorsOf(waitReqs(reqs), err)
}

// Alltoall sends member j the scount instances of sdt at scount*j in sbuf
// and receives member j's into rbuf at rcount*j (MPI_Alltoall); sbuf may
// be InPlace, the data then being taken from rbuf.
func Alltoall[S, R Elem](c *Comm, sbuf []S, scount int, sdt Datatype, rbuf []R, rcount int, rdt Datatype) error {
	if c.IsInter() {
		sc, sd := uniform(c.RemoteSize(), scount)
		rc, rd := uniform(c.RemoteSize(), rcount)
		return Alltoallv(c, sbuf, sc, sd, sdt, rbuf, rc, rd, rdt)
	}
	if err := checkAlias(sbuf, rbuf, "Alltoall"); err != nil {
		return err
	}
	if c.check("Alltoall") == nil && c.env.dev {
		if done, err := devAlltoall(c, sbuf, scount, sdt, rbuf, rcount, rdt); done {
			return err
		}
	}
	if done, err := teamAlltoall(c, sbuf, scount, sdt, rbuf, rcount, rdt); done {
		return err
	}
	sc, sd := uniform(c.Size(), scount)
	rc, rd := uniform(c.Size(), rcount)
	return Alltoallv(c, sbuf, sc, sd, sdt, rbuf, rc, rd, rdt)
}

// Alltoallv is Alltoall with per-member counts and displacements on both
// sides (MPI_Alltoallv).
func Alltoallv[S, R Elem](c *Comm, sbuf []S, scounts, sdispls []int, sdt Datatype, rbuf []R, rcounts, rdispls []int, rdt Datatype) error {
	if c.IsInter() {
		return c.checkThen("Alltoallv", func() error {
			return interAlltoallv(c, asBytes(sbuf), scounts, sdispls, sdt, asBytes(rbuf), rcounts, rdispls, rdt)
		})
	}
	if err := checkAlias(sbuf, rbuf, "Alltoallv"); err != nil {
		return err
	}
	if err := c.collCheck("Alltoallv"); err != nil {
		return err
	}
	if c.env.devV() {
		if done, err := devAlltoallv(c, sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt); done {
			return err
		}
	}
	n, me := c.Size(), c.rank
	rl, err := makeLayout(rbuf, rdt, rcounts, rdispls, n, "Alltoallv receive")
	if err != nil {
		return err
	}
	var sl layout
	if isInPlace(sbuf) {
		sl = rl
		sl.b = append([]byte(nil), rl.b...)
	} else if sl, err = makeLayout(sbuf, sdt, scounts, sdispls, n, "Alltoallv send"); err != nil {
		return err
	}
	reqs := make([]*Request, 0, 2*n)
	for k := 1; k < n; k++ {
		j := (me - k + n) % n
		dst, un := rl.into(j)
		reqs = append(reqs, c.crecv(dst, un, j, tagAlltoall))
	}
	for k := 1; k < n; k++ {
		j := (me + k) % n
		reqs = append(reqs, c.csend(sl.data(j), j, tagAlltoall))
	}
	err = localCopy(rl.region(me), rl.d, rl.counts[me], sl.data(me), "Alltoallv")
	return errorsOf(waitReqs(reqs), err)
}

// ReduceScatterBlock reduces Size()*rcount instances of dt from every
// member's sbuf with op and gives member i the i-th block of rcount
// (MPI_Reduce_scatter_block); sbuf may be InPlace, the input then being
// rbuf, which must hold all Size()*rcount instances.
func ReduceScatterBlock[T Elem](c *Comm, sbuf, rbuf []T, rcount int, dt Datatype, op Op) error {
	if c.IsInter() {
		counts, _ := uniform(c.Size(), rcount)
		return c.checkThen("ReduceScatterBlock", func() error {
			return interReduceScatter(c, asBytes(sbuf), asBytes(rbuf), counts, dt, op, "ReduceScatterBlock")
		})
	}
	if err := checkAlias(sbuf, rbuf, "ReduceScatterBlock"); err != nil {
		return err
	}
	if err := c.collCheck("ReduceScatterBlock"); err != nil {
		return err
	}
	counts, _ := uniform(c.Size(), rcount)
	if c.env.devV() {
		if done, err := devReduceScatter(c, sbuf, rbuf, counts, dt, op, "ReduceScatterBlock"); done {
			return err
		}
	} else if done, err := teamReduceScatterBlock(c, sbuf, rbuf, rcount, dt, op); done {
		return err
	}
	return reduceScatter(c, sbuf, rbuf, counts, dt, op, "ReduceScatterBlock")
}

// ReduceScatter is ReduceScatterBlock with rcounts[i] instances for member
// i (MPI_Reduce_scatter).
func ReduceScatter[T Elem](c *Comm, sbuf, rbuf []T, rcounts []int, dt Datatype, op Op) error {
	if c.IsInter() {
		return c.checkThen("ReduceScatter", func() error {
			return interReduceScatter(c, asBytes(sbuf), asBytes(rbuf), rcounts, dt, op, "ReduceScatter")
		})
	}
	if err := checkAlias(sbuf, rbuf, "ReduceScatter"); err != nil {
		return err
	}
	if err := c.collCheck("ReduceScatter"); err != nil {
		return err
	}
	if len(rcounts) != c.Size() {
		return errorf(ClassCount, "ReduceScatter: %d counts for %d ranks", len(rcounts), c.Size())
	}
	if c.env.devV() {
		if done, err := devReduceScatter(c, sbuf, rbuf, rcounts, dt, op, "ReduceScatter"); done {
			return err
		}
	}
	return reduceScatter(c, sbuf, rbuf, rcounts, dt, op, "ReduceScatter")
}

func reduceScatter[T Elem](c *Comm, sbuf, rbuf []T, rcounts []int, dt Datatype, op Op, what string) error {
	total := 0
	for i, k := range rcounts {
		if k < 0 {
			return errorf(ClassCount, "%s: count %d for rank %d", what, k, i)
		}
		total += k
	}
	me := c.rank
	inCount := total
	if !isInPlace(sbuf) {
		if _, _, err := view(rbuf, rcounts[me], dt, what+" receive"); err != nil {
			return err
		}
	}
	acc, err := reduceArgs(c, sbuf, rbuf, inCount, dt, op, true, what)
	if err != nil {
		return err
	}
	rb, _, _ := view(rbuf, rcounts[me], dt, what+" receive")
	if err := c.reduceBytes(acc, mapOf(dt).Basic(), op, 0); err != nil {
		return err
	}
	size := mapOf(dt).Size()
	if me != 0 {
		dst, un := recvBuffer(rb, rcounts[me]*size, rcounts[me], mapOf(dt))
		_, err := wait1(c.crecv(dst, un, 0, tagScatter))
		return err
	}
	var reqs []*Request
	at := rcounts[0] * size
	for i := 1; i < c.Size(); i++ {
		reqs = append(reqs, c.csend(acc[at:at+rcounts[i]*size], i, tagScatter))
		at += rcounts[i] * size
	}
	place(rb, mapOf(dt), rcounts[0], acc[:rcounts[0]*size])
	return waitReqs(reqs)
}
