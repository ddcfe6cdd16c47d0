package transport

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"slices"
	"sort"
	"strings"
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
	// Remote (GSHMEM_REMOTE_TRANSPORT) names the transport to other
	// nodes: "tcp" (also when empty) or "ucx".
	Remote string
	Log    logrus.FieldLogger
}

// Job is this PE's view of how it reaches every PE.
type Job struct {
	Transport *Multi
	Heap      []byte   // this PE's heap
	Node      []int    // node number of every PE (0-based, in order of first PE)
	Kind      []string // "self", "shm", "tcp" or "ucx", by PE
	Host      []string // each PE's host name (informational only)
	TCPAddr   []string // each PE's tcp listener, "" where none
	Lanes     []string // UCP's lanes to each PE reached over ucx, nil or "" where none
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
//
// The phases, each a method of connector: create the heap; publish it
// (heap server up, locality records exchanged); fetch the peers' heaps and
// agree on who reached whom; place every PE (node, transport, mappings);
// and, when some pair cannot share memory, connect over tcp.
func Connect(ctx context.Context, c Config) (job *Job, err error) {
	if c.Log == nil {
		c.Log = logrus.New()
	}
	if c.PeerTimeout <= 0 {
		c.PeerTimeout = 5 * time.Second
	}
	if err := CheckRemote(c.Remote); err != nil {
		return nil, err
	}
	k, err := newConnector(c)
	if err != nil {
		return nil, err
	}
	defer k.closeFds()
	defer func() {
		if err != nil {
			k.abandon()
		}
	}()
	if c.Size == 1 {
		k.job.Kind[0], k.job.LocalSize = "self", 1
		return k.job, nil
	}
	if err := k.publish(ctx); err != nil {
		return nil, err
	}
	mutual, err := k.fetch(ctx)
	if err != nil {
		return nil, err
	}
	remote, needTCP, err := k.place(mutual)
	if err != nil || !needTCP {
		return k.job, err
	}
	connect := k.connectTCP
	if c.Remote == RemoteUCX {
		connect = k.connectUCX
	}
	if err := connect(ctx, remote); err != nil {
		return nil, err
	}
	return k.job, nil
}

// connector is the state of one Connect between its phases.
type connector struct {
	c     Config
	me, n int
	fd    int // our heap's memfd, closed when Connect returns
	heaps [][]byte
	m     *Multi
	job   *Job
	srv   *heapServer
	peers []locality // every PE's record, by PE
	fds   []int      // peers' heap descriptors, -1 where none
	dial  []net.Conn // our links to the peers whose heaps we took
}

// newConnector creates and maps this PE's heap.
func newConnector(c Config) (*connector, error) {
	me, n := c.Rank, c.Size
	fd, err := unix.MemfdCreate(fmt.Sprintf("gshmem-heap-pe%d", me), unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("transport: memfd_create: %w", err)
	}
	k := &connector{c: c, me: me, n: n, fd: fd, heaps: make([][]byte, n), fds: make([]int, n), dial: make([]net.Conn, n)}
	for i := range k.fds {
		k.fds[i] = -1
	}
	heaps := k.heaps
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
	k.m = &Multi{me: me, heaps: heaps, h: newHealth(me, n, c.PeerTimeout), release: release}
	k.m.shm = NewShm(heaps, nil)
	k.m.h.wake, k.m.h.spread = k.m.wake, k.m.spread
	if err := unix.Ftruncate(fd, int64(c.HeapSize)); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("transport: sizing the %d-byte heap: %w", c.HeapSize, err)
	}
	if heaps[me], err = mapFd(fd, c.HeapSize); err != nil {
		unix.Close(fd)
		return nil, err
	}
	host, _ := osHostname()
	k.job = &Job{Transport: k.m, Heap: heaps[me], Node: make([]int, n), Kind: make([]string, n), Host: make([]string, n), TCPAddr: make([]string, n)}
	k.job.Host[me] = host
	return k, nil
}

// abandon undoes a Connect that failed.
func (k *connector) abandon() {
	if k.srv != nil {
		k.srv.stop()
		closeLinks(k.dial, k.srv.accepted)
	} else {
		closeLinks(k.dial, nil)
	}
	m := k.m
	m.h.closing.Store(true)
	m.stopBeat()
	if m.rem != nil {
		m.rem.shutdown()
	}
	for _, l := range m.links {
		_ = l.c.Close()
	}
	m.wg.Wait()
	m.relMu.Lock()
	m.released = true
	m.relMu.Unlock()
	_ = m.release()
}

func (k *connector) closeFds() {
	for i, f := range k.fds {
		if f >= 0 {
			unix.Close(f)
			k.fds[i] = -1
		}
	}
	if k.fd >= 0 {
		unix.Close(k.fd)
		k.fd = -1
	}
}

// publish offers our heap and learns every PE's socket, token and node id.
func (k *connector) publish(ctx context.Context) error {
	mine := locality{token: random(16), secret: random(32), nodeID: k.c.NodeID, host: k.job.Host[k.me]}
	mine.sock = "@gshmem-heap-" + hex.EncodeToString(random(16))
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: mine.sock, Net: "unix"})
	if err != nil {
		return fmt.Errorf("transport: listening for heap requests: %w", err)
	}
	k.srv = newHeapServer(ln, k.fd, k.c.HeapSize, mine.token, k.n, k.c.Log.Errorf)
	k.srv.start()
	raw, err := k.c.Allgather(ctx, mine.encode())
	if err != nil {
		return err
	}
	k.peers = make([]locality, k.n)
	for pe, p := range raw {
		if k.peers[pe], err = decodeLocality(p); err != nil {
			return fmt.Errorf("transport: PE %d published a bad locality record: %v", pe, err)
		}
		k.job.Host[pe] = k.peers[pe].host
	}
	return nil
}

