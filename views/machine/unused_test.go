package machine

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/internal/simgrid"
)

// A setting the chosen model ignores is greyed and says "not used by
// <model>", and the footer no longer calls it simply valid (once routing
// "adaptive" under the puppet model showed "✓ valid" and vanished from the
// run's label).
func TestUnusedSettingsSaySo(t *testing.T) {
	tests := []struct {
		model, key, value string
		says              string // on the setting's line; "" for its help
	}{
		{"puppet", "routing", "adaptive", "not used by puppet"},
		{"loggops", "switching", "wormhole", "not used by loggops"},
		{"packet", "routing", "adaptive", ""},
	}
	for _, tc := range tests {
		t.Run(tc.model+" "+tc.key, func(t *testing.T) {
			m, _ := newMachine(t, 16)
			if tc.model == "packet" {
				m.apply("topology", "torus:4x4")
			}
			m.apply("model", tc.model)
			m.apply(tc.key, tc.value)
			m.Select(tc.key)
			v := ansi.Strip(m.View())
			var line string
			for _, l := range strings.Split(v, "\n") {
				if strings.Contains(l, " "+tc.key+" ") {
					line = l
				}
			}
			if line == "" {
				t.Fatalf("no %s line:\n%s", tc.key, v)
			}
			if tc.says != "" {
				if !strings.Contains(line, tc.says) {
					t.Errorf("%s line %q does not say %q", tc.key, line, tc.says)
				}
				if !strings.Contains(v, "✓ valid, but "+tc.key+" is "+tc.says) {
					t.Errorf("the footer does not say %s changes nothing:\n%s", tc.key, v)
				}
			} else if strings.Contains(line, "not used") {
				t.Errorf("%s line %q says it is not used", tc.key, line)
			}
		})
	}
}

// TestGreyedRowsAreUnused: on the rendered form, a setting's row is greyed
// ("not used by …" in place of its help) exactly when replay.Unused says
// the configuration ignores it — the table `tracesim sim` refuses flags
// by — for every row, under every model, with and without a platform
// (whose links decide whether the simgrid model reads crosstraffic, known
// once the form's check has read the file). The rows the audit found
// wrongly live must be greyed: loggops's topology, bandwidth and hops, the
// simgrid model's topology and hops; and the simgrid model's crosstraffic
// on a SHARED platform must not be.
func TestGreyedRowsAreUnused(t *testing.T) {
	dir := t.TempDir()
	platform := func(name, sharing string) string {
		p := filepath.Join(dir, name)
		c := simgrid.Cluster{Hosts: 16, Speed: 1e9, Bandwidth: 125e6, Latency: 5e-6, Sharing: sharing}
		if err := c.SavePlatform(p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	star, shared := platform("star.xml", ""), platform("shared.xml", "SHARED")
	tests := []struct {
		name, model, platform string
		greyed, live          []string
	}{
		{"puppet", "puppet", "", []string{"latency", "crosstraffic", "flit", "routing"}, []string{"topology", "hops", "bandwidth", "header", "placement"}},
		{"loggops", "loggops", "", []string{"topology", "bandwidth", "per-byte", "hops", "latency", "platform"}, []string{"L", "G", "placement", "eager-threshold"}},
		{"simgrid", "simgrid", "", []string{"topology", "hops", "crosstraffic", "routing"}, []string{"latency", "bandwidth", "factors", "placement"}},
		{"simgrid on a star", "simgrid", star, []string{"crosstraffic", "bandwidth", "latency", "cpu-speed"}, []string{"factors", "platform"}},
		{"simgrid on a SHARED star", "simgrid", shared, []string{"topology", "bandwidth"}, []string{"crosstraffic"}},
		{"flow", "flow", "", []string{"hops", "vcs", "link-latency", "buffer"}, []string{"topology", "routing", "crosstraffic", "weight-s"}},
		{"packet", "packet", "", []string{"hops", "crosstraffic", "envelope"}, []string{"vcs", "buffer", "latency", "link-latency"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := newMachine(t, 16)
			drive(m, m.apply("model", tc.model))
			if tc.platform != "" {
				drive(m, m.apply("platform", tc.platform))
			}
			if m.err != nil {
				t.Fatalf("configuration refused: %v", m.err)
			}
			greyed := map[string]bool{}
			for _, r := range m.rows {
				if r.set == nil {
					continue
				}
				m.Select(r.key)
				v := ansi.Strip(m.View())
				var line string
				for _, l := range strings.Split(v, "\n") {
					if strings.Contains(l, "▸ "+fmt.Sprintf("%-16s", r.key)) {
						line = l
					}
				}
				if line == "" {
					t.Fatalf("no %s row:\n%s", r.key, v)
				}
				why := replay.Unused(&m.cfg, r.key)
				greyed[r.key] = strings.Contains(line, "not used")
				if greyed[r.key] != (why != "") {
					t.Errorf("%s row %q, but Unused says %q", r.key, line, why)
				}
				if why != "" && !strings.Contains(v, "✓ valid, but "+r.key+" is not used") {
					t.Errorf("%s: the footer does not say it changes nothing:\n%s", r.key, v)
				}
			}
			for _, k := range tc.greyed {
				if !greyed[k] {
					t.Errorf("%s is not greyed", k)
				}
			}
			for _, k := range tc.live {
				if greyed[k] {
					t.Errorf("%s is greyed", k)
				}
			}
		})
	}
}

// TestPacketLatencyByHand: under the packet model the latency row is live
// because a latency typed in sets the links' latency, as --latency does
// on the command line: the link-latency row then shows it.
func TestPacketLatencyByHand(t *testing.T) {
	m, _ := newMachine(t, 16)
	drive(m, m.apply("model", "packet"))
	drive(m, m.apply("latency", "5us"))
	m.Select("link-latency")
	v := ansi.Strip(m.View())
	var line string
	for _, l := range strings.Split(v, "\n") {
		if strings.Contains(l, "▸ "+fmt.Sprintf("%-16s", "link-latency")) {
			line = l
		}
	}
	if !strings.Contains(line, "5us *") {
		t.Errorf("link-latency row %q, want 5us", line)
	}
	if !strings.Contains(v, "link-latency: 5us — the packet model's links take a latency set by hand") {
		t.Errorf("no note of the link latency:\n%s", v)
	}
}
