package shmem_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/shmem"
)

var small = shmem.WithSymmetricSize(1 << 20)

func TestFailedPEStopsWaits(t *testing.T) {
	boom := errors.New("boom")
	var waitErr error
	err := shmem.Run(3, func(w *shmem.World) error {
		s, err := shmem.Calloc[int64](w, 1)
		if err != nil {
			return err
		}
		if w.MyPE() == 1 {
			return boom
		}
		if w.MyPE() == 0 {
			waitErr = shmem.WaitUntil(s, shmem.CmpEQ, 1)
			return waitErr
		}
		// The World's context ends with the job, too.
		select {
		case <-w.Context().Done():
			return shmem.ErrAborted
		case <-time.After(10 * time.Second):
			return errors.New("context still live 10 s after a PE failed")
		}
	}, small)
	require.ErrorIs(t, err, boom)
	assert.NotErrorIs(t, err, shmem.ErrAborted, "the aborted PEs' errors are consequences, not causes")
	require.ErrorIs(t, waitErr, shmem.ErrAborted)
}

func TestContextCancelsWaits(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := shmem.RunContext(ctx, 2, func(w *shmem.World) error {
		s, err := shmem.Calloc[int64](w, 1)
		if err != nil {
			return err
		}
		return shmem.WaitUntil(s, shmem.CmpEQ, 1) // nobody will write it
	}, small)
	require.ErrorIs(t, err, shmem.ErrAborted)
	assert.Less(t, time.Since(start), 5*time.Second)
}

func TestGlobalExitInproc(t *testing.T) {
	err := shmem.Run(4, func(w *shmem.World) error {
		if w.MyPE() == 2 {
			w.GlobalExit(7)
		}
		return w.BarrierAll() // the others are released with ErrAborted
	}, small)
	var ee *shmem.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, 7, ee.Code)
	assert.Equal(t, 2, ee.PE)

	require.NoError(t, shmem.Run(2, func(w *shmem.World) error {
		if w.MyPE() == 0 {
			w.GlobalExit(0)
		}
		return w.SyncAll()
	}, small))
}

func TestPanicIsAnError(t *testing.T) {
	err := shmem.Run(2, func(w *shmem.World) error {
		if w.MyPE() == 1 {
			var m map[int]int
			m[1] = 1
		}
		return w.BarrierAll()
	}, small)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "PE 1 panicked")
}

func TestSingletonAndFinalize(t *testing.T) {
	t.Setenv("GSHMEM_LOCAL_ADDR", "")
	t.Setenv("GSHMEM_BOOTSTRAP", "")
	w, err := shmem.Init(context.Background(), small)
	require.NoError(t, err)
	assert.Equal(t, 0, w.MyPE())
	assert.Equal(t, 1, w.NPEs())
	s, err := shmem.Calloc[int32](w, 4)
	require.NoError(t, err)
	require.NoError(t, shmem.P(s.At(2), 5, 0))
	assert.Equal(t, []int32{0, 0, 5, 0}, s.Local())
	require.NoError(t, w.Finalize())
	require.ErrorIs(t, w.Finalize(), shmem.ErrFinalized)
	require.ErrorIs(t, shmem.P(s, 1, 0), shmem.ErrFinalized)
	_, err = shmem.Alloc[int32](w, 1)
	require.ErrorIs(t, err, shmem.ErrFinalized)
}

func TestOptions(t *testing.T) {
	for in, want := range map[string]uint64{"4096": 4096, "64k": 64 << 10, "2M": 2 << 20, "1g": 1 << 30, "3GB": 3 << 30,
		"1.5g": 3 << 29, "1GiB": 1 << 30, "512MiB": 512 << 20, "512m": 512 << 20, " 8kb ": 8 << 10, "100b": 100,
		"0.5k": 512, "2.25m": 9 << 18, "16t": 16 << 40} {
		got, err := shmem.ParseSize(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "x", "-1", "99999999999999999999t", "1.3k", "1.5", ".5g", "1.g", "1gg", "1 g",
		"g", "1e9", "0x10", "1kk", "1mibb", "16777216t", "1.5gi"} {
		_, err := shmem.ParseSize(bad)
		assert.ErrorIs(t, err, shmem.ErrInvalid, bad)
	}
	t.Setenv("GSHMEM_SYMMETRIC_SIZE", "lots")
	_, err := shmem.Init(context.Background())
	require.ErrorIs(t, err, shmem.ErrInvalid)
	assert.ErrorContains(t, err, `GSHMEM_SYMMETRIC_SIZE="lots"`)
	// Every refused value names its variable, or the Option that set it.
	for _, v := range []string{"1k", "0"} {
		t.Setenv("GSHMEM_SYMMETRIC_SIZE", v)
		err = shmem.Run(1, func(*shmem.World) error { return nil })
		require.ErrorIs(t, err, shmem.ErrInvalid)
		assert.ErrorContains(t, err, `GSHMEM_SYMMETRIC_SIZE="`+v+`"`)
	}
	t.Setenv("GSHMEM_SYMMETRIC_SIZE", "")
	err = shmem.Run(1, func(*shmem.World) error { return nil }, shmem.WithSymmetricSize(1024))
	require.ErrorIs(t, err, shmem.ErrInvalid)
	assert.ErrorContains(t, err, "WithSymmetricSize(1024)")
	require.ErrorIs(t, shmem.Run(0, func(*shmem.World) error { return nil }, small), shmem.ErrInvalid)
	for _, v := range []string{"0", "0s", "-5s", "-1"} {
		t.Setenv("GSHMEM_BOOTSTRAP_TIMEOUT", v)
		err = shmem.Run(1, func(*shmem.World) error { return nil }, small)
		require.ErrorIs(t, err, shmem.ErrInvalid, v)
		assert.ErrorContains(t, err, `GSHMEM_BOOTSTRAP_TIMEOUT="`+v+`"`)
	}
}
