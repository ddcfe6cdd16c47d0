// Command jobcheck is the program test/launchers_test.go starts under every
// launcher. It prints how the job was set up, then checks puts, gets,
// atomics and barriers between every pair of PEs, and prints
// "jobcheck: OK" on PE 0. (Collectives: reduce, broadcast, fcollect.) Flags select the perf and fault modes.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/gshmem/gshmem/shmem"
)

func main() {
	perf := flag.Bool("perf", false, "measure PE 0 <-> PE 1: put bandwidth at 1 MiB, 8-byte put and fetch-add latency, each beside plain TCP")
	hang := flag.Bool("hang", false, "after the checks, keep doing barriers and atomics until an error (for the fault test)")
	iters := flag.Int("iters", 200, "perf iterations")
	flag.Parse()
	code := 0
	if err := run(*perf, *hang, *iters); err != nil {
		fmt.Fprintf(os.Stderr, "jobcheck: %v\n", err)
		code = 1
		if errors.Is(err, shmem.ErrPeerLost) {
			code = 3
		}
	}
	os.Exit(code)
}

func run(perf, hang bool, iters int) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	w, err := shmem.Init(ctx)
	if err != nil {
		return err
	}
	me, n := w.MyPE(), w.NPEs()
	t := w.Topology()
	fmt.Printf("jobcheck: pe %d/%d host %s node %d bootstrap %s transports %s tcp %s\n",
		me, n, t.Host[me], t.Node[me], t.Bootstrap, strings.Join(t.Transport, ","), t.TCPAddr[me])

	buf, err := shmem.Calloc[uint64](w, n*64)
	if err != nil {
		return err
	}
	ctr, err := shmem.Calloc[uint64](w, 2)
	if err != nil {
		return err
	}
	// Puts: PE me writes its row into every PE's buffer, slot me.
	row := make([]uint64, 64)
	for i := range row {
		row[i] = uint64(me)<<32 | uint64(i)
	}
	for pe := range n {
		if err := shmem.PutNBI(buf.Slice(me*64, me*64+64), row, pe); err != nil {
			return fmt.Errorf("put to PE %d: %w", pe, err)
		}
	}
	// Atomics: everyone adds to every PE's counter; CAS on word 1.
	for pe := range n {
		if _, err := shmem.FetchAdd(ctr.At(0), uint64(me+1), pe); err != nil {
			return fmt.Errorf("fetch-add on PE %d: %w", pe, err)
		}
		if _, err := shmem.CompareAndSwap(ctr.At(1), 0, uint64(me+1), pe); err != nil {
			return fmt.Errorf("compare-and-swap on PE %d: %w", pe, err)
		}
	}
	if err := w.BarrierAll(); err != nil {
		return err
	}
	local := buf.Local()
	for src := range n {
		for i := range 64 {
			if want := uint64(src)<<32 | uint64(i); local[src*64+i] != want {
				return fmt.Errorf("PE %d: word %d from PE %d is %#x, want %#x", me, i, src, local[src*64+i], want)
			}
		}
	}
	if got, want := ctr.Local()[0], uint64(n*(n+1)/2); got != want {
		return fmt.Errorf("PE %d: counter is %d, want %d", me, got, want)
	}
	if c := ctr.Local()[1]; c == 0 || c > uint64(n) {
		return fmt.Errorf("PE %d: compare-and-swap word is %d", me, c)
	}
	// Gets: read every PE's copy of every row.
	got := make([]uint64, 64)
	for pe := range n {
		for src := range n {
			if err := shmem.Get(got, buf.Slice(src*64, src*64+64), pe); err != nil {
				return fmt.Errorf("get from PE %d: %w", pe, err)
			}
			if got[63] != uint64(src)<<32|63 {
				return fmt.Errorf("get from PE %d: row %d ends in %#x", pe, src, got[63])
			}
		}
	}
	if err := w.BarrierAll(); err != nil { // everyone checked before words change
		return err
	}
	// Barriers, many, with a store between each.
	for round := range 50 {
		if err := shmem.P(ctr.At(1), uint64(round), (me+1)%n); err != nil {
			return err
		}
		if err := w.BarrierAll(); err != nil {
			return err
		}
	}
	if err := collectives(w, t); err != nil {
		return err
	}
	if me == 0 {
		nodes := map[int]bool{}
		for _, nd := range t.Node {
			nodes[nd] = true
		}
		fmt.Printf("jobcheck: OK: %d PEs on %d nodes, puts, gets, atomics, barriers and collectives verified (bootstrap %s: %s)\n", n, len(nodes), t.Bootstrap, t.Why)
	}
	if perf && n >= 2 {
		if err := measure(w, t, iters); err != nil {
			return err
		}
	}
	if hang {
		fmt.Printf("jobcheck: pe %d looping\n", me)
		for {
			if _, err := shmem.FetchAdd(ctr.At(0), 1, (me+1)%n); err != nil {
				fmt.Printf("jobcheck: pe %d: %v\n", me, err)
				return err
			}
			if err := w.BarrierAll(); err != nil {
				fmt.Printf("jobcheck: pe %d: %v\n", me, err)
				return err
			}
			time.Sleep(time.Millisecond)
		}
	}
	return w.Finalize()
}

