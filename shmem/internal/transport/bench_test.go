package transport

import (
	"io"
	"net"
	"testing"
	"time"
)

// BenchmarkTCPPut1MiB streams 1 MiB puts from PE 0 to PE 1 over loopback;
// BenchmarkRawTCP1MiB is the same bytes over a plain Go TCP stream.
func BenchmarkTCPPut1MiB(b *testing.B) {
	jobs, _, _ := connectAll(&testing.T{}, []string{"%r0", "%r1"}, 16<<20, 5*time.Second)
	defer closeAll(b, jobs)
	src := make([]byte, 1<<20)
	tr := jobs[0].Transport
	b.SetBytes(1 << 20)
	b.ResetTimer()
	for i := range b.N {
		if err := tr.PutNBI(1, uint64(i%8)<<20, src); err != nil {
			b.Fatal(err)
		}
	}
	if err := tr.Quiet(); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
}

func closeAll(b *testing.B, jobs []*Job) {
	b.StopTimer()
	done := make(chan struct{})
	for _, j := range jobs {
		go func() { j.Transport.Close(); done <- struct{}{} }()
	}
	for range jobs {
		<-done
	}
}

func BenchmarkRawTCP1MiB(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	done := make(chan struct{})
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		buf := make([]byte, 1<<20)
		for {
			if _, err := io.ReadFull(c, buf); err != nil {
				break
			}
		}
		close(done)
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	src := make([]byte, 1<<20)
	b.SetBytes(1 << 20)
	b.ResetTimer()
	for range b.N {
		if _, err := c.Write(src); err != nil {
			b.Fatal(err)
		}
	}
	c.Close()
	<-done
}

func BenchmarkTCPFetchAdd(b *testing.B) {
	jobs, _, _ := connectAll(&testing.T{}, []string{"%r0", "%r1"}, 1<<20, 5*time.Second)
	defer closeAll(b, jobs)
	tr := jobs[0].Transport
	b.ResetTimer()
	for range b.N {
		if _, err := tr.Atomic(1, 64, 8, OpAdd, 1, 0); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
}

func BenchmarkRawTCPPingPong(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		buf := make([]byte, 8)
		for {
			if _, err := io.ReadFull(c, buf); err != nil {
				return
			}
			if _, err := c.Write(buf); err != nil {
				return
			}
		}
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	buf := make([]byte, 8)
	b.ResetTimer()
	for range b.N {
		c.Write(buf)
		io.ReadFull(c, buf)
	}
}
