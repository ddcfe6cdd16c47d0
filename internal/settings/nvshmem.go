package settings

import (
	"slices"
	"sort"
	"strings"
)

// nvshmemIgnored are NVSHMEM's variables that mean nothing here, each with
// why: the C library names the set ones once, so a user who tuned them
// learns that they do nothing rather than guess.
var nvshmemIgnored = map[string]string{
	"NVSHMEM_BOOTSTRAP":             "gshmem finds its launcher itself (GSHMEM_BOOTSTRAP)",
	"NVSHMEM_BOOTSTRAP_PMI":         "gshmem finds its launcher itself (GSHMEM_BOOTSTRAP)",
	"NVSHMEM_BOOTSTRAP_MPI_PLUGIN":  "the MPI is this library's own",
	"NVSHMEM_INFO":                  "gshmem info prints the settings",
	"NVSHMEM_DISABLE_NVLS":          "no NVLink multicast is used",
	"NVSHMEM_DISABLE_CUDA_VMM":      "the heap is one cuMemAlloc region",
	"NVSHMEM_CUMEM_GRANULARITY":     "the heap is one cuMemAlloc region",
	"NVSHMEM_IB_ENABLE_IBGDA":       "no InfiniBand transport of NVSHMEM's",
	"NVSHMEM_ENABLE_NIC_PE_MAPPING": "no InfiniBand transport of NVSHMEM's",
}

// NVSHMEMRows are the rows whose variable has an NVSHMEM twin.
func NVSHMEMRows() []Var {
	var out []Var
	for _, v := range table {
		if v.NVSHMEM != "" {
			out = append(out, v)
		}
	}
	return out
}

// Translation is a GSHMEM_* value taken from its NVSHMEM twin.
type Translation struct {
	Name, Value string // the GSHMEM_ variable and its value
	From        string // the NVSHMEM_ variable it came from
}

// NVSHMEM reads environ (NAME=value entries) as an NVSHMEM program's: each
// NVSHMEM_* variable with a twin whose GSHMEM_* row is unset there gives
// that row its value (translated by NVSHMEMValues; a value the map does
// not hold is an *Error naming the NVSHMEM variable); ignored names the
// other NVSHMEM_* variables set, sorted, with why.
func NVSHMEM(environ []string) (set []Translation, ignored []string, err error) {
	env := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	twins := map[string]bool{}
	for _, row := range NVSHMEMRows() {
		twins[row.NVSHMEM] = true
		nv, ok := env[row.NVSHMEM]
		if !ok || nv == "" {
			continue
		}
		if _, have := env[row.Name]; have {
			continue // gshmem's own name wins
		}
		val := nv
		if row.NVSHMEMValues != nil {
			m, ok := row.NVSHMEMValues[strings.ToUpper(strings.TrimSpace(nv))]
			if !ok {
				keys := make([]string, 0, len(row.NVSHMEMValues))
				for k := range row.NVSHMEMValues {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				return nil, nil, &Error{Name: row.NVSHMEM, Value: nv, Want: strings.Join(keys, ", ")}
			}
			if m == "" {
				ignored = append(ignored, row.NVSHMEM+"="+nv+" (no such transport here: "+row.Name+" keeps its default)")
				continue
			}
			val = m
		}
		if err := row.Check(val); err != nil {
			return nil, nil, &Error{Name: row.NVSHMEM, Value: nv, Want: row.want()}
		}
		set = append(set, Translation{Name: row.Name, Value: val, From: row.NVSHMEM})
	}
	for k := range env {
		if !strings.HasPrefix(k, "NVSHMEM_") || twins[k] {
			continue
		}
		why, ok := nvshmemIgnored[k]
		if !ok {
			why = "not an NVSHMEM setting gshmem knows"
		}
		ignored = append(ignored, k+" ("+why+")")
	}
	slices.Sort(ignored)
	return set, ignored, nil
}
