package platform

import (
	"slices"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/engine/topology"
)

// TestCabinets: a routing="Cluster" zone of cabinets and a backbone is a
// crossbar of their hosts in declaration order with that backbone
// (SHARED), each host's links its cabinet's; cabinets of different links
// make it non-uniform, of different speeds give each host its speed.
func TestCabinets(t *testing.T) {
	p, err := parseString(t, `<zone id="world" routing="Full">
  <zone id="site" routing="Cluster">
    <cabinet id="a" prefix="a-" suffix="" radical="0-1" speed="2Gf" bw="125MBps" lat="5us"/>
    <cabinet id="b" prefix="b-" suffix="" radical="3,5" speed="2Gf" bw="100MBps" lat="10us"/>
    <backbone id="bb" bandwidth="50MBps" latency="20us"/>
  </zone>
</zone>`)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(p.Hosts, " "); got != "a-0 a-1 b-3 b-5" || p.Speed != 2e9 || p.Uniform {
		t.Errorf("hosts %s speed %g uniform %v", got, p.Speed, p.Uniform)
	}
	if p.Backbone == nil || *p.Backbone != (topology.LinkProps{Bandwidth: 50e6, Latency: 20e6}) || p.BackboneSharing != Shared || p.BackboneLine != 8 {
		t.Errorf("backbone %+v %v line %d", p.Backbone, p.BackboneSharing, p.BackboneLine)
	}
	tp := p.Topology
	for h, want := range []topology.LinkProps{{Bandwidth: 125e6, Latency: 5e6}, {Bandwidth: 125e6, Latency: 5e6}, {Bandwidth: 100e6, Latency: 10e6}, {Bandwidth: 100e6, Latency: 10e6}} {
		r, port := tp.Attach(h)
		if up, down := tp.Link(tp.InjectLink(h)).Props, tp.Link(tp.OutLink(r, port)).Props; up != want || down != want {
			t.Errorf("host %d: links %+v %+v, want %+v", h, up, down, want)
		}
	}
	if m := tp.Medium(0); m == topology.NoLink || tp.Link(m).Props != *p.Backbone {
		t.Errorf("medium %d", m)
	}
	if p.Summary != "zone site: 2 cabinets of 4 hosts in all, a 400 Mb/s, 20 µs SHARED backbone" {
		t.Errorf("summary %q", p.Summary)
	}
	if p.Speeds != nil {
		t.Errorf("speeds %v for hosts of one speed", p.Speeds)
	}
	// Cabinets, or explicit hosts, of different speeds: each host's.
	p, err = parseString(t, `<zone id="s" routing="Cluster">
  <cabinet id="a" prefix="a" suffix="" radical="0-1" speed="1Gf" bw="1GBps" lat="1us"/>
  <cabinet id="b" prefix="b" suffix="" radical="0" speed="2.5Gf" bw="1GBps" lat="1us"/>
</zone>`)
	if err != nil || !slices.Equal(p.Speeds, []float64{1e9, 1e9, 2.5e9}) || p.Speed != 1e9 || !strings.HasSuffix(p.Summary, ", hosts of 1 Gf/s to 2.5 Gf/s") {
		t.Errorf("cabinets of two speeds: %v, speeds %v, summary %q", err, p.Speeds, p.Summary)
	}
	p, err = parseString(t, `<zone id="z" routing="Full">
  <host id="a" speed="1Gf"/><host id="b" speed="2Gf"/>
  <link id="la" bandwidth="1GBps" latency="1us"/><link id="lb" bandwidth="1GBps" latency="1us"/>
  <route src="a" dst="b"><link_ctn id="la"/><link_ctn id="lb"/></route>
</zone>`)
	if err != nil || !slices.Equal(p.Speeds, []float64{1e9, 2e9}) {
		t.Errorf("explicit hosts of two speeds: %v, speeds %v", err, p.Speeds)
	}
	p, err = parseString(t, `<zone id="s" routing="Cluster">
  <cabinet id="a" prefix="h" suffix="" radical="0-3" speed="1Gf" bw="1GBps" lat="1us"/>
</zone>`)
	if err != nil || !p.Uniform || p.Backbone != nil || p.Topology.Spec() != "crossbar:4,bw=8Gb/s,lat=1us" {
		t.Errorf("one cabinet, no backbone: %v %+v", err, p)
	}
}

func TestCabinetErrors(t *testing.T) {
	cab := func(id, prefix, speed string) string {
		return `<cabinet id="` + id + `" prefix="` + prefix + `" suffix="" radical="0-1" speed="` + speed + `" bw="1GBps" lat="1us"/>`
	}
	for _, c := range []struct{ name, xml, want string }{
		{"routing", `<zone id="s" routing="Full">` + cab("a", "h", "1Gf") + `</zone>`, `p.xml:4: <zone>: routing="Full" with cabinets: expected routing="Cluster"`},
		{"same names", `<zone id="s" routing="Cluster">` + cab("a", "h", "1Gf") + cab("b", "h", "1Gf") + `</zone>`, `<cabinet>: host "h0" is already declared on line 4`},
		{"two backbones", `<zone id="s" routing="Cluster">` + cab("a", "h", "1Gf") + `
<backbone id="x" bandwidth="1GBps" latency="1us"/>
<backbone id="y" bandwidth="1GBps" latency="1us"/></zone>`, `p.xml:6: <backbone>: a second backbone (the first is on line 5)`},
		{"backbone alone", `<zone id="s" routing="Cluster"><backbone id="x" bandwidth="1GBps" latency="1us"/></zone>`, `<backbone>: a backbone without cabinets is not modelled`},
		{"mixed", `<zone id="s" routing="Cluster">` + cab("a", "h", "1Gf") + `
<host id="x" speed="1Gf"/></zone>`, `zone "s" mixes cabinets with hosts, links or routes of its own`},
		{"cabinet attribute", `<zone id="s" routing="Cluster"><cabinet id="a" prefix="h" suffix="" radical="0-1" speed="1Gf" bw="1GBps" lat="1us" core="2"/></zone>`, `<cabinet>: attribute core is not supported by tracesim`},
		{"outside a zone", cab("a", "h", "1Gf"), `<cabinet>: not expected inside <platform>`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseString(t, c.xml)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v\nwant it to contain %s", err, c.want)
			}
		})
	}
}
