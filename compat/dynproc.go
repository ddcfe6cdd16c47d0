package compat

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"

	"github.com/gshmem/gshmem/internal/settings"
)

// Establishing communication between jobs (MPI-4.1 §11.8): a server opens
// a port (OpenPort) and accepts on it (Accept), a client connects to its
// name (Connect); both calls are collective over their communicators and
// return an intercommunicator between the two groups. A port name is
// "gshmem-port:HOST:PORT:SECRET": the address of the opening process's
// listener for other jobs (GSHMEM_TCP_ADDR's host) and a secret of 256
// random bits that a connecting process must present; anyone who knows
// the name may connect, as MPI's model has it, and nobody who does not.
//
// The two roots meet over the port, exchange their groups' listener
// addresses and one mesh secret per member, and agree on a context; then
// every member of the connecting group dials every member of the
// accepting group presenting that member's mesh secret, so that any two
// members of the intercommunicator talk over a connection of their own
// (links, dynlink.go). Every wait is bounded by GSHMEM_DYNPROC_TIMEOUT.

// Port is an open port (MPI_Open_port); Close closes it.
type Port struct {
	e      *Env
	name   string
	secret secret
	conns  chan helloConn
}

const portPrefix = "gshmem-port:"

// maxMembers bounds a group that meets another job's (what a root
// believes of the other root's description).
const maxMembers = 1 << 16

// OpenPort opens a port other jobs can Connect to (MPI_Open_port).
func (e *Env) OpenPort() (*Port, error) {
	addr, err := e.dynAddr()
	if err != nil {
		return nil, err
	}
	s := newSecret()
	p := &Port{e: e, secret: s, name: portPrefix + addr + ":" + hex.EncodeToString(s[:])}
	p.conns = e.expectConns(s, 16)
	e.dyn.mu.Lock()
	if e.dyn.ports == nil {
		e.dyn.ports = map[string]*Port{}
	}
	e.dyn.ports[p.name] = p
	e.dyn.mu.Unlock()
	return p, nil
}

// Name is the port's name (at most MPI_MAX_PORT_NAME-1 bytes).
func (p *Port) Name() string { return p.name }

// Close closes the port (MPI_Close_port): connections that arrived but
// were not accepted are dropped, and later ones are refused.
func (p *Port) Close() error {
	e := p.e
	e.forget(p.secret)
	e.dyn.mu.Lock()
	_, open := e.dyn.ports[p.name]
	delete(e.dyn.ports, p.name)
	e.dyn.mu.Unlock()
	if !open {
		return errorf(ClassPort, "ClosePort: port %q is not open", p.name)
	}
	for {
		select {
		case hc := <-p.conns:
			hc.conn.Close()
		default:
			return nil
		}
	}
}

// LookupPort returns the port of this process named name, or nil.
func (e *Env) LookupPort(name string) *Port {
	e.dyn.mu.Lock()
	defer e.dyn.mu.Unlock()
	return e.dyn.ports[name]
}

// parsePort splits a port name into its address and secret.
func parsePort(name string) (string, secret, error) {
	var s secret
	rest, ok := strings.CutPrefix(name, portPrefix)
	i := strings.LastIndexByte(rest, ':')
	if !ok || i < 0 {
		return "", s, errorf(ClassPort, "%q is not a port name (gshmem-port:HOST:PORT:SECRET, from MPI_Open_port)", name)
	}
	addr, sx := rest[:i], rest[i+1:]
	b, err := hex.DecodeString(sx)
	if _, _, aerr := net.SplitHostPort(addr); err != nil || len(b) != len(s) || aerr != nil {
		return "", s, errorf(ClassPort, "%q is not a port name (gshmem-port:HOST:PORT:SECRET, from MPI_Open_port)", name)
	}
	copy(s[:], b)
	return addr, s, nil
}

// DynprocTimeout is the bound on the waits of Accept, Connect, Join and
// Spawn: GSHMEM_DYNPROC_TIMEOUT.
func DynprocTimeout() (time.Duration, error) {
	d, set, err := settings.Get("GSHMEM_DYNPROC_TIMEOUT").Duration(os.Getenv)
	if err != nil {
		return 0, errorf(ClassArg, "%v", err)
	}
	if !set {
		d = 60 * time.Second
	}
	return d, nil
}