// collectives checks reduce, broadcast and fcollect over the world team
// (rings and trees that cross nodes) and the shared team's membership.
func collectives(w *shmem.World, t shmem.Topology) error {
	me, n := w.MyPE(), w.NPEs()
	src, err := shmem.Calloc[int64](w, 1024)
	if err != nil {
		return err
	}
	dst, err := shmem.Calloc[int64](w, n*1024)
	if err != nil {
		return err
	}
	for i := range src.Local() {
		src.Local()[i] = int64(me*1000 + i)
	}
	world := w.TeamWorld()
	if err := shmem.Reduce(world, shmem.ReduceSum, dst.Slice(0, 1024), src, 1024); err != nil {
		return fmt.Errorf("reduce: %w", err)
	}
	for i, v := range dst.Local()[:1024] {
		if want := int64(1000*n*(n-1)/2 + n*i); v != want {
			return fmt.Errorf("PE %d: reduce element %d is %d, want %d", me, i, v, want)
		}
	}
	if err := shmem.Broadcast(world, dst.Slice(0, 1024), src, 1024, n-1); err != nil {
		return fmt.Errorf("broadcast: %w", err)
	}
	if got := dst.Local()[5]; got != int64((n-1)*1000+5) {
		return fmt.Errorf("PE %d: broadcast element 5 is %d", me, got)
	}
	if err := shmem.FCollect(world, dst, src, 1024); err != nil {
		return fmt.Errorf("fcollect: %w", err)
	}
	for pe := range n {
		if got := dst.Local()[pe*1024+7]; got != int64(pe*1000+7) {
			return fmt.Errorf("PE %d: fcollect block %d is %d", me, pe, got)
		}
	}
	local := 0
	for _, nd := range t.Node {
		if nd == t.Node[me] {
			local++
		}
	}
	if got := w.TeamShared().NPEs(); got != local {
		return fmt.Errorf("PE %d: the shared team has %d PEs, the node %d", me, got, local)
	}
	if err := shmem.Free(dst); err != nil {
		return err
	}
	return shmem.Free(src)
}

