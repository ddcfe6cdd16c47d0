package perf

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Plot draws rows as curves over message size into file (the format
// follows the extension: .png, .svg, .pdf). Bandwidth tests plot GB/s,
// latency tests microseconds (log scale); each test and op is one curve.
func Plot(file string, rows []Row) (err error) {
	defer func() {
		if r := recover(); r != nil { // gonum/plot panics on data it cannot scale
			err = fmt.Errorf("perf: plotting: %v", r)
		}
	}()
	if len(rows) == 0 {
		return fmt.Errorf("perf: nothing to plot")
	}
	kind := Latency
	if t, ok := Lookup(rows[0].Test); ok {
		kind = t.Kind
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("gshmem perf %s (%d PEs)", rows[0].Test, rows[0].PEs)
	p.X.Label.Text = "message size (bytes)"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = sizeTicks{}
	value := func(r Row) float64 { return r.LatencyUS }
	p.Y.Label.Text = "latency (us)"
	if kind == Bandwidth {
		value = func(r Row) float64 { return r.BandwidthGBps }
		p.Y.Label.Text = "bandwidth (GB/s)"
	}
	positive := true
	var order []string
	series := map[string]plotter.XYs{}
	for _, r := range rows {
		name := r.Test
		if r.Op != "" {
			name += " " + r.Op
		}
		if _, ok := series[name]; !ok {
			order = append(order, name)
		}
		v := value(r)
		positive = positive && v > 0
		series[name] = append(series[name], plotter.XY{X: float64(r.Size), Y: v})
	}
	if len(order) > 1 && oneSize(rows) {
		return barPlot(p, file, order, series)
	}
	if kind == Latency && positive {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	var args []any
	for _, name := range order {
		args = append(args, name, series[name])
	}
	if err := plotutil.AddLinePoints(p, args...); err != nil {
		return fmt.Errorf("perf: plotting: %w", err)
	}
	p.Legend.Top = kind == Bandwidth
	p.Add(plotter.NewGrid())
	if err := p.Save(8*vg.Inch, 5*vg.Inch, file); err != nil {
		return fmt.Errorf("perf: writing the plot: %w", err)
	}
	return nil
}

func oneSize(rows []Row) bool {
	for _, r := range rows {
		if r.Size != rows[0].Size {
			return false
		}
	}
	return true
}

// barPlot draws one bar per series (an op of a fixed-size test) instead of
// curves over sizes.
func barPlot(p *plot.Plot, file string, order []string, series map[string]plotter.XYs) error {
	vals := make(plotter.Values, len(order))
	for i, name := range order {
		vals[i] = series[name][0].Y
	}
	bars, err := plotter.NewBarChart(vals, vg.Points(14))
	if err != nil {
		return fmt.Errorf("perf: plotting: %w", err)
	}
	p.Add(bars, plotter.NewGrid())
	p.X.Scale, p.X.Tick.Marker = plot.LinearScale{}, plot.DefaultTicks{}
	labels := make([]string, len(order))
	for i, name := range order {
		labels[i] = name[strings.LastIndex(name, " ")+1:] // the op
	}
	p.NominalX(labels...)
	p.X.Label.Text = fmt.Sprintf("%d-byte operations", int(series[order[0]][0].X))
	p.X.Tick.Label.Rotation = 0.6
	p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = -1, -0.5
	if err := p.Save(8*vg.Inch, 5*vg.Inch, file); err != nil {
		return fmt.Errorf("perf: writing the plot: %w", err)
	}
	return nil
}

// sizeTicks labels powers of two on a log axis as 8, 1K, 64K, 4M.
type sizeTicks struct{}

func (sizeTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	start := math.Floor(math.Log2(math.Max(lo, 1)))
	end := math.Ceil(math.Log2(math.Max(hi, 1)))
	every := math.Max(1, math.Ceil((end-start+1)/12))
	for e := start; e <= end; e++ {
		v := math.Exp2(e)
		label := ""
		if math.Mod(e-start, every) == 0 {
			label = sizeLabel(int64(v))
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: label})
	}
	return ticks
}

func sizeLabel(v int64) string {
	switch {
	case v >= 1<<30 && v%(1<<30) == 0:
		return fmt.Sprintf("%dG", v>>30)
	case v >= 1<<20 && v%(1<<20) == 0:
		return fmt.Sprintf("%dM", v>>20)
	case v >= 1<<10 && v%(1<<10) == 0:
		return fmt.Sprintf("%dK", v>>10)
	}
	return fmt.Sprint(v)
}