// fetch tries to take every candidate peer's heap descriptor, then learns
// which PEs reached which; mutual(a, b) is true when both directions
// worked. The heap server stops once every PE has fetched what it could.
func (k *connector) fetch(ctx context.Context) (mutual func(a, b int) bool, err error) {
	for pe := range k.n {
		if pe == k.me || k.peers[pe].nodeID != k.c.NodeID {
			continue
		}
		f, conn, ferr := fetchHeapFd(ctx, k.peers[pe].sock, k.me, k.peers[pe].token, k.c.HeapSize)
		if ferr != nil {
			if errors.Is(ferr, errHeapSize) {
				return nil, fmt.Errorf("transport: PE %d: %w", pe, ferr)
			}
			k.c.Log.Debugf("PE %d cannot map PE %d's heap: %v", k.me, pe, ferr)
			continue
		}
		k.fds[pe], k.dial[pe] = f, conn
	}
	got := make([]byte, (k.n+7)/8)
	for pe := range k.n {
		if k.fds[pe] >= 0 || pe == k.me {
			got[pe/8] |= 1 << (pe % 8)
		}
	}
	all, err := k.c.Allgather(ctx, got)
	k.srv.stop()
	if err != nil {
		return nil, err
	}
	has := func(a, b int) bool { return len(all[a]) == len(got) && all[a][b/8]&(1<<(b%8)) != 0 }
	return func(a, b int) bool { return has(a, b) && has(b, a) }, nil
}

// place names every PE's node (by the lowest PE it shares memory with) and
// transport, maps the heaps of the PEs we share memory with and keeps
// their links for liveness. remote marks the PEs to reach over tcp;
// needTCP is whether any pair of the job needs it (then every PE joins the
// tcp exchange).
func (k *connector) place(mutual func(a, b int) bool) (remote []bool, needTCP bool, err error) {
	n, me, job := k.n, k.me, k.job
	if k.c.NodeID != "" {
		for pe := range n {
			if pe != me && k.peers[pe].nodeID == k.c.NodeID && !mutual(me, pe) {
				return nil, false, fmt.Errorf("transport: GSHMEM_NODE_ID=%q puts PE %d and PE %d on one node, but they cannot share memory (different hosts or network namespaces?)", k.c.NodeID, me, pe)
			}
		}
	}
	nodeOf := map[int]int{}
	for pe := range n {
		leader := pe
		for j := range n {
			if mutual(pe, j) {
				leader = j
				break
			}
		}
		if _, ok := nodeOf[leader]; !ok {
			nodeOf[leader] = len(nodeOf)
		}
		job.Node[pe] = nodeOf[leader]
	}
	for a := range n {
		for b := range n {
			needTCP = needTCP || !mutual(a, b)
		}
	}
	remote = make([]bool, n)
	for pe := range n {
		switch {
		case pe == me:
			job.Kind[pe] = "self"
		case mutual(me, pe):
			job.Kind[pe] = "shm"
			if k.heaps[pe], err = mapFd(k.fds[pe], k.c.HeapSize); err != nil {
				return nil, false, err
			}
			for _, conn := range []net.Conn{k.dial[pe], k.srv.accepted[pe]} {
				if conn != nil {
					k.m.links = append(k.m.links, &link{pe: pe, c: conn})
				}
			}
			k.dial[pe], k.srv.accepted[pe] = nil, nil
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
	closeLinks(k.dial, k.srv.accepted)
	k.closeFds()
	var mapped []int
	for pe := range n {
		if pe != me && k.heaps[pe] != nil {
			mapped = append(mapped, pe)
		}
	}
	for _, l := range k.m.links {
		k.m.wg.Add(1)
		go k.m.watch(l)
	}
	if len(mapped) > 0 {
		k.m.beatStop = make(chan struct{})
		k.m.wg.Add(1)
		go k.m.beat(k.m.beatStop, k.c.PeerTimeout, mapped)
	}
	return remote, needTCP, nil
}

// connectTCP reaches the PEs of other nodes. The key is GSHMEM_JOB_SECRET's
// hash, or else the one PE 0 drew and published through the bootstrap,
// whose channel only the job's processes can read.
func (k *connector) connectTCP(ctx context.Context, remote []bool) error {
	secret := k.jobKey()
	var tln net.Listener
	addr := ""
	if slices.Contains(remote, true) {
		bind, err := tcpBindAddr(k.c.TCPAddr)
		if err != nil {
			return err
		}
		if tln, err = listenTCP(ctx, bind); err != nil {
			return fmt.Errorf("transport: PE %d listening for remote peers on %s: %w (set GSHMEM_TCP_ADDR to an address of this host)", k.me, bind, err)
		}
		addr = tln.Addr().String()
	}
	addrs, err := k.c.Allgather(ctx, []byte(addr))
	if err == nil {
		for pe, a := range addrs {
			k.job.TCPAddr[pe] = string(a)
			if remote[pe] && len(a) == 0 {
				err = fmt.Errorf("transport: PE %d has no tcp address although PE %d cannot share its memory", pe, k.me)
				break
			}
		}
	}
	if err != nil {
		if tln != nil {
			tln.Close()
		}
		return err
	}
	t, err := startTCP(ctx, TCPConfig{Me: k.me, Heap: k.heaps[k.me], Secret: secret, Remote: remote, Timeout: k.c.PeerTimeout, Log: k.c.Log, Health: k.m.h}, tln, k.job.TCPAddr)
	if err != nil {
		return err
	}
	k.m.tcpMu.Lock()
	k.m.tcp, k.m.rem = t, t
	k.m.tcpMu.Unlock()
	return nil
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
