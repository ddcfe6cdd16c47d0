package transport

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sirupsen/logrus"
	"golang.org/x/sys/unix"
)

// Config describes one process PE joining its job's transports.
type Config struct {
	Rank, Size int
	HeapSize   uint64
	Allgather  Allgather
	// NodeID (GSHMEM_NODE_ID) overrides locality: PEs with different ids
	// never share memory; PEs with the same id must prove they can.
	NodeID string
	// Secret (GSHMEM_JOB_SECRET) keys the tcp authentication; when empty,
	// PE 0 draws one and hands it out through the bootstrap.
	Secret []byte
	// TCPAddr (GSHMEM_TCP_ADDR) is where this PE listens for remote peers:
	// an IP, IP:port or interface name; empty picks the first non-loopback
	// IPv4 address of an interface that is up.
	TCPAddr string
	// PeerTimeout is how long a silent peer is given before it is lost.
	PeerTimeout time.Duration
	Log         logrus.FieldLogger
}

// Job is this PE's view of how it reaches every PE.
type Job struct {
	Transport *Multi
	Heap      []byte   // this PE's heap
	Node      []int    // node number of every PE (0-based, in order of first PE)
	Kind      []string // "self", "shm" or "tcp", by PE
	Host      []string // each PE's host name (informational only)
	TCPAddr   []string // each PE's tcp listener, "" where none
	LocalRank int
	LocalSize int
}

// Nodes returns the number of nodes the job spans.
func (j *Job) Nodes() int {
	n := 0
	for _, nd := range j.Node {
		n = max(n, nd+1)
	}
	return n
}

type locality struct {
	token  []byte
	secret []byte
	nodeID string
	host   string
	sock   string
}

func (l locality) encode() []byte {
	p := append(append([]byte{}, l.token...), l.secret...)
	for _, s := range []string{l.nodeID, l.host, l.sock} {
		p = binary.LittleEndian.AppendUint16(p, uint16(len(s)))
		p = append(p, s...)
	}
	return p
}

func decodeLocality(p []byte) (locality, error) {
	var l locality
	if len(p) < 48 {
		return l, errors.New("short locality record")
	}
	l.token, l.secret, p = p[:16], p[16:48], p[48:]
	var fields [3]string
	for i := range fields {
		if len(p) < 2 {
			return l, errors.New("truncated locality record")
		}
		n := int(binary.LittleEndian.Uint16(p))
		p = p[2:]
		if len(p) < n {
			return l, errors.New("truncated locality record")
		}
		fields[i], p = string(p[:n]), p[n:]
	}
	l.nodeID, l.host, l.sock = fields[0], fields[1], fields[2]
	return l, nil
}

