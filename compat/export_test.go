package compat

// WithNoDirect makes an Env reach its peers only through shmem calls
// (Put, Store, Load), never through mapped memory: the path a network
// transport takes.
func WithNoDirect() Option { return func(c *config) { c.noDirect = true } }
