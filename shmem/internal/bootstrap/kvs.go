package bootstrap

import (
	"context"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// kvs is what the PMI bootstraps share: a job-wide key-value space with a
// collective fence, over which allgather is built.
type kvs interface {
	put(ctx context.Context, key, val string) error
	fence(ctx context.Context) error
	get(ctx context.Context, key string) (val string, found bool, err error)
	maxVal() int
}

// kvsAllgather publishes data under keys of this round and reads every
// rank's. Values are hex (PMI values must avoid spaces, '=' and ';') and
// split into chunks that fit the server's value limit; the first chunk
// starts with the chunk count ("3.ab01...").
func kvsAllgather(ctx context.Context, k kvs, seq uint64, rank, size int, data []byte) ([][]byte, error) {
	room := k.maxVal() - 16
	if room < 32 {
		room = 32
	}
	room &^= 1
	enc := hex.EncodeToString(data)
	var chunks []string
	for len(enc) > room {
		chunks = append(chunks, enc[:room])
		enc = enc[room:]
	}
	chunks = append(chunks, enc)
	for i, c := range chunks {
		if i == 0 {
			c = strconv.Itoa(len(chunks)) + "." + c
		}
		if err := k.put(ctx, kvsKey(seq, rank, i), c); err != nil {
			return nil, err
		}
	}
	if err := k.fence(ctx); err != nil {
		return nil, err
	}
	out := make([][]byte, size)
	for r := range size {
		if r == rank {
			out[r] = append([]byte(nil), data...)
			continue
		}
		v, err := kvsGetOne(ctx, k, kvsKey(seq, r, 0))
		if err != nil {
			return nil, err
		}
		count, first, ok := strings.Cut(v, ".")
		n, err := strconv.Atoi(count)
		if !ok || err != nil || n < 1 || n > 1<<20 {
			return nil, fmt.Errorf("%w: rank %d's allgather value %q has no chunk count", ErrPMIProtocol, r, clip(v))
		}
		var b strings.Builder
		b.WriteString(first)
		for i := 1; i < n; i++ {
			c, err := kvsGetOne(ctx, k, kvsKey(seq, r, i))
			if err != nil {
				return nil, err
			}
			b.WriteString(c)
		}
		if out[r], err = hex.DecodeString(b.String()); err != nil {
			return nil, fmt.Errorf("%w: rank %d's allgather value is not hex: %v", ErrPMIProtocol, r, err)
		}
	}
	return out, nil
}

func kvsGetOne(ctx context.Context, k kvs, key string) (string, error) {
	v, found, err := k.get(ctx, key)
	if err != nil {
		return "", err
	}
	if !found {
		return "", fmt.Errorf("%w: key %s missing after the fence (is every PE of the job running gshmem, and the same program?)", ErrPMIProtocol, key)
	}
	return v, nil
}

func kvsKey(seq uint64, rank, chunk int) string {
	return "gshmem-" + strconv.FormatUint(seq, 10) + "-" + strconv.Itoa(rank) + "-" + strconv.Itoa(chunk)
}