// Connect builds this PE's heap and reaches every peer. Locality is decided
// by proof, never by host name: each PE offers its heap (a memfd) on an
// abstract unix socket named through the bootstrap, and two PEs share
// memory only if each received the other's descriptor. Abstract sockets
// belong to a network namespace and descriptors cannot cross machines, so
// PEs on other hosts (or namespaces) fail to connect and are reached over
// tcp instead. GSHMEM_NODE_ID can split a node, but not join PEs that
// cannot share memory.
func Connect(ctx context.Context, c Config) (job *Job, err error) {
	if c.Log == nil {
		c.Log = logrus.New()
	}
	if c.PeerTimeout <= 0 {
		c.PeerTimeout = 5 * time.Second
	}
	me, n := c.Rank, c.Size
	fd, err := unix.MemfdCreate(fmt.Sprintf("gshmem-heap-pe%d", me), unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("transport: memfd_create: %w", err)
	}
	defer unix.Close(fd)
	if err := unix.Ftruncate(fd, int64(c.HeapSize)); err != nil {
		return nil, fmt.Errorf("transport: sizing the %d-byte heap: %w", c.HeapSize, err)
	}
	heaps := make([][]byte, n)
	release := func() error {
		var first error
		for i, h := range heaps {
			if h != nil {
				if err := unix.Munmap(h); err != nil && first == nil {
					first = err
				}
				heaps[i] = nil
			}
		}
		return first
	}
	m := &Multi{me: me, heaps: heaps, h: newHealth(me, n), release: release}
	m.shm = NewShm(heaps, nil)
	m.h.wake, m.h.spread = m.wake, m.spread
	defer func() {
		if err != nil {
			m.h.closing.Store(true)
			if m.tcp != nil {
				m.tcp.shutdown()
			}
			for _, l := range m.links {
				_ = l.c.Close()
			}
			m.wg.Wait()
			m.relMu.Lock()
			m.released = true
			m.relMu.Unlock()
			_ = release()
		}
	}()
	if heaps[me], err = mapFd(fd, c.HeapSize); err != nil {
		return nil, err
	}
	host, _ := osHostname()
	job = &Job{Transport: m, Heap: heaps[me], Node: make([]int, n), Kind: make([]string, n), Host: make([]string, n), TCPAddr: make([]string, n)}
	if n == 1 {
		job.Kind[0], job.Host[0], job.LocalSize = "self", host, 1
		return job, nil
	}

	// Phase 1: offer our heap; learn everyone's socket, token and node id.
	mine := locality{token: random(16), secret: random(32), nodeID: c.NodeID, host: host}
	mine.sock = "@gshmem-heap-" + hex.EncodeToString(random(16))
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: mine.sock, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("transport: listening for heap requests: %w", err)
	}
	srv := &heapServer{ln: ln, fd: fd, size: c.HeapSize, token: mine.token, n: n, accepted: map[int]net.Conn{}}
	srv.wg.Add(1)
	go srv.serve()
	stopServer := func() {
		_ = ln.Close()
		srv.wg.Wait()
	}
	raw, err := c.Allgather(ctx, mine.encode())
	if err != nil {
		stopServer()
		return nil, err
	}
	peers := make([]locality, n)
	for pe, p := range raw {
		if peers[pe], err = decodeLocality(p); err != nil {
			stopServer()
			return nil, fmt.Errorf("transport: PE %d published a bad locality record: %v", pe, err)
		}
		job.Host[pe] = peers[pe].host
	}

	// Phase 2: try to take every candidate peer's heap descriptor.
	fds := make([]int, n)
	dialed := make([]net.Conn, n)
	for i := range fds {
		fds[i] = -1
	}
	closeFds := func() {
		for i, f := range fds {
			if f >= 0 {
				unix.Close(f)
				fds[i] = -1
			}
		}
	}
	defer closeFds()
	for pe := range n {
		if pe == me || peers[pe].nodeID != c.NodeID {
			continue
		}
		f, conn, ferr := fetchHeapFd(ctx, peers[pe].sock, me, peers[pe].token, c.HeapSize)
		if ferr != nil {
			if errors.Is(ferr, errHeapSize) {
				stopServer()
				return nil, fmt.Errorf("transport: PE %d: %w", pe, ferr)
			}
			c.Log.Debugf("PE %d cannot map PE %d's heap: %v", me, pe, ferr)
			continue
		}
		fds[pe], dialed[pe] = f, conn
	}
	got := make([]byte, (n+7)/8)
	for pe := range n {
		if fds[pe] >= 0 || pe == me {
			got[pe/8] |= 1 << (pe % 8)
		}
	}
	all, err := c.Allgather(ctx, got)
	stopServer() // every PE has fetched what it could
	if err != nil {
		closeLinks(dialed, srv.accepted)
		return nil, err
	}
	has := func(a, b int) bool { return len(all[a]) == len(got) && all[a][b/8]&(1<<(b%8)) != 0 }
	mutual := func(a, b int) bool { return has(a, b) && has(b, a) }

	// Nodes: a PE's node is named by the lowest PE it shares memory with.
	leader := make([]int, n)
	for pe := range n {
		for j := range n {
			if mutual(pe, j) {
				leader[pe] = j
				break
			}
		}
	}
	if c.NodeID != "" {
		for pe := range n {
			if pe != me && peers[pe].nodeID == c.NodeID && !mutual(me, pe) {
				closeLinks(dialed, srv.accepted)
				return nil, fmt.Errorf("transport: GSHMEM_NODE_ID=%q puts PE %d and PE %d on one node, but they cannot share memory (different hosts or network namespaces?)", c.NodeID, me, pe)
			}
		}
	}
	nodeOf := map[int]int{}
	needTCP := false
	for pe := range n {
		if _, ok := nodeOf[leader[pe]]; !ok {
			nodeOf[leader[pe]] = len(nodeOf)
		}
		job.Node[pe] = nodeOf[leader[pe]]
	}
	for a := range n {
		for b := range n {
			if !mutual(a, b) {
				needTCP = true
			}
		}
	}
	remote := make([]bool, n)
	for pe := range n {
		switch {
		case pe == me:
			job.Kind[pe] = "self"
		case mutual(me, pe):
			job.Kind[pe] = "shm"
			if heaps[pe], err = mapFd(fds[pe], c.HeapSize); err != nil {
				closeLinks(dialed, srv.accepted)
				return nil, err
			}
			for _, conn := range []net.Conn{dialed[pe], srv.accepted[pe]} {
				if conn != nil {
					l := &link{pe: pe, c: conn}
					m.links = append(m.links, l)
				}
			}
			dialed[pe], srv.accepted[pe] = nil, nil
		default:
			job.Kind[pe] = "tcp"
			remote[pe] = true
		}
		if job.Node[pe] == job.Node[me] {
			if pe < me {
				job.LocalRank++
			}
			job.LocalSize++
		}
	}
	closeLinks(dialed, srv.accepted)
	closeFds()
	for _, l := range m.links {
		m.wg.Add(1)
		go m.watch(l)
	}
	if !needTCP {
		return job, nil
	}

	// Phase 3: tcp to the PEs of other nodes.
	secret := peers[0].secret
	if len(c.Secret) > 0 {
		s := sha256.Sum256(c.Secret)
		secret = s[:]
	}
	var tln net.Listener
	addr := ""
	hasRemote := false
	for _, r := range remote {
		hasRemote = hasRemote || r
	}
	if hasRemote {
		bind, err := tcpBindAddr(c.TCPAddr)
		if err != nil {
			return nil, err
		}
		if tln, err = listenTCP(ctx, bind); err != nil {
			return nil, fmt.Errorf("transport: PE %d listening for remote peers on %s: %w (set GSHMEM_TCP_ADDR to an address of this host)", me, bind, err)
		}
		addr = tln.Addr().String()
	}
	addrs, err := c.Allgather(ctx, []byte(addr))
	if err != nil {
		if tln != nil {
			tln.Close()
		}
		return nil, err
	}
	for pe, a := range addrs {
		job.TCPAddr[pe] = string(a)
		if remote[pe] && len(a) == 0 {
			if tln != nil {
				tln.Close()
			}
			return nil, fmt.Errorf("transport: PE %d has no tcp address although PE %d cannot share its memory", pe, me)
		}
	}
	strs := make([]string, n)
	for pe, a := range addrs {
		strs[pe] = string(a)
	}
	t, err := startTCP(ctx, TCPConfig{Me: me, Heap: heaps[me], Secret: secret, Remote: remote, Timeout: c.PeerTimeout, Log: c.Log, Health: m.h}, tln, strs)
	if err != nil {
		return nil, err
	}
	m.tcpMu.Lock()
	m.tcp = t
	m.tcpMu.Unlock()
	return job, nil
}

