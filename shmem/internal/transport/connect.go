package transport

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
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
	ns     string // the kernel and network namespace the PE runs in (nsIdentity)
}

// node is what PEs that may share memory have in common: the node id when
// GSHMEM_NODE_ID names one, else the host and namespace. It only picks the
// candidates; joining the node's leader is the proof.
func (l locality) node() string {
	if l.nodeID != "" {
		return "id\x00" + l.nodeID
	}
	return "ns\x00" + l.host + "\x00" + l.ns
}

// nsIdentity names this process's kernel (its boot id) and network
// namespace (abstract sockets live in one): PEs that differ in either
// cannot hand each other descriptors, so they need not try. Empty where
// /proc cannot say.
func nsIdentity() string {
	boot, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	netns, _ := os.Readlink("/proc/self/ns/net")
	return strings.TrimSpace(string(boot)) + "/" + netns
}

func (l locality) encode() []byte {
	p := append(append([]byte{}, l.token...), l.secret...)
	for _, s := range []string{l.nodeID, l.host, l.sock, l.ns} {
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
	var fields [4]string
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
	l.nodeID, l.host, l.sock, l.ns = fields[0], fields[1], fields[2], fields[3]
	return l, nil
}

// Connect builds this PE's heap and decides how it reaches every peer.
// Locality is decided by proof, never by host name alone: each PE offers
// its heap (a memfd) on an abstract unix socket named through the
// bootstrap, and a PE shares its node's memory only if it received a
// descriptor from the node's leader (the lowest PE with the same host and
// namespace, or GSHMEM_NODE_ID). Abstract sockets belong to a network
// namespace and descriptors cannot cross kernels, so sharing with the
// leader is sharing with every PE that joined it, and one connection per
// PE proves what N-1 would. PEs on other hosts (or namespaces) are reached
// over tcp. GSHMEM_NODE_ID can split a node, but not join PEs that cannot
// share memory.
//
// No peer's heap is mapped here: a node-local peer's is fetched and mapped
// when this PE first touches it (lazy.go).
//
// The phases, each a method of connector: create the heap; publish it
// (heap server up, locality records exchanged); join the node's leader and
// agree on who did; place every PE (node, transport, heartbeat); and, when
// some PEs cannot share memory, connect over tcp.
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
	defer func() {
		if err != nil {
			_ = k.m.shut(false)
		}
	}()
	if c.Size == 1 {
		k.job.Kind[0], k.job.LocalSize = "self", 1
		return k.job, nil
	}
	if err := k.publish(ctx); err != nil {
		return nil, err
	}
	group, err := k.join(ctx)
	if err != nil {
		return nil, err
	}
	remote, needTCP, err := k.place(group)
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
	m     *Multi
	job   *Job
	peers []locality // every PE's record, by PE
}

// newConnector creates and maps this PE's heap, and (in a job of more
// than one PE) the heartbeat table it hands out should it lead its node.
func newConnector(c Config) (*connector, error) {
	me, n := c.Rank, c.Size
	fd, err := unix.MemfdCreate(fmt.Sprintf("gshmem-heap-pe%d", me), unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("transport: memfd_create: %w", err)
	}
	if err := unix.Ftruncate(fd, int64(c.HeapSize)); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("transport: sizing the %d-byte heap: %w", c.HeapSize, err)
	}
	mine, err := mapFd(fd, c.HeapSize)
	if err != nil {
		unix.Close(fd)
		return nil, err
	}
	table := -1
	if n > 1 {
		if table, err = unix.MemfdCreate("gshmem-node-beats", unix.MFD_CLOEXEC); err == nil {
			if err = unix.Ftruncate(table, int64(beatTableSize(n))); err != nil {
				unix.Close(table)
			}
		}
		if err != nil {
			_ = unix.Munmap(mine)
			unix.Close(fd)
			return nil, fmt.Errorf("transport: the node heartbeat table: %w", err)
		}
	}
	m := &Multi{me: me, size: int(c.HeapSize), bases: make([]atomic.Pointer[byte], n), h: newHealth(me, n, c.PeerTimeout)}
	m.local, m.mapMu, m.timeout, m.heapFd, m.tableFd = make([]bool, n), make([]sync.Mutex, n), c.PeerTimeout, fd, table
	m.bases[me].Store(&mine[0])
	m.h.wake, m.h.spread = m.wake, m.spread
	host, _ := osHostname()
	k := &connector{c: c, me: me, n: n, m: m}
	k.job = &Job{Transport: m, Heap: mine, Node: make([]int, n), Kind: make([]string, n), Host: make([]string, n), TCPAddr: make([]string, n)}
	k.job.Host[me] = host
	return k, nil
}

// publish offers our heap and learns every PE's socket, token and node.
func (k *connector) publish(ctx context.Context) error {
	mine := locality{token: random(16), secret: random(32), nodeID: k.c.NodeID, host: k.job.Host[k.me], ns: nsIdentity()}
	mine.sock = "@gshmem-heap-" + hex.EncodeToString(random(16))
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: mine.sock, Net: "unix"})
	if err != nil {
		return fmt.Errorf("transport: listening for heap requests: %w", err)
	}
	k.m.srv = newHeapServer(ln, k.m.heapFd, k.m.tableFd, k.c.HeapSize, mine.token, k.n, k.c.Log.Errorf, k.m.addLink)
	k.m.srv.start()
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
	k.m.addr = k.peers
	return nil
}

