package bootstrap

import (
	"context"

	"github.com/gshmem/gshmem/internal/launchwire"
)

// Local joins a job started by `gshmem run`: the launcher's socket serves
// the allgathers and hears about aborts.
func Local(ctx context.Context, env launchwire.Env) (Bootstrap, error) {
	c, err := launchwire.Dial(ctx, env)
	if err != nil {
		return nil, err
	}
	return &local{c: c, env: env}, nil
}

type local struct {
	c   *launchwire.Client
	env launchwire.Env
}

func (b *local) Name() string   { return "local" }
func (b *local) Rank() int      { return b.env.Rank }
func (b *local) Size() int      { return b.env.NPEs }
func (b *local) LocalRank() int { return b.env.LocalRank }
func (b *local) LocalSize() int { return b.env.LocalSize }

func (b *local) Allgather(ctx context.Context, data []byte) ([][]byte, error) {
	return b.c.Allgather(ctx, data)
}

func (b *local) Barrier(ctx context.Context) error { return b.c.Barrier(ctx) }
func (b *local) Abort(code int, msg string) error  { return b.c.Abort(code, msg) }
func (b *local) Close() error                      { return b.c.Close() }
