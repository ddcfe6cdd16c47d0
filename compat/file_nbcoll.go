package compat

import "slices"

// Nonblocking collective data access (MPI_File_iwrite_all,
// MPI_File_iread_at_all, ...; MPI-4.1 section 14.4.5): the start is
// local, so the access runs as a driven request (request_drive.go) whose
// messages are nonblocking point-to-point operations on the file's
// communicator, moved on whenever the program tests or waits. A member may
// thus start one, exchange messages with another member that has not
// started it yet, and complete it later. The steps are those of the
// blocking form (file_coll.go), each a round of messages:
//
//   - the members' spans go to rank 0, which sends everyone all of them;
//     each member then decides alike between collective buffering and
//     independent access;
//   - with collective buffering, each member sends every aggregator, for
//     each round, a header (its pieces' number and bytes in the round's
//     window), the pieces' list and, for a write, its run of data; for a
//     read it posts the receives of the runs the aggregators will send.
//     Every member posts all of its rounds at once; an aggregator takes
//     the rounds one after the other, posting a round's receives when its
//     headers have come, and writes (or reads and sends) its window;
//   - the members' outcomes go to rank 0 and back, so that an error on any
//     member fails the access everywhere, as in the blocking form.
//
// The blocking collectives on the file's communicator run in its
// collective context, so these messages, in its point-to-point context
// (which nothing else on the file uses), never meet theirs. Messages of
// one kind between two members are matched in the order sent (MPI's
// non-overtaking rule), which puts rounds in order; each access has its
// own tags, so several may be in flight.

// The kinds of message of one access, added to its tag base.
const (
	nbTagSpan = iota
	nbTagHeader
	nbTagList
	nbTagData
	nbTagValid
	nbTagAgree
	nbTags = 8 // tags per access
)

// nbColl is a nonblocking collective access in progress.
type nbColl struct {
	f    *File
	c    *Comm
	a    *access
	tag  int
	r    *Request // the program's
	next func() ([]*Request, error)
	reqs []*Request // what the current step waits on
	bg   []*Request // operations that must complete before the access does

	ps       []piece
	mine     []int64
	all      []int64
	write    bool
	ioErr    error // this member's own failure, told to the others at the end
	moved    int64
	twoPhase bool

	// Collective buffering.
	dom    [][2]int64
	rounds int64
	myAgg  int
	k      int64   // an aggregator's round
	hdr    []int64 // an aggregator's headers this round: per member, pieces and bytes
	lbuf   [][]int64
	abuf   []byte
	adisp  []int
	runs   []nbRun // a reader's runs, in data order

	agreed []int64 // rank 0: every member's class; elsewhere, rank 0's verdict
	st     Status
	err    error
}

// nbRun is a member's run of data in one aggregator's window of one round
// of a read: where it lies in the data and how much of it the file held.
type nbRun struct {
	at, n int64
	valid []int64
}

// startCollective starts a nonblocking collective access.
func (f *File) startCollective(a *access) (*Request, error) {
	f.mu.Lock()
	seq := f.nbSeq
	f.nbSeq++
	f.mu.Unlock()
	n := &nbColl{f: f, c: f.comm, a: a, tag: int(seq%((TagUB+1)/nbTags)) * nbTags, write: a.op.Write}
	r, err := f.comm.env.drivenRequest(func(s *Status) error { *s = n.st; return n.err }, n.step)
	if err != nil {
		return nil, err
	}
	n.r = r
	n.next = n.spans
	r.advance() // the first messages leave now
	return r, nil
}

// step runs the access on as far as it can without waiting.
func (n *nbColl) step() []*Request {
	for {
		if len(n.reqs) > 0 {
			ok, err := Testall(n.reqs, nil)
			if err != nil {
				n.finish(Status{}, n.reqError(err))
				return nil
			}
			if !ok {
				return n.reqs
			}
		}
		fn := n.next
		if fn == nil {
			n.finish(n.outcome())
			return nil
		}
		n.next = nil
		reqs, err := fn()
		if err != nil {
			n.finish(Status{}, err)
			return nil
		}
		n.reqs = reqs
	}
}

// reqError is the error of the first failed operation of a Testall.
func (n *nbColl) reqError(err error) error {
	for _, r := range n.reqs {
		if r.Done() && r.err != nil {
			return r.err
		}
	}
	return err
}

func (n *nbColl) finish(st Status, err error) {
	n.st, n.err = st, err
	n.r.GrequestComplete()
}

func (n *nbColl) isend(b []int64, to, kind int) (*Request, error) {
	return Isend(n.c, b, len(b), Int64, to, n.tag+kind)
}

func (n *nbColl) irecv(b []int64, from, kind int) (*Request, error) {
	return Irecv(n.c, b, len(b), Int64, from, n.tag+kind)
}