// Accept waits for a client's Connect on port and returns the
// intercommunicator between c's group and the client's (MPI_Comm_accept).
// Collective over c; port matters at root only, which must have opened it.
func (c *Comm) Accept(port *Port, root int) (*Comm, error) { return c.AcceptTimeout(port, root, 0) }

// AcceptTimeout is Accept whose root waits at most d for the client
// (0: GSHMEM_DYNPROC_TIMEOUT).
func (c *Comm) AcceptTimeout(port *Port, root int, d time.Duration) (*Comm, error) {
	return c.meetAt(root, 1, "Accept", d, func(deadline time.Time) (net.Conn, error) {
		if port == nil || port.e != c.env || c.env.LookupPort(port.name) != port {
			return nil, errorf(ClassPort, "Accept: the port is not open in this process")
		}
		return port.wait(deadline, nil)
	})
}

// wait takes the next connection on p until deadline, or until quit
// yields an error.
func (p *Port) wait(deadline time.Time, quit <-chan error) (net.Conn, error) {
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case hc := <-p.conns:
		return hc.conn, nil
	case err := <-quit:
		return nil, err
	case <-t.C:
		return nil, errorf(ClassOther, "no process connected to port %s within GSHMEM_DYNPROC_TIMEOUT", p.name)
	}
}

// Connect connects to the port named name, where a server accepts, and
// returns the intercommunicator between c's group and the server's
// (MPI_Comm_connect). Collective over c; name matters at root only. A
// name that is no port, or names a closed one, is ErrPort.
func (c *Comm) Connect(name string, root int) (*Comm, error) { return c.ConnectTimeout(name, root, 0) }

// ConnectTimeout is Connect whose root waits at most d for the server
// (0: GSHMEM_DYNPROC_TIMEOUT).
func (c *Comm) ConnectTimeout(name string, root int, d time.Duration) (*Comm, error) {
	return c.meetAt(root, -1, "Connect", d, func(deadline time.Time) (net.Conn, error) {
		addr, s, err := parsePort(name)
		if err != nil {
			return nil, err
		}
		conn, refused, err := dialHello(addr, s, 0, deadline)
		switch {
		case refused:
			return nil, errorf(ClassPort, "Connect: port %q is closed (or was never opened)", name)
		case err != nil:
			return nil, errorf(ClassPort, "Connect: no port at %s: %v", addr, err)
		}
		return conn, nil
	})
}

// member is what a root tells the other of each member of its group.
type member struct {
	addr string
	s    secret
}

const memberRec = 64 + 32 // an address padded to 64 bytes, a secret

