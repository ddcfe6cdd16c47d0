package bootstrap

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The PMI wire formats, as MPICH's Hydra and Slurm's pmi2 plugin speak them
// (see the launcher findings in the project's reference notes):
//
//   - PMI-1: one line per message, "cmd=NAME key=value key=value\n". Fields
//     may come in any order ("rc" is first in Slurm's replies and last in
//     Hydra's), "msg=" is optional, and values hold no spaces.
//   - PMI-2: a 6-character decimal length, then that many bytes of
//     "cmd=NAME;key=value;...;". Clients left-justify the length ("38    "),
//     Hydra right-justifies its replies ("   113"), Slurm left-justifies them;
//     a ';' inside a value is written ";;".
//
// Both parsers are total: any input gives a message or an error, never a
// panic, and neither allocates more than the input's size.

// ErrPMIProtocol wraps every malformed or unexpected PMI message.
var ErrPMIProtocol = errors.New("bootstrap: PMI protocol error")

// maxPMILine bounds one PMI-1 line and one PMI-2 message. Real messages are
// at most a few kilobytes (vallen_max is 1024 in Hydra and Slurm).
const maxPMILine = 64 << 10

// pmiMsg is one parsed PMI message: its command and its fields.
type pmiMsg struct {
	cmd    string
	fields map[string]string
}

func (m pmiMsg) get(k string) (string, bool) {
	v, ok := m.fields[k]
	return v, ok
}

// rc returns the message's return code; a message without one succeeded
// (Hydra's barrier_out and finalize_ack carry none).
func (m pmiMsg) rc() (int, error) {
	v, ok := m.fields["rc"]
	if !ok {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("%w: %s with rc=%q", ErrPMIProtocol, m.cmd, v)
	}
	return n, nil
}

func (m pmiMsg) String() string {
	var b strings.Builder
	b.WriteString("cmd=" + m.cmd)
	for k, v := range m.fields {
		b.WriteString(" " + k + "=" + v)
	}
	return b.String()
}

// parsePMI1 parses one PMI-1 line (with or without its newline).
func parsePMI1(line string) (pmiMsg, error) {
	line = strings.TrimRight(line, "\r\n")
	if len(line) > maxPMILine {
		return pmiMsg{}, fmt.Errorf("%w: PMI-1 line of %d bytes", ErrPMIProtocol, len(line))
	}
	m := pmiMsg{fields: map[string]string{}}
	for _, tok := range strings.Fields(line) {
		k, v, ok := strings.Cut(tok, "=")
		if !ok || k == "" {
			return pmiMsg{}, fmt.Errorf("%w: PMI-1 field %q has no key=value form in %q", ErrPMIProtocol, clip(tok), clip(line))
		}
		if k == "cmd" && m.cmd == "" {
			m.cmd = v
			continue
		}
		m.fields[k] = v
	}
	if m.cmd == "" {
		return pmiMsg{}, fmt.Errorf("%w: PMI-1 line without cmd=: %q", ErrPMIProtocol, clip(line))
	}
	return m, nil
}

// formatPMI1 writes a PMI-1 request; keys are written in the order given.
func formatPMI1(cmd string, kv ...string) string {
	var b strings.Builder
	b.WriteString("cmd=" + cmd)
	for i := 0; i+1 < len(kv); i += 2 {
		b.WriteString(" " + kv[i] + "=" + kv[i+1])
	}
	b.WriteByte('\n')
	return b.String()
}

// readPMI1 reads one newline-terminated line.
func readPMI1(r *bufio.Reader) (pmiMsg, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxPMILine {
			return pmiMsg{}, fmt.Errorf("%w: PMI-1 line longer than %d bytes", ErrPMIProtocol, maxPMILine)
		}
		if err == nil {
			break
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) {
			if len(line) == 0 {
				return pmiMsg{}, io.EOF
			}
			return pmiMsg{}, io.ErrUnexpectedEOF
		}
		return pmiMsg{}, err
	}
	return parsePMI1(string(line))
}

