package compat

// WithNoDirect makes an Env reach its peers only through shmem calls
// (Put, Store, Load), never through mapped memory: the path a network
// transport takes.
func WithNoDirect() Option { return func(c *config) { c.noDirect = true } }

// WithDeviceExchange makes the rooted and v-collectives and
// ReduceScatter(Block) take a device World's path (coll_devv.go) on a host
// World, where host buffers exercise the exchange and its rounds.
func WithDeviceExchange() Option { return func(c *config) { c.devV = true } }