// meetAt is Accept's and Connect's body: side 1 accepts, -1 connects;
// rootConn gives the root its connection to the other root.
func (c *Comm) meetAt(root int, side int8, what string, rootWait time.Duration, rootConn func(time.Time) (net.Conn, error)) (*Comm, error) {
	if err := c.intraOnly(what); err != nil {
		return nil, err
	}
	if root < 0 || root >= c.Size() {
		return nil, errorf(ClassRoot, "%s: root %d of a communicator of %d", what, root, c.Size())
	}
	timeout, err := DynprocTimeout()
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(timeout)
	rootDeadline := deadline
	if rootWait > 0 {
		rootDeadline = time.Now().Add(rootWait)
	}
	e := c.env
	ctx, err := c.newContext()
	if err != nil {
		return nil, err
	}
	lc := c.derive(ctx, c.group, c.name+"/local", nil)
	fail := func(err error) (*Comm, error) { return nil, errorsOf(err, freeIf(lc)) }

	// Every member's listener address and mesh secret, gathered.
	addr, lerr := e.dynAddr()
	s := newSecret()
	var ch chan helloConn
	if side > 0 {
		ch = e.expectConns(s, maxMembers)
		defer e.forget(s)
	}
	rec := make([]byte, memberRec)
	copy(rec, addr)
	copy(rec[64:], s[:])
	if lerr != nil || len(addr) > 64 {
		rec[0] = 0 // no listener: the root reports the failure
	}
	all := make([]byte, memberRec*c.Size())
	if err := Allgather(lc, rec, memberRec, Byte, all, memberRec, Byte); err != nil {
		return fail(err)
	}
	mx := []uint64{0}
	if err := Allreduce(lc, []uint64{uint64(e.nextCtx)}, mx, 1, Uint64, OpMax); err != nil {
		return fail(err)
	}

	// The roots' exchange. got is, at the root: 1 (or 0 and the class of
	// the error), the context, then the other group's records.
	var got []int64
	var conn net.Conn
	var rerr error
	if c.rank == root {
		rerr = lerr
		for i := range c.Size() {
			if rerr == nil && all[i*memberRec] == 0 {
				rerr = errorf(ClassOther, "%s: rank %d has no listener for other jobs", what, i)
			}
		}
		var theirs []byte
		var tctx uint64
		if rerr == nil {
			conn, rerr = rootConn(rootDeadline)
		}
		if rerr == nil {
			_ = conn.SetDeadline(time.Now().Add(timeout))
			tctx, theirs, rerr = swapGroups(conn, mx[0], all)
		}
		if rerr == nil {
			got = append([]int64{1, int64(max(mx[0], tctx))}, bytesAsInts(theirs)...)
		} else {
			if conn != nil {
				conn.Close()
				conn = nil
			}
			got = []int64{0, int64(ClassOf(rerr))}
		}
	}
	if got, err = bcastInts(lc, got, root); err != nil {
		if conn != nil {
			conn.Close()
		}
		return fail(err)
	}
	deadline = time.Now().Add(timeout) // the mesh's own bound, however long the roots took
	if got[0] != 1 {
		if rerr == nil {
			rerr = errorf(Class(got[1]), "%s: the root failed (its error has this class)", what)
		}
		return fail(rerr)
	}
	theirs := intsAsBytes(got[2:])
	n := len(theirs) / memberRec
	remote := make([]member, n)
	for i := range remote {
		r := theirs[i*memberRec : (i+1)*memberRec]
		remote[i].addr = strings.TrimRight(string(r[:64]), "\x00")
		copy(remote[i].s[:], r[64:])
	}

	// The mesh: connecting members dial accepting ones.
	conns := make([]net.Conn, n)
	var merr error
	if side > 0 {
		merr = collectMesh(ch, conns, deadline)
	} else {
		for i, m := range remote {
			var refused bool
			if conns[i], refused, merr = dialHello(m.addr, m.s, uint64(c.rank), deadline); merr != nil {
				if refused {
					merr = errors.New("refused")
				}
				merr = errorf(ClassOther, "%s: reaching rank %d of the other group at %s: %v", what, i, m.addr, merr)
				break
			}
		}
	}
	// Both groups agree that every member's mesh is whole.
	ok := []int64{1}
	if merr != nil {
		ok[0] = 0
	}
	allOK := []int64{0}
	if err := Allreduce(lc, ok, allOK, 1, Int64, OpMin); err != nil {
		merr = errors.Join(merr, err)
		allOK[0] = 0
	}
	if c.rank == root {
		v := []byte{byte(allOK[0])}
		var w [1]byte
		if _, err := conn.Write(v); err == nil {
			_, err = io.ReadFull(conn, w[:])
		}
		if w[0] != 1 {
			allOK[0] = 0
		}
		conn.Close()
	}
	if err := Bcast(lc, allOK, 1, Int64, root); err != nil || allOK[0] != 1 {
		for _, x := range conns {
			if x != nil {
				x.Close()
			}
		}
		if merr == nil {
			merr = errorf(ClassOther, "%s: a member of either group could not reach the other group", what)
		}
		return fail(errorsOf(merr, err))
	}
	ictx, err := e.takeContext(uint64(got[1]))
	if err != nil {
		return fail(err)
	}
	ic := e.newInter(ictx, lc, e.addLinks(conns), c.name+"/"+strings.ToLower(what))
	ic.side = side
	return ic, nil
}

