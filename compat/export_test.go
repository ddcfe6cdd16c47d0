package compat

// WithNoDirect makes an Env reach its peers only through shmem calls
// (Put, Store, Load), never through mapped memory: the path a network
// transport takes.
func WithNoDirect() Option { return func(c *config) { c.noDirect = true } }

// WithDeviceExchange makes the rooted and v-collectives and
// ReduceScatter(Block) take a device World's path (coll_devv.go) on a host
// World, where host buffers exercise the exchange and its rounds.
func WithDeviceExchange() Option { return func(c *config) { c.devV = true } }

// OpenLinks returns how many links to other jobs' processes are open
// (neither shut nor lost).
func OpenLinks(e *Env) int {
	n := 0
	if all := e.dyn.links.Load(); all != nil {
		for _, l := range *all {
			if !l.dead.Load() && !l.closing.Load() {
				n++
			}
		}
	}
	return n
}

// BreakLinks cuts every link to other jobs' processes without a word, as
// a process that dies does.
func BreakLinks(e *Env) {
	if all := e.dyn.links.Load(); all != nil {
		for _, l := range *all {
			l.conn.Close()
		}
	}
}
