// Command initfini only joins its job and leaves it: the start-up that
// test/perf/startup.sh times against an MPI program doing MPI_Init and
// MPI_Finalize. With -mem, PE 0 and the last PE print their resident size
// and page tables after Init and again after one barrier (which maps its
// log2 N partners' heaps), for the launcher's per-PE memory estimate.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/gshmem/gshmem/shmem"
)

func main() {
	mem := flag.Bool("mem", false, "print VmRSS and VmPTE of PE 0 and the last PE after Init and after a barrier")
	flag.Parse()
	w, err := shmem.Init(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "initfini:", err)
		os.Exit(1)
	}
	report := *mem && (w.MyPE() == 0 || w.MyPE() == w.NPEs()-1)
	if report {
		fmt.Printf("PE %d of %d after Init: %s\n", w.MyPE(), w.NPEs(), status("VmRSS", "VmPTE"))
	}
	if *mem {
		if err := w.BarrierAll(); err != nil {
			fmt.Fprintln(os.Stderr, "initfini:", err)
			os.Exit(1)
		}
	}
	if report {
		fmt.Printf("PE %d of %d after a barrier: %s\n", w.MyPE(), w.NPEs(), status("VmRSS", "VmPTE"))
	}
	if err := w.Finalize(); err != nil {
		fmt.Fprintln(os.Stderr, "initfini:", err)
		os.Exit(1)
	}
}

// status returns the named fields of /proc/self/status.
func status(fields ...string) string {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		for _, k := range fields {
			if v, ok := strings.CutPrefix(sc.Text(), k+":"); ok {
				out = append(out, k+" "+strings.Join(strings.Fields(v), " "))
			}
		}
	}
	return strings.Join(out, ", ")
}