// measure runs on PE 0 and its peer (the first PE on another node, or PE
// 1); the others wait in the final barrier. Each figure is taken in rounds
// that alternate gshmem and plain TCP, so both see the same machine load.
func measure(w *shmem.World, t shmem.Topology, iters int) error {
	me := w.MyPE()
	peer := 1
	for pe, nd := range t.Node {
		if nd != t.Node[0] {
			peer = pe
			break
		}
	}
	const mib = 1 << 20
	big, err := shmem.Alloc[byte](w, 8*mib)
	if err != nil {
		return err
	}
	word, err := shmem.Calloc[uint64](w, 2)
	if err != nil {
		return err
	}
	portBox, err := shmem.Calloc[uint64](w, 1)
	if err != nil {
		return err
	}
	host := "127.0.0.1"
	if a := t.TCPAddr[peer]; a != "" {
		host, _, _ = net.SplitHostPort(a)
	}
	if me == peer {
		ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
		if err != nil {
			return err
		}
		defer ln.Close()
		portBox.Local()[0] = uint64(ln.Addr().(*net.TCPAddr).Port)
		go serveBaseline(ln)
	}
	if err := w.BarrierAll(); err != nil {
		return err
	}
	if me != 0 {
		return w.BarrierAll()
	}
	port, err := shmem.G(portBox, peer)
	if err != nil {
		return err
	}
	c, err := net.Dial("tcp", net.JoinHostPort(host, fmt.Sprint(port)))
	if err != nil {
		return err
	}
	defer c.Close()
	src := make([]byte, mib)
	for i := range src {
		src[i] = byte(i)
	}
	putBW := func() (float64, error) {
		start := time.Now()
		for range iters { // into one 1 MiB buffer, as the TCP baseline reads into one
			if err := shmem.PutNBI(big.Slice(0, mib), src, peer); err != nil {
				return 0, err
			}
		}
		if err := w.Quiet(); err != nil {
			return 0, err
		}
		return float64(iters*mib) / time.Since(start).Seconds() / 1e6, nil
	}
	tcpBW := func() (float64, error) {
		total := iters * mib
		hdr := []byte{'S', byte(total), byte(total >> 8), byte(total >> 16), byte(total >> 24), 0, 0, 0}
		start := time.Now()
		if _, err := c.Write(hdr); err != nil {
			return 0, err
		}
		for range iters {
			if _, err := c.Write(src); err != nil {
				return 0, err
			}
		}
		if _, err := readFull(c, hdr[:1]); err != nil {
			return 0, err
		}
		return float64(total) / time.Since(start).Seconds() / 1e6, nil
	}
	if _, err := putBW(); err != nil { // warm up both
		return err
	}
	if _, err := tcpBW(); err != nil {
		return err
	}
	var puts, tcps, ratios []float64
	for range 5 {
		p, err := putBW()
		if err != nil {
			return err
		}
		q, err := tcpBW()
		if err != nil {
			return err
		}
		puts, tcps, ratios = append(puts, p), append(tcps, q), append(ratios, p/q)
	}
	lat := func(f func() error) (time.Duration, error) {
		for range 200 {
			if err := f(); err != nil {
				return 0, err
			}
		}
		const k = 3000
		start := time.Now()
		for range k {
			if err := f(); err != nil {
				return 0, err
			}
		}
		return time.Since(start) / k, nil
	}
	v := []uint64{42}
	var putLat, faddLat, pingLat []float64
	ping := []byte{'P', 0, 0, 0, 0, 0, 0, 0}
	if _, err := c.Write(ping); err != nil { // the server echoes from now on
		return err
	}
	for range 3 {
		d, err := lat(func() error {
			if err := shmem.Put(word.Slice(0, 1), v, peer); err != nil {
				return err
			}
			return w.Quiet()
		})
		if err != nil {
			return err
		}
		putLat = append(putLat, us(d))
		if d, err = lat(func() error { _, err := shmem.FetchAdd(word.At(1), 1, peer); return err }); err != nil {
			return err
		}
		faddLat = append(faddLat, us(d))
		if d, err = lat(func() error {
			if _, err := c.Write(ping); err != nil {
				return err
			}
			_, err := readFull(c, ping)
			return err
		}); err != nil {
			return err
		}
		pingLat = append(pingLat, us(d))
	}
	fmt.Printf("jobcheck: perf PE 0 -> PE %d over %s (%s -> %s), %d x 1 MiB per round, 5 rounds alternating\n", peer, t.Transport[peer], t.Host[0], t.Host[peer], iters)
	fmt.Printf("jobcheck: perf put_bw 1MiB: gshmem %.0f MB/s (best; median %.0f), plain Go TCP stream %.0f MB/s (best; median %.0f); ratio of bests %.2f, median per-round ratio %.2f\n",
		maxf(puts), median(puts), maxf(tcps), median(tcps), maxf(puts)/maxf(tcps), median(ratios))
	fmt.Printf("jobcheck: perf latency 8B (median of 3 x 3000): put+quiet %.1f us, fetch-add %.1f us, TCP ping-pong round trip %.1f us\n",
		median(putLat), median(faddLat), median(pingLat))
	return w.BarrierAll()
}

func maxf(v []float64) float64 {
	m := v[0]
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }

// serveBaseline answers stream rounds ('S' + u32 size: read that many
// bytes, ack one byte) until a 'P', then echoes 8-byte pings.
func serveBaseline(ln net.Listener) {
	c, err := ln.Accept()
	if err != nil {
		return
	}
	defer c.Close()
	buf := make([]byte, 1<<20)
	var hdr [8]byte
	for {
		if _, err := readFull(c, hdr[:]); err != nil {
			return
		}
		if hdr[0] == 'P' {
			break
		}
		total := int(uint32(hdr[1]) | uint32(hdr[2])<<8 | uint32(hdr[3])<<16 | uint32(hdr[4])<<24)
		for total > 0 {
			k, err := c.Read(buf[:min(len(buf), total)])
			if err != nil {
				return
			}
			total -= k
		}
		if _, err := c.Write([]byte{1}); err != nil {
			return
		}
	}
	for {
		if _, err := readFull(c, hdr[:]); err != nil {
			return
		}
		if _, err := c.Write(hdr[:]); err != nil {
			return
		}
	}
}

func readFull(c net.Conn, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		k, err := c.Read(b[n:])
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
