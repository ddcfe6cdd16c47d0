package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/settings"
	"github.com/gshmem/gshmem/shmem"
)

func infoCmd() *cobra.Command {
	var noJoin bool
	c := &cobra.Command{
		Use:   "info [--no-join]",
		Short: "print the build, the bootstrap, the PE-to-node map, the transport to each peer and every GSHMEM_* setting",
		Long: `info prints the build and every GSHMEM_* setting with its source. Started by
a launcher (gshmem run -n 4 gshmem info, mpiexec.hydra -n 4 gshmem info,
srun --mpi=pmi2 gshmem info, ...) it joins the job and PE 0 also prints the
bootstrap in use, which node every PE is on and how each PE reaches each
other PE (shm within a node, tcp or ucx across nodes). --no-join only says which
bootstrap would be used.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return info(cmd.OutOrStdout(), noJoin)
		},
	}
	c.Flags().BoolVar(&noJoin, "no-join", false, "do not join the job; only say which bootstrap would be used")
	return c
}

func info(out io.Writer, noJoin bool) error {
	name, why, derr := shmem.DetectBootstrap()
	var w *shmem.World
	if !noJoin && derr == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		var err error
		if w, err = shmem.Init(ctx, shmem.WithSymmetricSize(1<<20)); err != nil {
			return err
		}
	}
	if w != nil && w.MyPE() != 0 {
		// Only PE 0 prints; the others contribute their rows.
		return topologyRows(w, nil)
	}
	fmt.Fprintf(out, "gshmem (%s, %s/%s), %d CPUs\n", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	fmt.Fprintln(out, "bootstraps: local (gshmem run), pmi (PMI-1: PMI_FD or PMI_PORT+PMI_ID), pmi2 (PMI-2 over PMI_FD), env (launcher ranks + GSHMEM_BOOTSTRAP_ADDR), singleton")
	remote := "tcp across nodes (GSHMEM_REMOTE_TRANSPORT=tcp; ucx: not in this build, see -tags ucx)"
	if shmem.UCXBuilt {
		remote = "tcp or ucx across nodes (GSHMEM_REMOTE_TRANSPORT=tcp|ucx)"
	}
	fmt.Fprintln(out, "transports: shm (memfd shared by SCM_RIGHTS, load/store) within a node, "+remote)
	printGPUs(out)
	switch {
	case derr != nil:
		fmt.Fprintf(out, "bootstrap: cannot join: %v\n", derr)
	case w == nil:
		fmt.Fprintf(out, "bootstrap: %s (%s)\n", name, why)
	default:
		t := w.Topology()
		if t.Bootstrap == "singleton" {
			// Nothing to go through: say so plainly, and how to get more PEs.
			fmt.Fprintf(out, "bootstrap: singleton (%s; start it with gshmem run -n N gshmem info, or another launcher, to see a job)\n", t.Why)
		} else {
			fmt.Fprintf(out, "bootstrap: %s (%s), via %s\n", t.Bootstrap, t.Why, t.Via)
		}
		if err := topologyRows(w, out); err != nil {
			return err
		}
	}
	fmt.Fprintln(out)
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "VARIABLE\tVALUE\tSOURCE\tDEFAULT\tREAD BY\tMEANING")
	for _, s := range settings.All() {
		val, src := os.Getenv(s.Name), "env"
		if s.Name == "GSHMEM_JOB_SECRET" && val != "" {
			val = "(set)"
		}
		if val == "" {
			val, src = s.Default, "default"
		} else if err := s.Check(val); err != nil {
			src = "env, refused"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", s.Name, val, src, s.Default, s.Reader, strings.ReplaceAll(s.Help, "`", ""))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	hints := compat.FileHintDefaults()
	keys := make([]string, 0, len(hints))
	for k := range hints {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Fprintln(out, "\nMPI-IO hints (MPI_File_open's defaults; an info key sets each):")
	for _, k := range keys {
		fmt.Fprintf(out, "  %s=%s\n", k, hints[k])
	}
	if unknown := shmem.UnknownSettings(); len(unknown) > 0 {
		fmt.Fprintln(out, "\nunknown GSHMEM_* variables (read by nothing, ignored):")
		for _, u := range unknown {
			if u.Closest != "" {
				fmt.Fprintf(out, "  %s (did you mean %s?)\n", u.Name, u.Closest)
			} else {
				fmt.Fprintf(out, "  %s\n", u.Name)
			}
		}
	}
	if w != nil {
		return w.Finalize()
	}
	return nil
}

// topologyRows gathers every PE's view on PE 0 (through the symmetric heap)
// and, on PE 0, prints the PE-to-node map and the transport matrix.
func topologyRows(w *shmem.World, out io.Writer) error {
	n, me := w.NPEs(), w.MyPE()
	const hostLen, laneLen = 64, 512
	const rowLen = hostLen + laneLen + 1 // and the PE's GPU + 1 (0: none)
	rows, err := shmem.Calloc[byte](w, n*(n+rowLen))
	if err != nil {
		return err
	}
	t := w.Topology()
	row := make([]byte, n+rowLen)
	for pe, k := range t.Transport {
		row[pe] = map[string]byte{"self": '.', "shm": 's', "tcp": 't', "ucx": 'u'}[k]
	}
	copy(row[n:], t.Host[me])
	copy(row[n+hostLen:], laneGroups(t.Lanes, laneLen))
	row[n+hostLen+laneLen] = byte(myGPU(localRank(t.Node, me)) + 1)
	if err := shmem.Put(rows.Slice(me*(n+rowLen), (me+1)*(n+rowLen)), row, 0); err != nil {
		return err
	}
	if err := w.BarrierAll(); err != nil {
		return err
	}
	if me != 0 {
		return w.Finalize()
	}
	all := rows.Local()
	nodes := 0
	for _, nd := range t.Node {
		nodes = max(nodes, nd+1)
	}
	fmt.Fprintf(out, "PEs: %d on %d node(s)\n", n, nodes)
	fmt.Fprintln(out, "PE  node  host              tcp listener           transport to PE 0..n-1 (. self, s shm, t tcp, u ucx)")
	var lanes []string
	gpu := make([]int, n)
	for pe := range n {
		r := all[pe*(n+rowLen) : (pe+1)*(n+rowLen)]
		gpu[pe] = int(r[n+hostLen+laneLen]) - 1
		host := strings.TrimRight(string(r[n:n+hostLen]), "\x00")
		fmt.Fprintf(out, "%-3d %-5d %-17s %-22s %s\n", pe, t.Node[pe], host, orDash(t.TCPAddr[pe]), r[:n])
		if l := strings.TrimRight(string(r[n+hostLen:n+hostLen+laneLen]), "\x00"); l != "" {
			for _, g := range strings.Split(l, "\n") {
				lanes = append(lanes, fmt.Sprintf("PE %d -> %s", pe, g))
			}
		}
	}
	if len(lanes) > 0 {
		fmt.Fprintln(out, "ucx lanes, by PE and the remote peers it reaches over them:")
		for _, l := range lanes {
			fmt.Fprintln(out, "  "+l)
		}
	}
	printPEGPUs(out, t.Node, gpu)
	return nil
}

// laneGroups lists a PE's ucx peers by the lanes UCP chose to them, one
// line per distinct lane summary ("PEs 2-3,5: tcp/eth0.0 (am ...)";
// usually one: every peer over the same fabric), cut to limit bytes.
func laneGroups(lanes []string, limit int) string {
	var sums []string
	peers := map[string][]int{}
	for pe, l := range lanes {
		if l == "" {
			continue
		}
		if _, ok := peers[l]; !ok {
			sums = append(sums, l)
		}
		peers[l] = append(peers[l], pe)
	}
	var lines []string
	for _, l := range sums {
		who := "PE "
		if len(peers[l]) > 1 {
			who = "PEs "
		}
		lines = append(lines, who+peRanges(peers[l])+": "+l)
	}
	out := strings.Join(lines, "\n")
	if len(out) > limit {
		out = out[:limit-3] + "..."
	}
	return out
}

// peRanges writes ascending PE numbers as ranges: 2-4,7.
func peRanges(pes []int) string {
	var b strings.Builder
	for i := 0; i < len(pes); {
		j := i
		for j+1 < len(pes) && pes[j+1] == pes[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		if j > i {
			fmt.Fprintf(&b, "%d-%d", pes[i], pes[j])
		} else {
			fmt.Fprintf(&b, "%d", pes[i])
		}
		i = j + 1
	}
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
