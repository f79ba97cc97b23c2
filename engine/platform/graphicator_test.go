package platform

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/engine/topology"
)

// TestFatTreeWiringAgainstSimGrid compares the switch wiring of SimGrid's
// FAT_TREE clusters, as simgrid-graphicator lists their links
// ("link_from_CHILD_PARENT_N"), with the fat tree the platform maps them
// onto: the same child–parent pairs, level by level and position by
// position. SimGrid numbers hosts 0..N-1 and switches from 2N-1 down,
// level by level.
func TestFatTreeWiringAgainstSimGrid(t *testing.T) {
	tool, err := exec.LookPath("simgrid-graphicator")
	if err != nil {
		t.Skip("simgrid-graphicator not installed (Debian simgrid)")
	}
	link := regexp.MustCompile(`link_from_(\d+)_(\d+)_\d+_UP`)
	for _, params := range []string{"2;4,4;1,4;1,1", "2;4,4;1,2;1,1", "3;2,2,2;1,2,2;1,1,1", "3;3,3,3;1,2,3;1,1,1", "3;3,3,3;1,3,2;1,1,1"} {
		t.Run(strings.ReplaceAll(params, ";", "_"), func(t *testing.T) {
			dir := t.TempDir()
			levels, _ := strconv.Atoi(params[:1])
			down, _ := positiveInts(strings.Split(params, ";")[1], ",", "down")
			hosts := 1
			for _, d := range down {
				hosts *= d
			}
			xml := fmt.Sprintf(`<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="c" prefix="host" suffix="" radical="0-%d" speed="1Gf" bw="1GBps" lat="1us" topology="FAT_TREE" topo_parameters="%s"/>
</platform>
`, hosts-1, params)
			plat := filepath.Join(dir, "p.xml")
			if err := os.WriteFile(plat, []byte(xml), 0o644); err != nil {
				t.Fatal(err)
			}
			csv := filepath.Join(dir, "p.csv")
			if out, err := exec.Command(tool, plat, csv).CombinedOutput(); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			data, err := os.ReadFile(csv)
			if err != nil {
				t.Fatal(err)
			}
			p, err := Parse(strings.NewReader(xml), "p.xml")
			if err != nil {
				t.Fatal(err)
			}
			ft := p.Topology.(*topology.FatTree)
			// SimGrid switch id → "level:position" (level 1 = leaves).
			name := map[int]string{}
			id := 2*hosts - 1
			for l := 0; l < levels; l++ {
				for pos := 0; pos < ft.SwitchesAt(l); pos++ {
					name[id] = fmt.Sprintf("%d:%d", l+1, pos)
					id--
				}
			}
			// The top levels' ids run into the hosts' (0..N-1): a parent
			// is always a switch, a child is a host when its parent is a
			// leaf switch.
			var theirs []string
			for _, m := range link.FindAllStringSubmatch(string(data), -1) {
				a, _ := strconv.Atoi(m[1])
				b, _ := strconv.Atoi(m[2])
				child := name[a]
				if strings.HasPrefix(name[b], "1:") {
					child = fmt.Sprintf("host%d", a)
				}
				theirs = append(theirs, child+"→"+name[b])
			}
			var ours []string
			for n := 0; n < ft.NumNodes(); n++ {
				r, _ := ft.Attach(n)
				l, i := ft.Level(r)
				ours = append(ours, fmt.Sprintf("host%d→%d:%d", n, l+1, i))
			}
			for r := 0; r < ft.NumRouters(); r++ {
				l, i := ft.Level(r)
				for port := ft.K(); port < ft.NumPorts(r); port++ {
					pe := ft.Peer(r, port)
					pl, pi := ft.Level(pe.ID)
					ours = append(ours, fmt.Sprintf("%d:%d→%d:%d", l+1, i, pl+1, pi))
				}
			}
			slices.Sort(theirs)
			theirs = slices.Compact(theirs)
			slices.Sort(ours)
			if strings.Join(ours, " ") != strings.Join(theirs, " ") {
				t.Errorf("wiring differs:\nSimGrid %v\nours    %v", theirs, ours)
			}
		})
	}
}
