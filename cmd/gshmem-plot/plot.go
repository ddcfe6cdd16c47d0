package main

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
// Rows of size 0 have no place on the logarithmic size axis and are left
// out (a barrier's only row is drawn as a bar).
func Plot(file string, rows []Row) (err error) {
	defer func() {
		if r := recover(); r != nil { // gonum/plot panics on data it cannot scale
			err = fmt.Errorf("%w: %v", errPlot, r)
		}
	}()
	if err := CheckFile(file); err != nil {
		return err
	}
	if len(rows) == 0 {
		return fmt.Errorf("%w: no rows", errPlot)
	}
	// Rows from before the kind was written: the bandwidth tests end in _bw.
	bandwidth := rows[0].Kind == "bandwidth" || rows[0].Kind == "" && strings.HasSuffix(rows[0].Test, "_bw")
	p := plot.New()
	p.Title.Text = fmt.Sprintf("gshmem perf %s (%d PEs)", rows[0].Test, rows[0].PEs)
	p.X.Label.Text = "message size (bytes)"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = sizeTicks{}
	value := func(r Row) float64 { return r.LatencyUS }
	p.Y.Label.Text = "latency (us)"
	if bandwidth {
		value = func(r Row) float64 { return r.BandwidthGBps }
		p.Y.Label.Text = "bandwidth (GB/s)"
	}
	positive := true
	var order []string
	series := map[string]plotter.XYs{}
	if oneSize(rows) {
		// One size per op (atomics, signals, a barrier's size 0): bars.
		return barPlot(p, file, rows, value)
	}
	for _, r := range rows {
		if r.Size <= 0 {
			continue
		}
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
	if len(order) == 0 {
		return fmt.Errorf("%w: no row has a size above 0", errPlot)
	}
	if !bandwidth && positive {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	var args []any
	for _, name := range order {
		args = append(args, name, series[name])
	}
	if err := plotutil.AddLinePoints(p, args...); err != nil {
		return fmt.Errorf("%w: %w", errPlot, err)
	}
	p.Legend.Top = bandwidth
	p.Add(plotter.NewGrid())
	return save(p, file)
}

func oneSize(rows []Row) bool {
	for _, r := range rows {
		if r.Size != rows[0].Size {
			return false
		}
	}
	return true
}

// barPlot draws one bar per row (an op of a fixed-size test) instead of
// curves over sizes.
func barPlot(p *plot.Plot, file string, rows []Row, value func(Row) float64) error {
	vals := make(plotter.Values, len(rows))
	labels := make([]string, len(rows))
	for i, r := range rows {
		vals[i] = value(r)
		labels[i] = r.Op
		if labels[i] == "" {
			labels[i] = r.Test
		}
	}
	bars, err := plotter.NewBarChart(vals, vg.Points(14))
	if err != nil {
		return fmt.Errorf("%w: %w", errPlot, err)
	}
	p.Add(bars, plotter.NewGrid())
	p.X.Scale, p.X.Tick.Marker = plot.LinearScale{}, plot.DefaultTicks{}
	p.NominalX(labels...)
	p.X.Label.Text = fmt.Sprintf("%d-byte operations", rows[0].Size)
	p.X.Tick.Label.Rotation = 0.6
	p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = -1, -0.5
	return save(p, file)
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