// parsePMI2 parses a PMI-2 message body (after the length header).
func parsePMI2(body string) (pmiMsg, error) {
	if len(body) > maxPMILine {
		return pmiMsg{}, fmt.Errorf("%w: PMI-2 message of %d bytes", ErrPMIProtocol, len(body))
	}
	m := pmiMsg{fields: map[string]string{}}
	i := 0
	for i < len(body) {
		eq := strings.IndexByte(body[i:], '=')
		if eq < 0 {
			if strings.TrimSpace(body[i:]) == "" {
				break
			}
			return pmiMsg{}, fmt.Errorf("%w: PMI-2 field %q has no key=value form", ErrPMIProtocol, clip(body[i:]))
		}
		key := body[i : i+eq]
		if key == "" || strings.ContainsRune(key, ';') {
			return pmiMsg{}, fmt.Errorf("%w: PMI-2 bad key %q in %q", ErrPMIProtocol, clip(key), clip(body))
		}
		i += eq + 1
		var val strings.Builder
		for i < len(body) {
			c := body[i]
			if c == ';' {
				if i+1 < len(body) && body[i+1] == ';' { // escaped ';'
					val.WriteByte(';')
					i += 2
					continue
				}
				i++
				break
			}
			val.WriteByte(c)
			i++
		}
		if key == "cmd" && m.cmd == "" {
			m.cmd = val.String()
			continue
		}
		m.fields[key] = val.String()
	}
	if m.cmd == "" {
		return pmiMsg{}, fmt.Errorf("%w: PMI-2 message without cmd=: %q", ErrPMIProtocol, clip(body))
	}
	return m, nil
}

// formatPMI2 frames a PMI-2 request the way MPICH's and Slurm's clients do:
// the body length left-justified in 6 characters, then the body.
func formatPMI2(cmd string, kv ...string) []byte {
	var b strings.Builder
	b.WriteString("cmd=" + cmd + ";")
	for i := 0; i+1 < len(kv); i += 2 {
		b.WriteString(kv[i] + "=" + strings.ReplaceAll(kv[i+1], ";", ";;") + ";")
	}
	body := b.String()
	return []byte(fmt.Sprintf("%-6d%s", len(body), body))
}

// parsePMI2Len reads the 6-character length header, with spaces on either
// side (Hydra: "   113", Slurm: "114   ").
func parsePMI2Len(hdr []byte) (int, error) {
	s := strings.TrimSpace(string(hdr))
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || strings.ContainsAny(s, " +-") {
		return 0, fmt.Errorf("%w: PMI-2 length header %q", ErrPMIProtocol, hdr)
	}
	if n > maxPMILine {
		return 0, fmt.Errorf("%w: PMI-2 message of %d bytes (limit %d)", ErrPMIProtocol, n, maxPMILine)
	}
	return n, nil
}

// readPMI2 reads one length-prefixed PMI-2 message.
func readPMI2(r io.Reader) (pmiMsg, error) {
	var hdr [6]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return pmiMsg{}, err
	}
	n, err := parsePMI2Len(hdr[:])
	if err != nil {
		return pmiMsg{}, err
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return pmiMsg{}, err
	}
	return parsePMI2(string(body))
}

// parseProcessMapping decodes PMI_process_mapping, "(vector,(start,nodes,ppn),...)":
// each triple says that nodes consecutive nodes from start hold ppn
// consecutive ranks each, repeated round-robin until size ranks are placed.
// It returns the node of every rank.
func parseProcessMapping(s string, size int) ([]int, error) {
	bad := func(why string) error {
		return fmt.Errorf("%w: PMI_process_mapping %q: %s", ErrPMIProtocol, clip(s), why)
	}
	if size < 1 {
		return nil, bad("job size below 1")
	}
	t := strings.ReplaceAll(s, " ", "")
	if !strings.HasPrefix(t, "(vector,") || !strings.HasSuffix(t, ")") {
		return nil, bad("not a (vector,...) mapping")
	}
	t = t[len("(vector,") : len(t)-1]
	type block struct{ start, nodes, ppn int }
	var blocks []block
	for t != "" {
		if t[0] == ',' {
			t = t[1:]
			continue
		}
		if t[0] != '(' {
			return nil, bad("expected '('")
		}
		end := strings.IndexByte(t, ')')
		if end < 0 {
			return nil, bad("unterminated triple")
		}
		parts := strings.Split(t[1:end], ",")
		if len(parts) != 3 {
			return nil, bad("a triple needs 3 numbers")
		}
		var v [3]int
		for i, p := range parts {
			n, err := strconv.Atoi(p)
			if err != nil || n < 0 || n > 1<<24 {
				return nil, bad("bad number")
			}
			v[i] = n
		}
		if v[1] == 0 || v[2] == 0 {
			return nil, bad("zero nodes or ranks per node")
		}
		blocks = append(blocks, block{v[0], v[1], v[2]})
		t = t[end+1:]
	}
	if len(blocks) == 0 {
		return nil, bad("no triples")
	}
	nodes := make([]int, size)
	r := 0
	for r < size {
		for _, b := range blocks {
			for n := 0; n < b.nodes && r < size; n++ {
				for k := 0; k < b.ppn && r < size; k++ {
					nodes[r] = b.start + n
					r++
				}
			}
		}
	}
	return nodes, nil
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}
