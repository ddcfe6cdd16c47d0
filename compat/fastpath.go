package compat

import "github.com/gshmem/gshmem/compat/internal/p2pstate"

// What compat publishes for a fast path outside Go: compat/abi's C calls
// send eager messages into mapped peers' rings and take them from this
// PE's rings over the state p2pstate describes, and hand everything else
// (rendezvous, queued sends, unexpected messages, errors) to the calls of
// this package.

// p2pstate.Of gives compat/abi the Env's published engine state. Its
// memory is the Env's until Finalize.
func init() {
	p2pstate.Of = func(env any) *p2pstate.Engine {
		if e, ok := env.(*Env); ok && e != nil {
			return e.pub
		}
		return nil
	}
}

// Context returns the context id c's point-to-point messages carry: a
// message matches a receive on c only when it carries c's context.
func (c *Comm) Context() uint32 { return c.ctx }

// CollContext returns the context id of c's collective messages.
func (c *Comm) CollContext() uint32 { return c.cctx() }

// BarrierP2P is Barrier in its point-to-point form whatever c's team: a
// dissemination barrier whose round d sends an empty message to rank+d
// and receives one from rank-d, in the collective context with the
// barrier's tag. The C ABI runs these rounds itself where it can, and
// BarrierSend and BarrierRecv take a round's halves where it cannot, so a
// PE whose rounds run in C and one whose rounds run here meet.
func (c *Comm) BarrierP2P() error {
	if c.IsInter() {
		return c.Barrier()
	}
	if err := c.collCheck("Barrier"); err != nil {
		return err
	}
	return c.p2pBarrier()
}

// BarrierSend sends a round's message of BarrierP2P to rank to.
func (c *Comm) BarrierSend(to int) error {
	if err := c.collCheck("Barrier"); err != nil {
		return err
	}
	if uint(to) >= uint(c.Size()) {
		return errorf(ClassRank, "Barrier: rank %d of a communicator of %d", to, c.Size())
	}
	_, err := c.env.wait(c.csend(nil, to, tagBarrier))
	return err
}

// BarrierRecv receives a round's message of BarrierP2P from rank from.
func (c *Comm) BarrierRecv(from int) error {
	if err := c.collCheck("Barrier"); err != nil {
		return err
	}
	if uint(from) >= uint(c.Size()) {
		return errorf(ClassRank, "Barrier: rank %d of a communicator of %d", from, c.Size())
	}
	_, err := c.crecv(nil, nil, from, tagBarrier).Wait()
	return err
}

// CollSend sends data to rank to in c's collective context with tag, and
// waits until data may be reused; CollRecv receives such a message into
// buf and returns its length. They are the C ABI's collective messages
// (p2pstate.TagAllreduce) where its fast path cannot serve them; tag must
// be one no collective of compat uses.
func (c *Comm) CollSend(to int, tag int32, data []byte) error {
	if err := c.collCheck("collective"); err != nil {
		return err
	}
	if uint(to) >= uint(c.Size()) {
		return errorf(ClassRank, "collective: rank %d of a communicator of %d", to, c.Size())
	}
	_, err := c.env.wait(c.csend(data, to, tag))
	return err
}

// CollRecv: see CollSend.
func (c *Comm) CollRecv(from int, tag int32, buf []byte) (int, error) {
	if err := c.collCheck("collective"); err != nil {
		return 0, err
	}
	if uint(from) >= uint(c.Size()) {
		return 0, errorf(ClassRank, "collective: rank %d of a communicator of %d", from, c.Size())
	}
	st, err := c.crecv(buf, nil, from, tag).Wait()
	return st.Bytes(), err
}