// What a PE tells the others of its join.
const (
	joinFailed   byte = 0
	joined       byte = 1
	joinHeapSize byte = 2 // the leader's heap has another size
)

// joinTimeout bounds a PE's join of its node's leader, which serves every
// PE of the node at once.
const joinTimeout = 10 * time.Second

// join proves that this PE shares memory with its node's leader (by
// taking the node's heartbeat table from it, over a connection kept as a
// liveness link), maps that table, and learns who else did. It returns
// each PE's group: the leader of the node it shares memory with, or the PE
// itself where it shares with none.
func (k *connector) join(ctx context.Context) (group []int, err error) {
	n, me := k.n, k.me
	leaders := map[string]int{}
	leader := make([]int, n)
	for pe := range n {
		key := k.peers[pe].node()
		if l, ok := leaders[key]; ok {
			leader[pe] = l
		} else {
			leaders[key], leader[pe] = pe, pe
		}
	}
	state, table := joined, k.m.tableFd
	if l := leader[me]; l != me {
		f, conn, err := ask(ctx, k.peers[l].sock, askJoin, me, k.peers[l].token, k.c.HeapSize, joinTimeout)
		switch {
		case errors.Is(err, errHeapSize):
			state = joinHeapSize
		case err != nil:
			k.c.Log.Debugf("PE %d cannot join PE %d's node: %v", me, l, err)
			state = joinFailed
		case !k.m.addLink(l, conn):
			conn.Close()
			unix.Close(f)
			return nil, errors.New("transport: closed during setup")
		default:
			table = f
			defer unix.Close(f)
		}
	}
	all, err := k.c.Allgather(ctx, []byte{state})
	if err != nil {
		return nil, err
	}
	group = make([]int, n)
	for pe := range n {
		if len(all[pe]) != 1 {
			return nil, fmt.Errorf("transport: PE %d published a bad join record", pe)
		}
		switch all[pe][0] {
		case joinHeapSize:
			return nil, fmt.Errorf("transport: PE %d: %w", pe, errHeapSize)
		case joined:
			group[pe] = leader[pe]
		default:
			group[pe] = pe
		}
	}
	size := 0
	for pe := range n {
		if group[pe] == group[me] {
			size++
		}
	}
	if size > 1 {
		if k.m.table, err = mapFd(table, uint64(beatTableSize(n))); err != nil {
			return nil, err
		}
		id, known := selfID()
		publishID(rec(k.m.table, n, me), id, known)
	}
	return group, nil
}

// place names every PE's node (numbered in order of first PE) and
// transport, and starts the heartbeat among the node's PEs. remote marks
// the PEs to reach over tcp; needTCP is whether any pair of the job needs
// it (then every PE joins the tcp exchange).
func (k *connector) place(group []int) (remote []bool, needTCP bool, err error) {
	n, me, job := k.n, k.me, k.job
	if k.c.NodeID != "" {
		for pe := range n {
			if pe != me && k.peers[pe].nodeID == k.c.NodeID && group[pe] != group[me] {
				return nil, false, fmt.Errorf("transport: GSHMEM_NODE_ID=%q puts PE %d and PE %d on one node, but they cannot share memory (different hosts or network namespaces?)", k.c.NodeID, me, pe)
			}
		}
	}
	nodeOf := map[int]int{}
	for pe := range n {
		if _, ok := nodeOf[group[pe]]; !ok {
			nodeOf[group[pe]] = len(nodeOf)
		}
		job.Node[pe] = nodeOf[group[pe]]
	}
	needTCP = len(nodeOf) > 1
	remote = make([]bool, n)
	var peers []int
	for pe := range n {
		switch {
		case pe == me:
			job.Kind[pe] = "self"
		case group[pe] == group[me]:
			job.Kind[pe] = "shm"
			k.m.local[pe] = true
			peers = append(peers, pe)
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
	if len(peers) > 0 {
		k.m.beatStop = make(chan struct{})
		k.m.wg.Add(1)
		go k.m.beat(k.m.beatStop, k.c.PeerTimeout, k.m.table, peers)
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
	t, err := startTCP(ctx, TCPConfig{Me: k.me, Heap: k.job.Heap, Secret: secret, Remote: remote, Timeout: k.c.PeerTimeout, Log: k.c.Log, Health: k.m.h}, tln, k.job.TCPAddr)
	if err != nil {
		return err
	}
	k.m.tcpMu.Lock()
	k.m.tcp, k.m.rem = t, t
	k.m.tcpMu.Unlock()
	return nil
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

// ListenHost is the host part of the address GSHMEM_TCP_ADDR (spec)
// names, or of the default one: where a rendezvous that other nodes must
// reach listens (a unique id's address).
func ListenHost(spec string) (string, error) {
	a, err := tcpBindAddr(spec)
	if err != nil {
		return "", err
	}
	h, _, err := net.SplitHostPort(a)
	return h, err
}