func closeLinks(dialed []net.Conn, accepted map[int]net.Conn) {
	for _, c := range dialed {
		if c != nil {
			c.Close()
		}
	}
	for _, c := range accepted {
		if c != nil {
			c.Close()
		}
	}
}

func random(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}

// heapServer hands our heap's descriptor to every peer that presents our
// token, and keeps the connection as a liveness link.
type heapServer struct {
	ln       *net.UnixListener
	fd       int
	size     uint64
	token    []byte
	n        int
	wg       sync.WaitGroup
	mu       sync.Mutex
	accepted map[int]net.Conn
}

func (s *heapServer) serve() {
	defer s.wg.Done()
	var inner sync.WaitGroup
	defer inner.Wait()
	for {
		c, err := s.ln.AcceptUnix()
		if err != nil {
			return
		}
		inner.Add(1)
		go func() {
			defer inner.Done()
			_ = c.SetDeadline(time.Now().Add(5 * time.Second))
			var hello [4 + 16]byte
			if _, err := io.ReadFull(c, hello[:]); err != nil || subtle.ConstantTimeCompare(hello[4:], s.token) != 1 {
				c.Close()
				return
			}
			from := int(binary.LittleEndian.Uint32(hello[:4]))
			var msg [8]byte
			binary.LittleEndian.PutUint64(msg[:], s.size)
			if _, _, err := c.WriteMsgUnix(msg[:], unix.UnixRights(s.fd), nil); err != nil || from >= s.n {
				c.Close()
				return
			}
			_ = c.SetDeadline(time.Time{})
			s.mu.Lock()
			if old := s.accepted[from]; old != nil {
				old.Close()
			}
			s.accepted[from] = c
			s.mu.Unlock()
		}()
	}
}

