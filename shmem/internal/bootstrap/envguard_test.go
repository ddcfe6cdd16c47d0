package bootstrap

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func ompiEnv(rank, size int) func(string) string {
	return envMap(map[string]string{"OMPI_COMM_WORLD_RANK": strconv.Itoa(rank), "OMPI_COMM_WORLD_SIZE": strconv.Itoa(size)})
}

// Without GSHMEM_JOB_SECRET a job of several ranks does not start: the
// rendezvous port is open to anyone, and the job's keys pass through it.
func TestEnvNeedsASecret(t *testing.T) {
	addr := freePort(t)
	for _, rank := range []int{0, 1} {
		_, _, err := Open(context.Background(), Config{Name: NameEnv, Addr: addr}, ompiEnv(rank, 2))
		require.ErrorIs(t, err, ErrNoSecret)
		msg := err.Error()
		assert.Contains(t, msg, "GSHMEM_JOB_SECRET is not set")
		assert.Contains(t, msg, "export GSHMEM_JOB_SECRET=$(openssl rand -hex 16)")
		assert.Contains(t, msg, "mpirun -x GSHMEM_JOB_SECRET -x GSHMEM_BOOTSTRAP_ADDR="+addr)
	}
	_, _, err := Open(context.Background(), Config{Name: NameEnv, Addr: addr, Secret: []byte("short")}, ompiEnv(0, 2))
	require.ErrorIs(t, err, ErrNoSecret)
	assert.Contains(t, err.Error(), "has 5 characters, fewer than 16")
	// Nothing listened: the port is still free.
	ln, err := net.Listen("tcp", addr)
	require.NoError(t, err)
	ln.Close()
	// A job of one meets nobody and needs no secret.
	b, _, err := Open(context.Background(), Config{Name: NameEnv, Addr: addr}, ompiEnv(0, 1))
	require.NoError(t, err)
	require.NoError(t, b.Close())
	// Detect's hint for mpirun without an address names the secret too.
	_, _, err = Detect(ompiEnv(1, 2))
	require.ErrorIs(t, err, ErrNotDetected)
	assert.Contains(t, err.Error(), "-x GSHMEM_JOB_SECRET")
}

type logLines struct {
	mu sync.Mutex
	l  []string
}

func (l *logLines) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.l = append(l.l, fmt.Sprintf(format, args...))
}

func (l *logLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.l, "\n")
}

// Strangers at the rendezvous (silent, slow, garbage, huge frames, more
// than rank 0 admits at once) cost it a hello's worth of reading each and
// do not keep the job from starting; refusals are summarized.
func TestEnvWithstandsStrangers(t *testing.T) {
	old := envRefusalInterval
	envRefusalInterval = 200 * time.Millisecond
	t.Cleanup(func() { envRefusalInterval = old })
	const size = 4
	addr := freePort(t)
	var log logLines
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	boots := make([]Bootstrap, size)
	errs := make([]error, size)
	var wg sync.WaitGroup
	wg.Go(func() {
		boots[0], errs[0] = Env(ctx, ompiEnv(0, size), Config{Addr: addr, Secret: testSecret, Logf: log.logf})
	})
	// Strangers first, once rank 0 listens.
	var strangers []net.Conn
	require.Eventually(t, func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			strangers = append(strangers, c)
		}
		return err == nil
	}, 10*time.Second, 5*time.Millisecond)
	for range envMaxPending + 16 { // silent; the last ones find no slot
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		strangers = append(strangers, c)
	}
	var writers sync.WaitGroup
	for i := range 8 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			continue // the backlog may be full
		}
		strangers = append(strangers, c)
		writers.Go(func() {
			switch i % 3 {
			case 0: // a frame claiming rdvMaxFrame bytes, then data
				_, _ = c.Write(binary.LittleEndian.AppendUint32(nil, rdvMaxFrame))
				chunk := make([]byte, 64<<10)
				for range 16 {
					if _, err := c.Write(chunk); err != nil {
						return
					}
				}
			case 1:
				_, _ = c.Write([]byte("GET / HTTP/1.0\r\n\r\n"))
			case 2: // a hello that starts and never ends
				_, _ = c.Write([]byte{81, 0})
			}
		})
	}
	for r := 1; r < size; r++ {
		wg.Go(func() {
			boots[r], errs[r] = Env(ctx, ompiEnv(r, size), Config{Addr: addr, Secret: testSecret})
		})
	}
	wg.Wait()
	for r := range size {
		require.NoError(t, errs[r], "rank %d", r)
	}
	var jobs sync.WaitGroup
	for r, b := range boots {
		jobs.Go(func() {
			for round := range 3 {
				all, err := b.Allgather(ctx, []byte{byte(r), byte(round)})
				assert.NoError(t, err)
				assert.Equal(t, [][]byte{{0, byte(round)}, {1, byte(round)}, {2, byte(round)}, {3, byte(round)}}, all)
			}
		})
	}
	jobs.Wait()
	for _, c := range strangers {
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, err := io.ReadAll(c)
		if err != nil {
			assert.False(t, errors.Is(err, os.ErrDeadlineExceeded), "rank 0 still holds a stranger's connection")
		}
		c.Close()
	}
	writers.Wait()
	root := boots[0].(*envBoot)
	assert.LessOrEqual(t, root.maxRead, int64(4+rdvMaxHello), "rank 0 read no more than a hello from anyone")
	for _, b := range boots {
		assert.NoError(t, b.Close())
	}
	out := log.String()
	assert.Contains(t, out, "refused a connection from 127.0.0.1:")
	assert.Contains(t, out, "more connection(s) in the last")
	assert.Contains(t, out, "too many unauthenticated connections")
	// Every refusal is counted, in far fewer lines.
	lines, refused := strings.Split(out, "\n"), 0
	for _, l := range lines {
		var n int
		if _, err := fmt.Sscanf(l[strings.Index(l, "refused"):], "refused %d more", &n); err == nil {
			refused += n
		} else {
			refused++
		}
	}
	assert.GreaterOrEqual(t, refused, envMaxPending+16)
	assert.Less(t, len(lines), refused/3, "summarized, not one line per refusal:\n%s", out)
	assert.NotContains(t, out, "->", "reasons do not name connections, so that they group")
}

// A process squatting on the rendezvous port, without the secret, learns
// nothing: the rank checks rank 0's proof before sending its data.
func TestEnvRankRefusesAnImpostor(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	got := make(chan int, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		_ = writeRdv(c, rdvChallenge, random(32))
		_, _, _ = readRdv(c)
		_ = writeRdv(c, rdvWelcome, append(encodeU32(2), random(32)...))
		_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
		rest, _ := io.ReadAll(c)
		got <- len(rest)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = Env(ctx, ompiEnv(1, 2), Config{Addr: ln.Addr().String(), Secret: testSecret})
	require.ErrorIs(t, err, errImpostor)
	assert.Equal(t, 0, <-got, "nothing sent after the false welcome")
}
