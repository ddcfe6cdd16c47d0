package compat

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Starting processes (MPI-4.1 §11.8.2): Spawn starts a new job whose
// MPI_COMM_WORLD is the children, and returns the intercommunicator
// between the parents' group and the children's; the children find it as
// Env.Parent. Under gshmem run, the root runs the launcher once more
// (GSHMEM_LAUNCHER, its own executable) for a job of every app's
// processes, each of which becomes its app's command through `gshmem
// spawn-exec` (GSHMEM_SPAWN_APPS: commands, arguments, directories); the
// children's MPI_Init connects to a port the parents accept on
// (GSHMEM_PARENT_PORT). Other launchers (Hydra, Slurm, Open MPI's) start
// no processes for a running job: Spawn fails there with ErrSpawn.

// SpawnApp is one command of a Spawn: MPI_Comm_spawn has one,
// MPI_Comm_spawn_multiple several, whose processes are ranked in order.
type SpawnApp struct {
	Command  string   // the program: a path, or a name looked up in Path, then PATH
	Args     []string // its arguments, without the program's name
	MaxProcs int      // how many processes run it
	Dir      string   // the working directory ("wdir"), or the parent's
	Path     string   // directories to look the command up in ("path"), colon-separated
}

// EnvParentPort, EnvSpawnApps, EnvAppNum and EnvLauncher are the variables
// through which a spawn's parents and children meet (see the settings
// table).
const (
	EnvParentPort = "GSHMEM_PARENT_PORT"
	EnvSpawnApps  = "GSHMEM_SPAWN_APPS"
	EnvAppNum     = "GSHMEM_APPNUM"
	EnvLauncher   = "GSHMEM_LAUNCHER"
)

// Parent returns the intercommunicator to the parents of a process
// Spawn started (MPI_Comm_get_parent), nil in any other.
func (e *Env) Parent() *Comm { return e.parent }

// connectParent is New's last step in a spawned job: the children's
// world connects to the port their parents accept on.
func (e *Env) connectParent() error {
	port := os.Getenv(EnvParentPort)
	if port == "" {
		return nil
	}
	// Not for this process's own children, nor anything else it runs.
	os.Unsetenv(EnvParentPort)
	p, err := e.world.Connect(port, 0)
	if err != nil {
		return wrap(err, "connecting to the parents (MPI_Comm_spawn)")
	}
	p.name = "parent"
	e.parent = p
	return nil
}

// CanSpawn says why this job cannot Spawn, or nil: only a job started by
// gshmem run can.
func CanSpawn() error {
	if os.Getenv("GSHMEM_LOCAL_ADDR") == "" || os.Getenv(EnvLauncher) == "" {
		how := "alone (a singleton)"
		if b := os.Getenv("GSHMEM_BOOTSTRAP"); b != "" {
			how = "with GSHMEM_BOOTSTRAP=" + b
		}
		for _, v := range []string{"PMI_FD", "PMI_PORT", "PMIX_RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK"} {
			if os.Getenv(v) != "" {
				how = "by a launcher that sets " + v + " (Hydra, Slurm or Open MPI)"
				break
			}
		}
		return errorf(ClassSpawn, "MPI_Comm_spawn needs a job started by gshmem run, which can start processes for it; this one was started %s", how)
	}
	return nil
}

// Spawn starts the apps' processes as one new job and returns the
// intercommunicator between c's group and theirs (MPI_Comm_spawn and
// MPI_Comm_spawn_multiple). Collective over c; apps matter at root only.
// It fails with ErrSpawn on every member when the processes cannot be
// started or do not all connect within GSHMEM_DYNPROC_TIMEOUT.
func (c *Comm) Spawn(apps []SpawnApp, root int) (*Comm, error) {
	return c.SpawnWith(root, func() ([]SpawnApp, error) { return apps, nil })
}

// SpawnWith is Spawn whose apps the root reads through apps (called there
// only), whose error, like any of the root's, every member returns.
func (c *Comm) SpawnWith(root int, apps func() ([]SpawnApp, error)) (*Comm, error) {
	return c.meetAt(root, 1, "Spawn", 0, func(deadline time.Time) (net.Conn, error) {
		a, err := apps()
		if err != nil {
			return nil, err
		}
		return c.env.startJob(a, deadline)
	})
}

// startJob runs the launcher for apps and waits for their world's root to
// connect to a port opened for it.
func (e *Env) startJob(apps []SpawnApp, deadline time.Time) (net.Conn, error) {
	if err := CanSpawn(); err != nil {
		return nil, err
	}
	total := 0
	for i, a := range apps {
		if a.Command == "" {
			return nil, errorf(ClassSpawn, "Spawn: command %d is empty", i)
		}
		if a.MaxProcs <= 0 {
			return nil, errorf(ClassSpawn, "Spawn: maxprocs %d for %q (at least 1)", a.MaxProcs, a.Command)
		}
		total += a.MaxProcs
	}
	if total == 0 {
		return nil, errorf(ClassSpawn, "Spawn: no command")
	}
	spec, err := json.Marshal(apps)
	if err != nil {
		return nil, errorf(ClassSpawn, "Spawn: %v", err)
	}
	port, err := e.OpenPort()
	if err != nil {
		return nil, err
	}
	defer func() { _ = port.Close() }()
	launcher := os.Getenv(EnvLauncher)
	cmd := exec.Command(launcher, "run", "-n", strconv.Itoa(total), launcher, "spawn-exec")
	cmd.Env = append(childEnviron(), EnvParentPort+"="+port.Name(), EnvSpawnApps+"="+string(spec))
	cmd.Stdin, cmd.Stdout = nil, os.Stdout
	var tail tailWriter
	cmd.Stderr = &tail
	if err := cmd.Start(); err != nil {
		return nil, errorf(ClassSpawn, "Spawn: starting %s: %v", launcher, err)
	}
	ended := make(chan error, 1)
	go func() {
		err := cmd.Wait() // reaps the launcher whenever the children end
		if err == nil {
			err = fmt.Errorf("it exited")
		}
		ended <- errorf(ClassSpawn, "Spawn: the children's job ended before it connected (%v)%s", err, tail.last())
	}()
	conn, err := port.wait(deadline, ended)
	if err != nil && ClassOf(err) != ClassSpawn {
		err = errorf(ClassSpawn, "Spawn: %v", err)
	}
	return conn, err
}

// childEnviron is this process's environment less what its own job's
// launcher set for it (the children's launcher sets its own).
func childEnviron() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GSHMEM_BOOTSTRAP", "GSHMEM_LOCAL_ADDR", "GSHMEM_JOB_ID", "GSHMEM_JOB_SECRET", "GSHMEM_RANK",
			"GSHMEM_NPES", "GSHMEM_LOCAL_RANK", "GSHMEM_LOCAL_SIZE", EnvParentPort, EnvSpawnApps, EnvAppNum:
			continue
		}
		out = append(out, kv)
	}
	return out
}

// tailWriter passes what the children's launcher writes to stderr on, and
// keeps its last line for Spawn's error.
type tailWriter struct {
	b []byte
}

func (t *tailWriter) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 4096 {
		t.b = t.b[len(t.b)-4096:]
	}
	return os.Stderr.Write(p)
}

func (t *tailWriter) last() string {
	s := strings.TrimSpace(string(t.b))
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if s == "" {
		return ""
	}
	return ": " + s
}