var errHeapSize = errors.New("heap sizes differ (GSHMEM_SYMMETRIC_SIZE must be the same on every PE)")

// fetchHeapFd takes a peer's heap descriptor; the connection stays open.
func fetchHeapFd(ctx context.Context, name string, me int, token []byte, size uint64) (int, net.Conn, error) {
	d := net.Dialer{Timeout: 5 * time.Second}
	conn, err := d.DialContext(ctx, "unix", name)
	if err != nil {
		return -1, nil, err
	}
	c := conn.(*net.UnixConn)
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	hello := binary.LittleEndian.AppendUint32(nil, uint32(me))
	if _, err := c.Write(append(hello, token...)); err != nil {
		c.Close()
		return -1, nil, err
	}
	var msg [8]byte
	oob := make([]byte, unix.CmsgSpace(4))
	nr, noob, _, _, err := c.ReadMsgUnix(msg[:], oob)
	if err != nil {
		c.Close()
		return -1, nil, err
	}
	scms, err := unix.ParseSocketControlMessage(oob[:noob])
	if err != nil || len(scms) != 1 || nr != 8 {
		c.Close()
		return -1, nil, errors.New("no descriptor received")
	}
	fds, err := unix.ParseUnixRights(&scms[0])
	if err != nil || len(fds) != 1 {
		c.Close()
		return -1, nil, errors.New("no descriptor received")
	}
	if got := binary.LittleEndian.Uint64(msg[:]); got != size {
		unix.Close(fds[0])
		c.Close()
		return -1, nil, fmt.Errorf("%w: peer %d bytes, ours %d", errHeapSize, got, size)
	}
	_ = c.SetDeadline(time.Time{})
	return fds[0], c, nil
}

// tcpBindAddr turns GSHMEM_TCP_ADDR into a listen address.
func tcpBindAddr(spec string) (string, error) {
	if spec == "" {
		ip, err := defaultIP()
		if err != nil {
			return "", err
		}
		return net.JoinHostPort(ip, "0"), nil
	}
	if _, _, err := net.SplitHostPort(spec); err == nil {
		return spec, nil
	}
	if ip := net.ParseIP(spec); ip != nil {
		return net.JoinHostPort(spec, "0"), nil
	}
	ifc, err := net.InterfaceByName(spec)
	if err != nil {
		return "", fmt.Errorf("transport: GSHMEM_TCP_ADDR=%q is neither an address nor an interface: %v", spec, err)
	}
	addrs, _ := ifc.Addrs()
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok && ipn.IP.To4() != nil {
			return net.JoinHostPort(ipn.IP.String(), "0"), nil
		}
	}
	return "", fmt.Errorf("transport: interface %s (GSHMEM_TCP_ADDR) has no IPv4 address", spec)
}

// defaultIP is the first IPv4 address of an up, non-loopback interface
// (by interface name), or 127.0.0.1 when there is none.
func defaultIP() (string, error) {
	ifs, err := net.Interfaces()
	if err != nil {
		return "", fmt.Errorf("transport: listing interfaces: %w", err)
	}
	sort.Slice(ifs, func(i, j int) bool { return ifs[i].Name < ifs[j].Name })
	for _, ifc := range ifs {
		if ifc.Flags&net.FlagUp == 0 || ifc.Flags&net.FlagLoopback != 0 || strings.HasPrefix(ifc.Name, "docker") {
			continue
		}
		addrs, _ := ifc.Addrs()
		for _, a := range addrs {
			if ipn, ok := a.(*net.IPNet); ok && ipn.IP.To4() != nil && !ipn.IP.IsLinkLocalUnicast() {
				return ipn.IP.String(), nil
			}
		}
	}
	return "127.0.0.1", nil
}

func osHostname() (string, error) {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return "", err
	}
	return unix.ByteSliceToString(u.Nodename[:]), nil
}
