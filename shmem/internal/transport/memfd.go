package transport

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// ErrNoSharedMemory reports a peer whose heap could not be mapped: it runs on
// another node (or in another network namespace) or refused us.
var ErrNoSharedMemory = errors.New("transport: peer heap cannot be mapped")

// MapAnon reserves size bytes of private anonymous memory for the heap of a
// PE that lives in this process. Pages are touched only when used.
func MapAnon(size uint64) ([]byte, error) {
	return unix.Mmap(-1, 0, int(size), unix.PROT_READ|unix.PROT_WRITE,
		unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_NORESERVE)
}

// Unmap releases a mapping made by MapAnon or ShareHeaps.
func Unmap(b []byte) error { return unix.Munmap(b) }

// Allgather is the bootstrap's collective, as the transport needs it.
type Allgather func(ctx context.Context, data []byte) ([][]byte, error)

// ShareHeaps creates this PE's heap as an anonymous memfd of size bytes,
// hands it to every other PE over an abstract unix socket (SCM_RIGHTS) and
// maps theirs. No file is ever named, so nothing is left in /dev/shm even
// when a process is killed. A peer is mapped only after it proved it holds
// the random token published through the bootstrap, and only a process that
// can receive our descriptor can share memory with us: this, not a hostname,
// decides locality.
func ShareHeaps(ctx context.Context, me, n int, size uint64, gather Allgather) (heaps [][]byte, release func() error, err error) {
	fd, err := unix.MemfdCreate(fmt.Sprintf("gshmem-heap-pe%d", me), unix.MFD_CLOEXEC)
	if err != nil {
		return nil, nil, fmt.Errorf("transport: memfd_create: %w", err)
	}
	defer unix.Close(fd)
	if err := unix.Ftruncate(fd, int64(size)); err != nil {
		return nil, nil, fmt.Errorf("transport: sizing the %d-byte heap: %w", size, err)
	}
	heaps = make([][]byte, n)
	release = func() error {
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
	defer func() {
		if err != nil {
			_ = release()
		}
	}()
	if heaps[me], err = mapFd(fd, size); err != nil {
		return nil, nil, err
	}
	if n == 1 {
		return heaps, release, nil
	}

	var nonce, token [16]byte
	_, _ = rand.Read(nonce[:])
	_, _ = rand.Read(token[:])
	name := "@gshmem-heap-" + hex.EncodeToString(nonce[:])
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: name, Net: "unix"})
	if err != nil {
		return nil, nil, fmt.Errorf("transport: listening for heap requests: %w", err)
	}
	defer ln.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = ln.SetDeadline(dl)
	}
	served := make(chan error, 1)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		served <- serveHeap(ctx, ln, n-1, fd, size, token[:])
	}()

	all, err := gather(ctx, append(token[:], name...))
	if err != nil {
		_ = ln.Close()
		wg.Wait()
		return nil, nil, err
	}
	for pe := range n {
		if pe == me {
			continue
		}
		if len(all[pe]) <= len(token) {
			err = fmt.Errorf("transport: PE %d published a malformed heap address", pe)
			break
		}
		var pfd int
		if pfd, err = fetchHeap(ctx, string(all[pe][len(token):]), all[pe][:len(token)], size); err != nil {
			err = fmt.Errorf("%w: PE %d: %v", ErrNoSharedMemory, pe, err)
			break
		}
		heaps[pe], err = mapFd(pfd, size)
		unix.Close(pfd)
		if err != nil {
			break
		}
	}
	if err != nil {
		_ = ln.Close()
		wg.Wait()
		return nil, nil, err
	}
	if err = <-served; err != nil {
		wg.Wait()
		return nil, nil, err
	}
	wg.Wait()
	return heaps, release, nil
}

func mapFd(fd int, size uint64) ([]byte, error) {
	b, err := unix.Mmap(fd, 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("transport: mapping a %d-byte heap: %w", size, err)
	}
	return b, nil
}

// serveHeap hands fd to want peers that present token; others are refused.
func serveHeap(ctx context.Context, ln *net.UnixListener, want, fd int, size uint64, token []byte) error {
	for want > 0 {
		c, err := ln.AcceptUnix()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("transport: waiting for %d peers to map our heap: %w", want, err)
		}
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		got := make([]byte, len(token))
		if _, err := io.ReadFull(c, got); err != nil || subtle.ConstantTimeCompare(got, token) != 1 {
			c.Close()
			continue
		}
		var msg [8]byte
		binary.LittleEndian.PutUint64(msg[:], size)
		_, _, err = c.WriteMsgUnix(msg[:], unix.UnixRights(fd), nil)
		c.Close()
		if err != nil {
			return fmt.Errorf("transport: handing our heap to a peer: %w", err)
		}
		want--
	}
	return nil
}

func fetchHeap(ctx context.Context, name string, token []byte, size uint64) (int, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", name)
	if err != nil {
		return -1, err
	}
	c := conn.(*net.UnixConn)
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write(token); err != nil {
		return -1, err
	}
	var msg [8]byte
	oob := make([]byte, unix.CmsgSpace(4))
	nr, noob, _, _, err := c.ReadMsgUnix(msg[:], oob)
	if err != nil {
		return -1, err
	}
	scms, err := unix.ParseSocketControlMessage(oob[:noob])
	if err != nil || len(scms) != 1 || nr != 8 {
		return -1, errors.New("no descriptor received")
	}
	fds, err := unix.ParseUnixRights(&scms[0])
	if err != nil || len(fds) != 1 {
		return -1, errors.New("no descriptor received")
	}
	if got := binary.LittleEndian.Uint64(msg[:]); got != size {
		unix.Close(fds[0])
		return -1, fmt.Errorf("peer heap is %d bytes, ours is %d (GSHMEM_SYMMETRIC_SIZE differs)", got, size)
	}
	return fds[0], nil
}
