package compat

import (
	"os"
	"strconv"
	"strings"
)

// fileHints are the info hints a File takes (MPI-4.1 section 14.2.8's
// reserved keys, and the ROMIO-style switches MPI codes set by name). A
// value the File cannot take is ignored, keeping the previous one, as MPI
// lets an implementation ignore any hint.
type fileHints struct {
	cbBufferSize   int    // cb_buffer_size: bytes an aggregator moves per round
	cbNodes        int    // cb_nodes: aggregators; 0 is one per node
	cbRead         string // romio_cb_read: enable, disable, automatic
	cbWrite        string // romio_cb_write
	dsRead         string // romio_ds_read: data sieving of independent reads
	dsWrite        string // romio_ds_write
	indRdBuffer    int    // ind_rd_buffer_size: a sieving read's window
	indWrBuffer    int    // ind_wr_buffer_size: a sieving write's window
	stripingUnit   int    // striping_unit: reported, and the file domains' alignment
	stripingFactor int    // striping_factor: reported
	accessStyle    string // access_style: reported
	perm           os.FileMode
}

// FileHintDefaults lists the hints a File uses when info does not set
// them, by key, as File.Info reports them (gshmem info prints them).
func FileHintDefaults() Info { return defaultHints().info("") }

func defaultHints() fileHints {
	return fileHints{
		cbBufferSize: 16 << 20,
		cbRead:       "automatic",
		cbWrite:      "automatic",
		dsRead:       "automatic",
		dsWrite:      "automatic",
		indRdBuffer:  4 << 20,
		indWrBuffer:  512 << 10,
		stripingUnit: 1 << 20,
		perm:         0o644,
	}
}

func parseHints(info Info, h fileHints) (fileHints, error) {
	size := func(s string, dst *int) {
		if v, err := strconv.Atoi(s); err == nil && v > 0 {
			*dst = v
		}
	}
	mode := func(s string, dst *string) {
		switch s = strings.ToLower(s); s {
		case "enable", "disable", "automatic":
			*dst = s
		}
	}
	for k, v := range info {
		switch k {
		case "cb_buffer_size":
			size(v, &h.cbBufferSize)
		case "cb_nodes":
			size(v, &h.cbNodes)
		case "romio_cb_read":
			mode(v, &h.cbRead)
		case "romio_cb_write":
			mode(v, &h.cbWrite)
		case "collective_buffering":
			switch strings.ToLower(v) {
			case "true":
				h.cbRead, h.cbWrite = "enable", "enable"
			case "false":
				h.cbRead, h.cbWrite = "disable", "disable"
			}
		case "romio_ds_read":
			mode(v, &h.dsRead)
		case "romio_ds_write":
			mode(v, &h.dsWrite)
		case "ind_rd_buffer_size":
			size(v, &h.indRdBuffer)
		case "ind_wr_buffer_size":
			size(v, &h.indWrBuffer)
		case "striping_unit":
			size(v, &h.stripingUnit)
		case "striping_factor":
			size(v, &h.stripingFactor)
		case "access_style":
			h.accessStyle = v
		case "file_perm":
			if p, err := parsePerm(v); err == nil {
				h.perm = p
			}
		}
	}
	return h, nil
}

// info is the hints as an Info, as MPI_File_get_info gives them.
func (h fileHints) info(path string) Info {
	in := Info{
		"cb_buffer_size":     strconv.Itoa(h.cbBufferSize),
		"romio_cb_read":      h.cbRead,
		"romio_cb_write":     h.cbWrite,
		"romio_ds_read":      h.dsRead,
		"romio_ds_write":     h.dsWrite,
		"ind_rd_buffer_size": strconv.Itoa(h.indRdBuffer),
		"ind_wr_buffer_size": strconv.Itoa(h.indWrBuffer),
		"striping_unit":      strconv.Itoa(h.stripingUnit),
		"file_perm":          "0" + strconv.FormatUint(uint64(h.perm), 8),
	}
	if h.cbNodes > 0 {
		in["cb_nodes"] = strconv.Itoa(h.cbNodes)
	}
	if h.stripingFactor > 0 {
		in["striping_factor"] = strconv.Itoa(h.stripingFactor)
	}
	if h.accessStyle != "" {
		in["access_style"] = h.accessStyle
	}
	if path != "" {
		in["filename"] = path
	}
	return in
}

// Info returns the hints the file uses (MPI_File_get_info): every hint
// with its current value, set or default.
func (f *File) Info() (Info, error) {
	if err := f.check("Info"); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	in := f.hints.info(f.path)
	if f.comm.Size() > 0 && in["cb_nodes"] == "" {
		in["cb_nodes"] = strconv.Itoa(len(f.aggregators()))
	}
	return in, nil
}

// SetInfo changes the file's hints (MPI_File_set_info); collective. Keys
// the file does not take are ignored.
func (f *File) SetInfo(info Info) error {
	if err := f.check("SetInfo"); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	h, err := parseHints(info, f.hints)
	if err != nil {
		return err
	}
	f.hints = h
	f.aggs = nil
	return nil
}
