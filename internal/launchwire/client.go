package launchwire

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"
)

// ErrClientClosed is returned by calls on a Client after Close.
var ErrClientClosed = errors.New("gshmem: bootstrap client is closed")

// ErrRefused is wrapped by errors that carry the launcher's refusal.
var ErrRefused = errors.New("gshmem: the gshmem run launcher refused the request")

// byeTimeout bounds Close and Abort: they run on the way out of a PE, and
// a wedged launcher must not keep the process alive.
const byeTimeout = 5 * time.Second

// Client is a PE's connection to its gshmem run launcher.
type Client struct {
	env  Env
	mu   sync.Mutex
	conn net.Conn
	br   *bufio.Reader
	seq  uint64
	// rerr is sticky: after a failed exchange the position in the stream
	// is unknown, so no later reply could be trusted.
	rerr error
	// wbroken is set when a write failed part-way; a later frame would be
	// read as garbage, so Abort and Close stop writing.
	wbroken bool
	closed  bool
}

// Dial connects to the launcher at e.Addr and introduces this PE. It
// returns once the launcher has accepted the PE, so a wrong secret or a
// duplicate rank is reported here.
func Dial(ctx context.Context, e Env) (*Client, error) {
	if e.NPEs < 1 || e.Rank < 0 || e.Rank >= e.NPEs {
		return nil, fmt.Errorf("gshmem: bootstrap rank %d out of range for %d PEs", e.Rank, e.NPEs)
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", e.Addr)
	if err != nil {
		return nil, fmt.Errorf("gshmem: PE %d: connecting to the gshmem run launcher at %s: %w (has the launcher exited? are %s and %s from this job?)",
			e.Rank, e.Addr, err, EnvLocalAddr, EnvJobID)
	}
	c := &Client{env: e, conn: conn, br: bufio.NewReader(conn)}
	c.mu.Lock()
	defer c.mu.Unlock()
	err = c.exchange(ctx, "hello", func() error {
		if err := c.write(TypeHello, HelloPayload(uint32(e.Rank), e.Secret)); err != nil {
			return err
		}
		typ, p, err := c.read()
		if err != nil {
			return err
		}
		if typ == TypeError {
			return fmt.Errorf("%w: %s", ErrRefused, p)
		}
		if typ != TypeWelcome || len(p) != 4 {
			return fmt.Errorf("%w: expected welcome, got type %d with %d bytes", ErrMalformed, typ, len(p))
		}
		if n := int(binary.LittleEndian.Uint32(p)); n != e.NPEs {
			return fmt.Errorf("gshmem: the launcher runs %d PEs but %s=%d", n, EnvNPEs, e.NPEs)
		}
		return nil
	})
	if err != nil {
		conn.Close()
		return nil, err
	}
	return c, nil
}

// Env returns the environment the client was dialed with.
func (c *Client) Env() Env { return c.env }

// Allgather contributes data and returns every PE's contribution, indexed
// by rank. Every PE must call it the same number of times.
func (c *Client) Allgather(ctx context.Context, data []byte) ([][]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.usable(); err != nil {
		return nil, err
	}
	if len(data)+9 > MaxFrame {
		return nil, fmt.Errorf("%w: allgather of %d bytes (limit %d)", ErrFrameTooLarge, len(data), MaxFrame-9)
	}
	c.seq++
	seq := c.seq
	var out [][]byte
	err := c.exchange(ctx, "allgather", func() error {
		if err := c.write(TypeAllgather, AllgatherPayload(seq, data)); err != nil {
			return err
		}
		typ, p, err := c.read()
		if err != nil {
			return err
		}
		switch typ {
		case TypeAllgatherResult:
			got, entries, err := ParseAllgatherResult(p, c.env.NPEs)
			if err != nil {
				return err
			}
			if got != seq {
				return fmt.Errorf("%w: result for allgather %d while waiting for %d", ErrMalformed, got, seq)
			}
			out = entries
			return nil
		case TypeError:
			return fmt.Errorf("%w: %s", ErrRefused, p)
		default:
			return fmt.Errorf("%w: unexpected frame type %d during allgather", ErrMalformed, typ)
		}
	})
	return out, err
}

// Barrier returns once every PE has entered it.
func (c *Client) Barrier(ctx context.Context) error {
	_, err := c.Allgather(ctx, nil)
	return err
}

// Abort asks the launcher to stop the job with exit code code, printing
// msg. It does not exit the process; the caller normally does right after.
func (c *Client) Abort(code int, msg string) error {
	if int64(code) != int64(int32(code)) {
		return fmt.Errorf("gshmem: abort code %d does not fit in 32 bits", code)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClientClosed
	}
	if c.wbroken {
		return c.rerr
	}
	if len(msg)+5 > MaxFrame {
		msg = msg[:MaxFrame-5]
	}
	c.conn.SetWriteDeadline(time.Now().Add(byeTimeout))
	defer c.conn.SetWriteDeadline(time.Time{})
	if err := c.write(TypeAbort, AbortPayload(int32(code), msg)); err != nil {
		return c.classify(context.Background(), "abort", err)
	}
	return nil
}

// Close tells the launcher this PE finished on purpose, then disconnects.
// A PE that exits without Close is treated as failed by gshmem run.
func (c *Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	var err error
	if !c.wbroken {
		c.conn.SetWriteDeadline(time.Now().Add(byeTimeout))
		// After an earlier failure the launcher may be gone; the PE
		// already has that error, so a failed goodbye adds nothing.
		if werr := c.write(TypeBye, nil); werr != nil && c.rerr == nil {
			err = c.classify(context.Background(), "close", werr)
		}
	}
	if cerr := c.conn.Close(); err == nil && c.rerr == nil {
		err = cerr
	}
	return err
}

func (c *Client) usable() error {
	if c.closed {
		return ErrClientClosed
	}
	if c.rerr != nil {
		return fmt.Errorf("gshmem: PE %d: bootstrap unusable after an earlier failure: %w", c.env.Rank, c.rerr)
	}
	return nil
}

func (c *Client) write(typ byte, payload []byte) error {
	if err := WriteFrame(c.conn, typ, payload); err != nil {
		c.wbroken = true
		return err
	}
	return nil
}

func (c *Client) read() (byte, []byte, error) {
	return ReadFrame(c.br)
}

// exchange runs fn with the connection's deadlines tied to ctx and turns
// its failure into a sticky, explanatory error.
func (c *Client) exchange(ctx context.Context, op string, fn func() error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("gshmem: PE %d: bootstrap %s: %w", c.env.Rank, op, err)
	}
	if dl, ok := ctx.Deadline(); ok {
		c.conn.SetDeadline(dl)
	}
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		c.conn.SetDeadline(time.Unix(1, 0)) // in the past: wakes blocked I/O
		close(fired)
	})
	err := fn()
	if !stop() {
		<-fired // so the reset below cannot be overtaken by the callback
	}
	c.conn.SetDeadline(time.Time{})
	if err != nil {
		return c.classify(ctx, op, err)
	}
	return nil
}

func (c *Client) classify(ctx context.Context, op string, err error) error {
	rank := c.env.Rank
	switch {
	case errors.Is(err, ErrRefused), errors.Is(err, ErrMalformed), errors.Is(err, ErrFrameTooLarge):
		err = fmt.Errorf("gshmem: PE %d: bootstrap %s: %w", rank, op, err)
	case ctx.Err() != nil:
		err = fmt.Errorf("gshmem: PE %d: bootstrap %s: %w", rank, op, ctx.Err())
	case errors.Is(err, os.ErrDeadlineExceeded):
		err = fmt.Errorf("gshmem: PE %d: bootstrap %s: %w (other PEs may not have reached it)", rank, op, context.DeadlineExceeded)
	default:
		err = fmt.Errorf("gshmem: PE %d: lost connection to the gshmem run launcher during %s (%v): %w", rank, op, err, io.ErrUnexpectedEOF)
	}
	if c.rerr == nil {
		c.rerr = err
	}
	return err
}