// spans sends this member's spanWords to rank 0, which gathers them.
func (n *nbColl) spans() ([]*Request, error) {
	a := n.a
	n.ps = a.v.pieces(a.s, int64(len(a.data)))
	n.mine = spanWords(n.ps)
	size, me := n.c.Size(), n.c.Rank()
	n.all = make([]int64, 4*size)
	var reqs []*Request
	if me != 0 {
		s, err := n.isend(n.mine, 0, nbTagSpan)
		if err != nil {
			return nil, err
		}
		n.bg = append(n.bg, s)
		r, err := n.irecv(n.all, 0, nbTagSpan)
		if err != nil {
			return nil, err
		}
		n.next = n.decide
		return []*Request{r}, nil
	}
	copy(n.all, n.mine)
	for r := 1; r < size; r++ {
		q, err := n.irecv(n.all[4*r:4*r+4], r, nbTagSpan)
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, q)
	}
	n.next = n.spread
	return reqs, nil
}

// spread: rank 0 sends every member all the spans.
func (n *nbColl) spread() ([]*Request, error) {
	for r := 1; r < n.c.Size(); r++ {
		s, err := n.isend(n.all, r, nbTagSpan)
		if err != nil {
			return nil, err
		}
		n.bg = append(n.bg, s)
	}
	return n.decide()
}

// decide chooses as the blocking form does, and either makes this
// member's part independently or posts its rounds.
func (n *nbColl) decide() ([]*Request, error) {
	a := n.a
	glo, ghi, two := decide(n.all, n.write, a.h)
	if !two {
		n.moved, n.ioErr = n.f.access(n.write, &a.v, a.h, a.atomic, a.s, a.data)
		n.next = n.drain
		return nil, nil
	}
	n.twoPhase = true
	n.dom, n.rounds = domains(glo, ghi, a.h, len(a.aggs))
	n.myAgg = slices.Index(a.aggs, n.c.Rank())
	if err := n.postRounds(); err != nil {
		return nil, err
	}
	if n.myAgg >= 0 && n.rounds > 0 {
		n.next = n.aggHeaders
	} else {
		n.next = n.drain
	}
	return nil, nil
}

// postRounds sends this member's headers, lists and (writes) data to every
// aggregator for every round, and (reads) posts the receives of its runs.
func (n *nbColl) postRounds() error {
	a := n.a
	cb := int64(a.h.cbBufferSize)
	cursor := make([]int, len(a.aggs))
	for k := int64(0); k < n.rounds; k++ {
		for i, agg := range a.aggs {
			wlo := n.dom[i][0] + k*cb
			whi := min(wlo+cb, n.dom[i][1])
			if wlo >= whi {
				continue
			}
			pl := window(n.ps, &cursor[i], wlo, whi)
			var at, cnt int64
			if len(pl) > 0 {
				at = pl[0].at
				cnt = pl[len(pl)-1].at + pl[len(pl)-1].n - at
			}
			s, err := n.isend([]int64{int64(len(pl)), cnt}, agg, nbTagHeader)
			if err != nil {
				return err
			}
			n.bg = append(n.bg, s)
			if len(pl) == 0 {
				continue
			}
			list := make([]int64, 0, 2*len(pl))
			for _, p := range pl {
				list = append(list, p.off, p.n)
			}
			if s, err = n.isend(list, agg, nbTagList); err != nil {
				return err
			}
			n.bg = append(n.bg, s)
			run := a.data[at : at+cnt]
			if n.write {
				s, err = Isend(n.c, run, len(run), Byte, agg, n.tag+nbTagData)
				if err != nil {
					return err
				}
				n.bg = append(n.bg, s)
				continue
			}
			v := []int64{0}
			rv, err := n.irecv(v, agg, nbTagValid)
			if err != nil {
				return err
			}
			rd, err := Irecv(n.c, run, len(run), Byte, agg, n.tag+nbTagData)
			if err != nil {
				return err
			}
			n.bg = append(n.bg, rv, rd)
			n.runs = append(n.runs, nbRun{at, cnt, v})
		}
	}
	return nil
}

// aggHeaders: an aggregator posts the receives of a round's headers, if
// its window is not empty this round.
func (n *nbColl) aggHeaders() ([]*Request, error) {
	wlo := n.dom[n.myAgg][0] + n.k*int64(n.a.h.cbBufferSize)
	if wlo >= n.dom[n.myAgg][1] {
		return n.aggNext()
	}
	size := n.c.Size()
	n.hdr = make([]int64, 2*size)
	reqs := make([]*Request, 0, size)
	for m := range size {
		r, err := n.irecv(n.hdr[2*m:2*m+2], m, nbTagHeader)
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, r)
	}
	n.next = n.aggLists
	return reqs, nil
}

