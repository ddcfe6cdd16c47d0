// Package launchwire is the wire between gshmem run and its PEs: the frame
// protocol of the "local" bootstrap, the environment that gshmem run hands
// each PE (Env), and the client a PE dials (Dial, Client). It is a leaf
// apart from the launcher so that every PE binary, through
// shmem/internal/bootstrap, links only the client and not the job launcher
// that serves it; internal/launcher imports it for the server side.
package launchwire