// collectMesh takes the connecting group's connections from ch into conns,
// by the rank each one's hello names.
func collectMesh(ch chan helloConn, conns []net.Conn, deadline time.Time) error {
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	for have := 0; have < len(conns); {
		select {
		case hc := <-ch:
			if hc.arg >= uint64(len(conns)) || conns[hc.arg] != nil {
				hc.conn.Close()
				continue
			}
			conns[hc.arg] = hc.conn
			have++
		case <-t.C:
			for i, x := range conns {
				if x != nil {
					x.Close()
					conns[i] = nil
				}
			}
			return errorf(ClassOther, "the other group's members did not all connect within GSHMEM_DYNPROC_TIMEOUT")
		}
	}
	return nil
}

// swapGroups sends this group's context and records to the other root
// and returns its own.
func swapGroups(conn net.Conn, ctx uint64, recs []byte) (uint64, []byte, error) {
	hdr := make([]byte, 16)
	binary.LittleEndian.PutUint64(hdr, ctx)
	binary.LittleEndian.PutUint64(hdr[8:], uint64(len(recs)/memberRec))
	errc := make(chan error, 1)
	go func() {
		_, err := conn.Write(append(hdr, recs...))
		errc <- err
	}()
	var th [16]byte
	_, err := io.ReadFull(conn, th[:])
	var theirs []byte
	if err == nil {
		n := binary.LittleEndian.Uint64(th[8:])
		if n == 0 || n > maxMembers {
			return 0, nil, errorf(ClassOther, "the other root described a group of %d", n)
		}
		theirs = make([]byte, n*memberRec)
		_, err = io.ReadFull(conn, theirs)
	}
	if werr := <-errc; err == nil {
		err = werr
	}
	if err != nil {
		return 0, nil, errorf(ClassOther, "exchanging groups with the other root: %v", err)
	}
	return binary.LittleEndian.Uint64(th[:]), theirs, nil
}

func bytesAsInts(b []byte) []int64 {
	out := make([]int64, (len(b)+7)/8)
	for i := range out {
		var w [8]byte
		copy(w[:], b[i*8:])
		out[i] = int64(binary.LittleEndian.Uint64(w[:]))
	}
	return out
}

func intsAsBytes(v []int64) []byte {
	out := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(out[i*8:], uint64(x))
	}
	return out[:len(out)/memberRec*memberRec]
}

// Join makes the intercommunicator between this process and the one at
// the other end of the connected socket fd (MPI_Comm_join): each sends
// the other the name of a port it opened and a random number; the one
// whose number is larger accepts on its port, the other connects to it.
// fd is only read and written here, never closed, and is quiescent again
// when Join returns.
func (e *Env) Join(fd int) (*Comm, error) {
	timeout, err := DynprocTimeout()
	if err != nil {
		return nil, err
	}
	conn, restore, err := fdConn(fd)
	if err != nil {
		return nil, err
	}
	defer restore()
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(timeout))
	p, err := e.OpenPort()
	if err != nil {
		return nil, err
	}
	defer func() { _ = p.Close() }()
	nonce := newSecret()
	msg := make([]byte, 8+32+2, 8+32+2+len(p.name))
	copy(msg, "gshmjoin")
	copy(msg[8:], nonce[:])
	binary.LittleEndian.PutUint16(msg[40:], uint16(len(p.name)))
	msg = append(msg, p.name...)
	errc := make(chan error, 1)
	go func() { _, err := conn.Write(msg); errc <- err }()
	var h [42]byte
	_, err = io.ReadFull(conn, h[:])
	var theirs []byte
	if err == nil && string(h[:8]) != "gshmjoin" {
		err = errors.New("the other end is not in MPI_Comm_join")
	}
	if err == nil {
		n := binary.LittleEndian.Uint16(h[40:])
		if n > 1024 {
			err = fmt.Errorf("a port name of %d bytes", n)
		} else {
			theirs = make([]byte, n)
			_, err = io.ReadFull(conn, theirs)
		}
	}
	if werr := <-errc; err == nil {
		err = werr
	}
	if err != nil {
		return nil, errorf(ClassOther, "Join: the handshake over fd %d: %v", fd, err)
	}
	switch cmp := strings.Compare(string(nonce[:]), string(h[8:40])); {
	case cmp > 0:
		return e.self.Accept(p, 0)
	case cmp < 0:
		return e.self.Connect(string(theirs), 0)
	}
	return nil, errorf(ClassOther, "Join: both ends drew the same number")
}
