package bootstrap

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
)

// Seeds: lines and messages recorded from Hydra 4.0.2 and Slurm 22.05's pmi2
// plugin (reference/launchers/transcripts), plus broken variants.
var pmi1Seeds = []string{
	"cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n",
	"cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1\n",
	"cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024\n",
	"cmd=my_kvsname kvsname=kvs_8590_0_531344947_vm\n",
	"cmd=universe_size size=-1\n",
	"cmd=put_result rc=0 msg=success\n",
	"cmd=barrier_out\n",
	"cmd=get_result rc=0 msg=success value=v1\n",
	"cmd=get_result rc=-1 msg=key_nokey_not_found value=unknown\n",
	"cmd=get_result rc=1\n",
	"cmd=initack\ncmd=set size=2\ncmd=set rank=0\ncmd=set debug=0\n",
	"cmd=finalize_ack rc=0\n",
	"cmd=get_result rc=0 msg=success value=2064FD47B778332E13200063\n",
	"cmd\n", "=x\n", "cmd=a b\n", "rc=0\n", "cmd=x rc=zz\n", "\n", "",
}

func FuzzPMI1(f *testing.F) {
	for _, s := range pmi1Seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := bufio.NewReaderSize(strings.NewReader(s), 16)
		for i := 0; i < 64; i++ {
			m, err := readPMI1(r)
			if err != nil {
				break
			}
			if m.cmd == "" {
				t.Fatalf("parsed a message without cmd from %q", s)
			}
			_, _ = m.rc()
			_ = expect(m, "get_result")
		}
		m, err := parsePMI1(s)
		if err == nil && strings.ContainsAny(m.cmd, " \n") {
			t.Fatalf("cmd %q holds a separator", m.cmd)
		}
	})
}

var pmi2Seeds = []string{
	"   113cmd=fullinit-response;pmi-version=2;pmi-subversion=0;rank=0;size=2;appnum=0;debugged=FALSE;pmiverbose=FALSE;rc=0;",
	"114   cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;rank=0;size=2;appnum=-1;debugged=FALSE;pmiverbose=FALSE;",
	"    58cmd=job-getid-response;jobid=kvs_8796_0_794210678_vm;rc=0;",
	"68    cmd=info-getjobattr-response;rc=0;found=TRUE;value=(vector,(0,1,2));",
	"    46cmd=kvs-get-response;found=TRUE;value=v1;rc=0;",
	"38    cmd=kvs-get-response;rc=0;found=FALSE;",
	"27    cmd=finalize-response;rc=0;",
	"21    cmd=x;value=a;;b;;;;",
	"999999cmd=x;", "-1    cmd=x;", "      ", "5     cmd=x", "3     a=b",
}

func FuzzPMI2(f *testing.F) {
	for _, s := range pmi2Seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bytes.NewReader(b)
		for i := 0; i < 64; i++ {
			m, err := readPMI2(r)
			if err != nil {
				break
			}
			if m.cmd == "" {
				t.Fatalf("parsed a message without cmd from %q", b)
			}
			if v, ok := m.get("value"); ok {
				// Round trip: a value formatted and parsed again is unchanged.
				out := formatPMI2("x", "value", v)
				m2, err := readPMI2(bytes.NewReader(out))
				if err != nil || m2.fields["value"] != v {
					t.Fatalf("value %q does not round-trip (%v)", v, err)
				}
			}
			if v, ok := m.get("value"); ok && strings.HasPrefix(v, "(vector") {
				_, _ = parseProcessMapping(v, 1+len(b)%64)
			}
		}
	})
}

func FuzzProcessMapping(f *testing.F) {
	for _, s := range []string{"(vector,(0,1,1))", "(vector,(0,2,1))", "(vector,(0,3,2))", "(vector,(0,1,3),(1,1,1))", "(vector,(0,16777216,1))", "(vector,)"} {
		f.Add(s, 6)
	}
	f.Fuzz(func(t *testing.T, s string, size int) {
		size = 1 + (size&0x7fffffff)%4096
		nodes, err := parseProcessMapping(s, size)
		if err == nil && len(nodes) != size {
			t.Fatalf("%d nodes for %d ranks", len(nodes), size)
		}
	})
}

func FuzzRendezvous(f *testing.F) {
	var buf bytes.Buffer
	_ = writeRdv(&buf, rdvChallenge, make([]byte, 32))
	_ = writeRdv(&buf, rdvHello, encodeHello(rdvHelloMsg{rank: 1, size: 4}))
	_ = writeRdv(&buf, rdvGather, encodeGather(3, []byte("data")))
	_ = writeRdv(&buf, rdvResult, encodeResult(3, [][]byte{[]byte("a"), nil, []byte("ccc"), {}}))
	_ = writeRdv(&buf, rdvAbort, encodeAbort(-1, "bye"))
	f.Add(buf.Bytes())
	f.Add([]byte{0, 0, 0, 0})
	f.Add([]byte{255, 255, 255, 255, 5})
	f.Add([]byte{9, 0, 0, 0, 5, 1, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bytes.NewReader(b)
		for i := 0; i < 32; i++ {
			typ, p, err := readRdv(r)
			if err != nil {
				return
			}
			switch typ {
			case rdvHello:
				if h, err := decodeHello(p); err == nil && !bytes.Equal(encodeHello(h), p) {
					t.Fatalf("hello does not round-trip")
				}
			case rdvGather:
				if seq, d, err := decodeGather(p); err == nil && !bytes.Equal(encodeGather(seq, d), p) {
					t.Fatalf("gather does not round-trip")
				}
			case rdvResult:
				for _, n := range []int{1, 2, 4} {
					if seq, e, err := decodeResult(p, n); err == nil && !bytes.Equal(encodeResult(seq, e), p) {
						t.Fatalf("result does not round-trip")
					}
				}
			case rdvAbort:
				_, _, _ = decodeAbort(p)
			}
		}
	})
}
