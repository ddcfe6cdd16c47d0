package compat

import "github.com/gshmem/gshmem/compat/internal/p2pstate"

// What compat publishes for a fast path outside Go: compat/abi's C calls
// send eager messages into mapped peers' rings and take them from this
// PE's rings over the state p2pstate describes, and hand everything else
// (rendezvous, queued sends, unexpected messages, errors) to the calls of
// this package.

// Published returns the Env's published engine state. Its memory is the
// Env's until Finalize.
func (e *Env) Published() *p2pstate.Engine { return e.pub }

// Context returns the context id c's point-to-point messages carry: a
// message matches a receive on c only when it carries c's context.
func (c *Comm) Context() uint32 { return c.ctx }
