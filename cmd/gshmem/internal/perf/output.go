package perf

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
)

// Row is one line of results: one test at one size. Its JSON form is a flat
// object with the keys below plus those of Extra, so that tools can read
// results without knowing every test.
type Row struct {
	Test string `json:"test"`
	// Kind is the test's figure, "latency" or "bandwidth": the column a
	// plot draws (gshmem-plot reads it without knowing the tests).
	Kind          string  `json:"kind,omitempty"`
	Size          int     `json:"size"`           // bytes per message
	LatencyUS     float64 `json:"latency_us"`     // mean microseconds per operation
	BandwidthGBps float64 `json:"bandwidth_gbps"` // 1e9 bytes per second
	MsgRate       float64 `json:"msgs_per_s"`     // operations per second
	PEs           int     `json:"pes"`
	Iters         int     `json:"iters"` // timed operations
	Op            string  `json:"op,omitempty"`
	Datatype      string  `json:"datatype,omitempty"`
	Window        int     `json:"window,omitempty"`
	// WinFlavor and Sync are the window flavor and the epoch pattern of
	// the win_* tests.
	WinFlavor string `json:"win_flavor,omitempty"`
	Sync      string `json:"sync,omitempty"`
	// MinUS and MedianUS are the fastest and the median of up to 16 batches
	// of the timed loop (latency tests).
	MinUS    float64 `json:"min_latency_us,omitempty"`
	MedianUS float64 `json:"median_latency_us,omitempty"`
	// Extra holds test-specific figures (round trip, best batch bandwidth).
	Extra map[string]float64 `json:"-"`
}

type rowFields Row // Row without its methods

// MarshalJSON writes the row as one flat object.
func (r Row) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(rowFields(r))
	if err != nil || len(r.Extra) == 0 {
		return b, err
	}
	m := map[string]any{}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, v := range r.Extra {
		if _, clash := m[k]; !clash {
			m[k] = v
		}
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads a row; numeric keys it does not know go to Extra.
func (r *Row) UnmarshalJSON(b []byte) error {
	var f rowFields
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	known := map[string]bool{}
	for _, k := range []string{"test", "kind", "size", "latency_us", "bandwidth_gbps", "msgs_per_s", "pes", "iters",
		"op", "datatype", "window", "win_flavor", "sync", "min_latency_us", "median_latency_us"} {
		known[k] = true
	}
	for k, v := range m {
		if x, ok := v.(float64); ok && !known[k] {
			if f.Extra == nil {
				f.Extra = map[string]float64{}
			}
			f.Extra[k] = x
		}
	}
	*r = Row(f)
	return nil
}

// WriteJSON writes rows as one JSON array.
func WriteJSON(out io.Writer, rows []Row) error {
	if rows == nil {
		rows = []Row{}
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(rows)
}

// WriteJSONFile writes rows to the file name.
func WriteJSONFile(name string, rows []Row) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := WriteJSON(f, rows); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ReadJSON reads an array written by WriteJSON.
func ReadJSON(in io.Reader) ([]Row, error) {
	var rows []Row
	err := json.NewDecoder(in).Decode(&rows)
	return rows, err
}

// WriteTable prints rows as the perftests do: a header naming the test,
// then size, latency, bandwidth and message rate, one line per size.
func WriteTable(out io.Writer, rows []Row) error {
	tw := tabwriter.NewWriter(out, 4, 4, 2, ' ', tabwriter.AlignRight)
	var last string
	for _, r := range rows {
		if h := header(r); h != last {
			if last != "" {
				fmt.Fprintln(tw)
			}
			last = h
			fmt.Fprintln(tw, h)
			fmt.Fprintln(tw, "size (B)\tlatency (us)\tbandwidth (GB/s)\tmessages/s\t")
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t\n", r.Size, fmtFloat(r.LatencyUS), fmtFloat(r.BandwidthGBps), fmtRate(r.MsgRate))
	}
	return tw.Flush()
}

func header(r Row) string {
	parts := []string{"# " + r.Test, fmt.Sprintf("%d PEs", r.PEs)}
	if r.WinFlavor != "" {
		parts = append(parts, r.WinFlavor+" window", "sync "+r.Sync)
	}
	if r.Op != "" {
		parts = append(parts, "op "+r.Op)
	}
	if r.Datatype != "" {
		parts = append(parts, r.Datatype)
	}
	if r.Window > 0 {
		parts = append(parts, fmt.Sprintf("window %d", r.Window))
	}
	return strings.Join(parts, ", ")
}

func fmtFloat(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v < 0.01:
		return fmt.Sprintf("%.4f", v)
	case v < 100:
		return fmt.Sprintf("%.3f", v)
	default:
		return fmt.Sprintf("%.1f", v)
	}
}

func fmtRate(v float64) string {
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%.2fG", v/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%.2fM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.2fk", v/1e3)
	default:
		return fmt.Sprintf("%.1f", v)
	}
}
