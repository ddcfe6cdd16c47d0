// Package outsider lets a test play another user of the machine: the test
// binary runs itself again as uid 65534 (nobody), dials a listener of the
// job under test, sends what the test chose and reports what came back.
// Only root can start a process as another user, so tests skip elsewhere.
package outsider

import (
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const modeVar = "GSHMEM_TEST_OUTSIDER"

// UID is the user the outsider runs as.
const UID = 65534

// Main acts as the outsider when the test binary was started by Connect;
// call it first in TestMain. Otherwise it returns at once.
func Main() {
	spec := os.Getenv(modeVar)
	if spec == "" {
		return
	}
	f := strings.SplitN(spec, " ", 3)
	if len(f) != 3 {
		fmt.Printf("bad spec %q\n", spec)
		os.Exit(2)
	}
	payload, _ := hex.DecodeString(f[2])
	c, err := net.DialTimeout(f[0], f[1], 5*time.Second)
	if err != nil {
		fmt.Printf("dial: %v\n", err)
		os.Exit(0)
	}
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	_, _ = c.Write(payload)
	reply, _ := io.ReadAll(io.LimitReader(c, 1<<20))
	fmt.Printf("reply %x\n", reply)
	os.Exit(0)
}

// Connect dials network/addr as uid 65534, sends payload and returns what
// the listener answered before closing (reading at most 1 MiB for 10 s).
// dialErr is set when the connection could not be made at all.
func Connect(t testing.TB, network, addr string, payload []byte) (reply []byte, dialErr string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("starting a process as another user needs root; the uid check is covered with a fake uid")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatalf("outsider: %v", err)
	}
	// The test binary lives in a directory only its owner may enter; the
	// outsider needs a copy it can execute.
	dir, err := os.MkdirTemp("", "gshmem-outsider-")
	if err != nil {
		t.Fatalf("outsider: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatalf("outsider: %v", err)
	}
	bin := filepath.Join(dir, "outsider")
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatalf("outsider: %v", err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatalf("outsider: %v", err)
	}
	cmd := exec.Command(bin)
	cmd.Env = []string{modeVar + "=" + network + " " + addr + " " + hex.EncodeToString(payload)}
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: UID, Gid: UID}}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("outsider: %v: %s", err, out)
	}
	line := strings.TrimSpace(string(out))
	if rest, ok := strings.CutPrefix(line, "dial: "); ok {
		return nil, rest
	}
	rest, ok := strings.CutPrefix(line+" ", "reply ")
	if !ok {
		t.Fatalf("outsider: unexpected output %q", line)
	}
	rest = strings.TrimSpace(rest)
	reply, err = hex.DecodeString(rest)
	if err != nil {
		t.Fatalf("outsider: %v", err)
	}
	return reply, ""
}