// aggLists: the headers have come; post the receives of the lists and
// (writes) the runs.
func (n *nbColl) aggLists() ([]*Request, error) {
	size := n.c.Size()
	counts := make([]int, size)
	for m := range size {
		counts[m] = int(n.hdr[2*m+1])
	}
	var total int
	n.adisp, total = displsOf(counts)
	n.abuf = make([]byte, total)
	n.lbuf = make([][]int64, size)
	var reqs []*Request
	for m := range size {
		np := n.hdr[2*m]
		if np == 0 {
			continue
		}
		n.lbuf[m] = make([]int64, 2*np)
		r, err := n.irecv(n.lbuf[m], m, nbTagList)
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, r)
		if n.write {
			run := n.abuf[n.adisp[m] : n.adisp[m]+counts[m]]
			r, err := Irecv(n.c, run, len(run), Byte, m, n.tag+nbTagData)
			if err != nil {
				return nil, err
			}
			reqs = append(reqs, r)
		}
	}
	n.next = n.aggIO
	return reqs, nil
}

// aggIO writes the round's window, or reads it and sends the runs.
func (n *nbColl) aggIO() ([]*Request, error) {
	size := n.c.Size()
	lists := make([][]piece, size)
	for m, l := range n.lbuf {
		at := int64(0)
		for i := 0; i < len(l); i += 2 {
			if l[i+1] <= 0 {
				return nil, errorf(ClassOther, "collective I/O: a malformed list from rank %d", m)
			}
			lists[m] = append(lists[m], piece{off: l[i], n: l[i+1], at: at})
			at += l[i+1]
		}
	}
	if n.write {
		if err := n.f.aggregateWrite(lists, n.abuf, n.adisp); err != nil && n.ioErr == nil {
			n.ioErr = err
		}
		return n.aggNext()
	}
	valid, err := n.f.aggregateRead(lists, n.abuf, n.adisp)
	if err != nil && n.ioErr == nil {
		n.ioErr = err
	}
	for m := range size {
		if n.hdr[2*m] == 0 {
			continue
		}
		s, err := n.isend(valid[m:m+1], m, nbTagValid)
		if err != nil {
			return nil, err
		}
		run := n.abuf[n.adisp[m] : n.adisp[m]+int(n.hdr[2*m+1])]
		d, err := Isend(n.c, run, len(run), Byte, m, n.tag+nbTagData)
		if err != nil {
			return nil, err
		}
		n.bg = append(n.bg, s, d)
	}
	return n.aggNext()
}

// aggNext moves an aggregator to its next round, or on to the end.
func (n *nbColl) aggNext() ([]*Request, error) {
	n.k++
	n.hdr, n.lbuf, n.abuf, n.adisp = nil, nil, nil, nil
	if n.k < n.rounds {
		return n.aggHeaders()
	}
	n.next = n.drain
	return nil, nil
}

// drain waits for this member's remaining operations.
func (n *nbColl) drain() ([]*Request, error) {
	n.next = n.agree
	bg := n.bg
	n.bg = nil
	return bg, nil
}

// agree sends this member's outcome to rank 0, which answers everyone
// with the first failure (or none).
func (n *nbColl) agree() ([]*Request, error) {
	code := int64(ClassSuccess)
	if n.ioErr != nil {
		code = int64(ClassOf(ioError(n.ioErr, "collective access of %q", n.f.path)))
	}
	size, me := n.c.Size(), n.c.Rank()
	if me != 0 {
		s, err := n.isend([]int64{code}, 0, nbTagAgree)
		if err != nil {
			return nil, err
		}
		n.agreed = make([]int64, 2)
		r, err := n.irecv(n.agreed, 0, nbTagAgree)
		if err != nil {
			return nil, err
		}
		n.next = nil
		return []*Request{s, r}, nil
	}
	all := make([]int64, size)
	all[0] = code
	var reqs []*Request
	for r := 1; r < size; r++ {
		q, err := n.irecv(all[r:r+1], r, nbTagAgree)
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, q)
	}
	n.next = func() ([]*Request, error) {
		n.agreed = []int64{int64(ClassSuccess), 0}
		for r, cl := range all {
			if cl != int64(ClassSuccess) {
				n.agreed = []int64{cl, int64(r)}
				break
			}
		}
		var sends []*Request
		for r := 1; r < size; r++ {
			s, err := n.isend(n.agreed, r, nbTagAgree)
			if err != nil {
				return nil, err
			}
			sends = append(sends, s)
		}
		n.next = nil
		return sends, nil
	}
	return reqs, nil
}

// outcome is the access's Status, once every member's outcome is known.
func (n *nbColl) outcome() (Status, error) {
	if n.ioErr != nil {
		return Status{}, ioError(n.ioErr, "collective access of %q", n.f.path)
	}
	if cl := Class(n.agreed[0]); cl != ClassSuccess {
		return Status{}, errorf(cl, "collective access of %q: failed on rank %d", n.f.path, n.agreed[1])
	}
	moved := n.moved
	switch {
	case !n.twoPhase:
	case n.write:
		moved = int64(len(n.a.data))
	default:
		runs := make([]heldRun, len(n.runs))
		for i, r := range n.runs {
			runs[i] = heldRun{r.at, r.n, r.valid[0]}
		}
		moved = heldPrefix(runs)
	}
	return n.a.done(moved)
}
