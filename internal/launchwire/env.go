package launchwire

import (
	"encoding/hex"
	"fmt"
	"strconv"
)

// Variables that gshmem run sets in every PE's environment. They override
// whatever the user's environment holds, so that a PE started by a nested
// gshmem run never joins the outer job.
const (
	EnvBootstrap = "GSHMEM_BOOTSTRAP" // "local"
	EnvLocalAddr = "GSHMEM_LOCAL_ADDR"
	EnvJobID     = "GSHMEM_JOB_ID"
	EnvJobSecret = "GSHMEM_JOB_SECRET"
	EnvRank      = "GSHMEM_RANK"
	EnvNPEs      = "GSHMEM_NPES"
	EnvLocalRank = "GSHMEM_LOCAL_RANK"
	EnvLocalSize = "GSHMEM_LOCAL_SIZE"
)

// BootstrapName is the value of GSHMEM_BOOTSTRAP that selects this bootstrap.
const BootstrapName = "local"

// Env is what a PE needs to join its job through the local bootstrap.
type Env struct {
	Addr      string // unix socket address; "@..." is Linux's abstract namespace
	JobID     string
	Secret    []byte
	Rank      int
	NPEs      int
	LocalRank int
	LocalSize int
}

// Vars returns the environment entries ("KEY=value") that describe e.
func (e Env) Vars() []string {
	return []string{
		EnvBootstrap + "=" + BootstrapName,
		EnvLocalAddr + "=" + e.Addr,
		EnvJobID + "=" + e.JobID,
		EnvJobSecret + "=" + hex.EncodeToString(e.Secret),
		EnvRank + "=" + strconv.Itoa(e.Rank),
		EnvNPEs + "=" + strconv.Itoa(e.NPEs),
		EnvLocalRank + "=" + strconv.Itoa(e.LocalRank),
		EnvLocalSize + "=" + strconv.Itoa(e.LocalSize),
	}
}

// EnvFromEnviron reads the local bootstrap's variables through getenv
// (os.Getenv in a PE). ok is false when GSHMEM_LOCAL_ADDR is unset, i.e. the
// process was not started by gshmem run. The local rank and size default to
// the global ones, since gshmem run starts every PE on one node.
func EnvFromEnviron(getenv func(string) string) (e Env, ok bool, err error) {
	e.Addr = getenv(EnvLocalAddr)
	if e.Addr == "" {
		return Env{}, false, nil
	}
	e.JobID = getenv(EnvJobID)
	if e.JobID == "" {
		return Env{}, true, missing(EnvJobID)
	}
	secret := getenv(EnvJobSecret)
	if secret == "" {
		return Env{}, true, missing(EnvJobSecret)
	}
	if e.Secret, err = hex.DecodeString(secret); err != nil {
		return Env{}, true, fmt.Errorf("gshmem: %s is not hexadecimal (%d characters): %v", EnvJobSecret, len(secret), err)
	}
	if e.NPEs, err = intVar(getenv, EnvNPEs, 1, -1, -1); err != nil {
		return Env{}, true, err
	}
	if e.Rank, err = intVar(getenv, EnvRank, 0, e.NPEs-1, -1); err != nil {
		return Env{}, true, err
	}
	if e.LocalSize, err = intVar(getenv, EnvLocalSize, 1, e.NPEs, e.NPEs); err != nil {
		return Env{}, true, err
	}
	if e.LocalRank, err = intVar(getenv, EnvLocalRank, 0, e.LocalSize-1, e.Rank); err != nil {
		return Env{}, true, err
	}
	return e, true, nil
}

func missing(name string) error {
	return fmt.Errorf("gshmem: %s is set but %s is not; start the program with gshmem run", EnvLocalAddr, name)
}

// intVar parses name as an integer in [lo, hi] (hi < 0: no upper bound);
// def >= 0 makes the variable optional.
func intVar(getenv func(string) string, name string, lo, hi, def int) (int, error) {
	s := getenv(name)
	if s == "" {
		if def >= 0 {
			return def, nil
		}
		return 0, missing(name)
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("gshmem: %s=%q is not an integer", name, s)
	}
	if v < lo || (hi >= 0 && v > hi) {
		if hi >= 0 {
			return 0, fmt.Errorf("gshmem: %s=%d is out of range [%d, %d]", name, v, lo, hi)
		}
		return 0, fmt.Errorf("gshmem: %s=%d is less than %d", name, v, lo)
	}
	return v, nil
}
