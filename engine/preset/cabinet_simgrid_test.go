package preset

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tracesim/tracesim/internal/simgrid"
)

// TestCabinetsAgainstSimGrid replays programs on routing="Cluster" zones
// of <cabinet>s and a <backbone> (Grid'5000's way of writing a site) with
// smpirun -replay and the presets (sgModes): cabinets of different links
// (125 MBps 5 µs and 100 MBps 10 µs) and of different speeds, hosts in
// declaration order, one or two ranks a host; four pairs across the
// backbone at once and random programs. Within 0.0001 %.
func TestCabinetsAgainstSimGrid(t *testing.T) {
	needSmpirun(t)
	pairs, random := fourPairs, randomActions
	for _, c := range []struct {
		name     string
		backbone string
		speedB   string // cabinet b's hosts' speed (a's: 1Gf)
		perHost  int
		ranks    int
		actions  func(int) []string
	}{
		{"4 pairs, 50 MBps backbone", `<backbone id="bb" bandwidth="50MBps" latency="20us"/>`, "1Gf", 1, 8, pairs},
		{"4 pairs, no backbone", ``, "1Gf", 1, 8, pairs},
		{"random, 1 Gbps backbone", `<backbone id="bb" bandwidth="1Gbps" latency="2us"/>`, "1Gf", 1, 8, random(21, 8)},
		{"random, two ranks a host", `<backbone id="bb" bandwidth="150MBps" latency="5us"/>`, "1Gf", 2, 16, random(22, 16)},
		{"random, cabinet b 2.5 times as fast", `<backbone id="bb" bandwidth="150MBps" latency="5us"/>`, "2.5Gf", 1, 8, random(23, 8)},
		{"random, two ranks a host, cabinet b 3 times as fast", `<backbone id="bb" bandwidth="150MBps" latency="5us"/>`, "3Gf", 2, 16, random(24, 16)},
	} {
		dir := t.TempDir()
		index, err := simgrid.WriteRanks(dir, "cab", c.ranks, c.actions)
		if err != nil {
			t.Fatal(err)
		}
		platform := filepath.Join(dir, "platform.xml")
		xml := `<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="world" routing="Full">
    <zone id="site" routing="Cluster">
      <cabinet id="a" prefix="a-" suffix=".site" radical="0-3" speed="1Gf" bw="125MBps" lat="5us"/>
      <cabinet id="b" prefix="b-" suffix=".site" radical="0-3" speed="` + c.speedB + `" bw="100MBps" lat="10us"/>
      ` + c.backbone + `
    </zone>
  </zone>
</platform>
`
		var hosts string
		for _, cab := range []string{"a", "b"} {
			for i := range 4 {
				if c.perHost > 1 {
					hosts += fmt.Sprintf("%s-%d.site:%d\n", cab, i, c.perHost)
				} else {
					hosts += fmt.Sprintf("%s-%d.site\n", cab, i)
				}
			}
		}
		hostfile := filepath.Join(dir, "hostfile")
		if err := os.WriteFile(platform, []byte(xml), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(hostfile, []byte(hosts), 0o644); err != nil {
			t.Fatal(err)
		}
		compareModes(t, c.name, index, c.ranks, platform, hostfile, nil)
	}
}
