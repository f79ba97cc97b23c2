package replay

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tracesim/tracesim/engine/collective"
	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/netmodel"
	"github.com/tracesim/tracesim/engine/placement"
	"github.com/tracesim/tracesim/engine/topology"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/units"
)

// Kind is the type of a setting's value, which says how it is written.
type Kind uint8

// Setting kinds.
const (
	// KindChoice is one of Setting.Choices.
	KindChoice Kind = iota
	// KindInt is a whole number.
	KindInt
	// KindFloat is a number.
	KindFloat
	// KindSize is a byte count with a unit: 4096, 64KiB, 1.5MB.
	KindSize
	// KindDuration is a time with a unit: 10us, 1.5ms, 2s (bare: s).
	KindDuration
	// KindRate is a data rate: 10Gb/s, 125MB/s (bare: B/s).
	KindRate
	// KindSpeed is a CPU speed: 1Gf, 500Mf (bare: flops/s).
	KindSpeed
	// KindList is a blank- or comma-separated list of whole numbers.
	KindList
	// KindAlgorithms is a comma-separated list of op=algorithm.
	KindAlgorithms
	// KindSpec is a spec string of its own syntax: a topology
	// ("torus:8x8"), a routing ("dor:bubble"), a placement ("block:4");
	// empty means the default.
	KindSpec
)

// Setting is one configurable value of Config: a command-line flag of
// `tracesim sim`, a key of its configuration file, a field of the TUI's
// machine form.
type Setting struct {
	// Key is the flag name and the configuration-file key.
	Key string
	// Group gathers related settings: "replay", "cpu", "mpi",
	// "collectives", "network", "packet", "flow", "puppet", "loggops",
	// "simgrid".
	Group string
	Kind  Kind
	// Choices lists the accepted values of a KindChoice setting.
	Choices []string
	// Help is a one-line description with the unit.
	Help string
	get  func(*Config) string
	set  func(*Config, string) error
}

// Get returns the setting's value in c, written as Set accepts it.
func (s *Setting) Get(c *Config) string { return s.get(c) }

// Set parses v and stores it in c. The error says what was expected but
// does not name the setting; callers add the flag or key.
func (s *Setting) Set(c *Config, v string) error { return s.set(c, strings.TrimSpace(v)) }

// Settings returns every setting, in the order the documentation and the
// forms list them.
func Settings() []Setting {
	choice := func(key, group, help string, names []string, get func(*Config) int, set func(*Config, int)) Setting {
		return Setting{Key: key, Group: group, Kind: KindChoice, Choices: names, Help: help,
			get: func(c *Config) string { return names[get(c)] },
			set: func(c *Config, v string) error {
				i := slices.Index(names, strings.ToLower(v))
				if i < 0 {
					return fmt.Errorf("%q: expected one of %s", v, strings.Join(names, ", "))
				}
				set(c, i)
				return nil
			}}
	}
	dur := func(key, group, help string, p func(*Config) *des.Time) Setting {
		return Setting{Key: key, Group: group, Kind: KindDuration, Help: help,
			get: func(c *Config) string { return FormatTime(*p(c)) },
			set: func(c *Config, v string) error {
				t, err := ParseTime(v)
				if err == nil {
					*p(c) = t
				}
				return err
			}}
	}
	size := func(key, group, help string, p func(*Config) *int64) Setting {
		return Setting{Key: key, Group: group, Kind: KindSize, Help: help,
			get: func(c *Config) string { return FormatSize(*p(c)) },
			set: func(c *Config, v string) error {
				n, err := units.ParseSize(v)
				if err == nil {
					*p(c) = n
				}
				return err
			}}
	}
	perByte := func(key, group, help string, p func(*Config) *float64) Setting {
		return Setting{Key: key, Group: group, Kind: KindDuration, Help: help,
			get: func(c *Config) string { return formatPerByte(*p(c)) },
			set: func(c *Config, v string) error {
				s, err := units.ParseDuration(v)
				if err == nil {
					// Round away the binary noise of the unit
					// conversion: 1e-6 ps is far below anything that
					// matters, and 1.008644us reads back as written.
					*p(c) = math.Round(s*1e18) / 1e6
				}
				return err
			}}
	}
	intSetting := func(key, group, help string, p func(*Config) *int) Setting {
		return Setting{Key: key, Group: group, Kind: KindInt, Help: help,
			get: func(c *Config) string { return strconv.Itoa(*p(c)) },
			set: func(c *Config, v string) error {
				n, err := strconv.Atoi(v)
				if err != nil {
					return fmt.Errorf("%q: expected a whole number", v)
				}
				if n < 0 {
					return fmt.Errorf("%q: must not be negative", v)
				}
				*p(c) = n
				return nil
			}}
	}
	spec := func(key, group, help string, p func(*Config) *string, check func(string) error) Setting {
		return Setting{Key: key, Group: group, Kind: KindSpec, Help: help,
			get: func(c *Config) string { return *p(c) },
			set: func(c *Config, v string) error {
				if check != nil && v != "" {
					if err := check(v); err != nil {
						return err
					}
				}
				*p(c) = v
				return nil
			}}
	}
	base := []Setting{
		choice("mode", "replay", "replay mode: inject (sends only, as fast as the network accepts), causal (recorded order, no computation), predict (causal plus computation)",
			[]string{"inject", "causal", "predict"}, func(c *Config) int { return int(c.Mode) }, func(c *Config, i int) { c.Mode = Mode(i) }),
		{Key: "seed", Group: "replay", Kind: KindInt, Help: "seed of the simulation's random choices",
			get: func(c *Config) string { return strconv.FormatUint(c.Seed, 10) },
			set: func(c *Config, v string) error {
				n, err := strconv.ParseUint(v, 10, 64)
				if err != nil {
					return fmt.Errorf("%q: expected a whole number ≥ 0", v)
				}
				c.Seed = n
				return nil
			}},
		{Key: "cpu-speed", Group: "cpu", Kind: KindSpeed, Help: "CPU speed converting work to time (f, Kf, Mf, Gf, Tf: flops/s)",
			get: func(c *Config) string { return FormatSpeed(c.CPUSpeed) },
			set: func(c *Config, v string) error {
				f, err := units.ParseFlops(v)
				if err != nil {
					return err
				}
				if f == 0 {
					return fmt.Errorf("%q: must be positive", v)
				}
				c.CPUSpeed = f
				return nil
			}},
		{Key: "cpu-scale", Group: "cpu", Kind: KindFloat, Help: "factor on every computation time: 0.5 = a CPU twice as fast, 0 = infinitely fast",
			get: func(c *Config) string { return formatFloat(c.CPUScale) },
			set: func(c *Config, v string) error {
				f, err := strconv.ParseFloat(v, 64)
				if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
					return fmt.Errorf("%q: expected a number ≥ 0", v)
				}
				c.CPUScale = f
				return nil
			}},
		choice("cpu-from", "cpu", "computation of a timed trace: auto (compute events if any, else gaps), gaps (time between MPI calls), events (compute events)",
			[]string{"auto", "gaps", "events"}, func(c *Config) int { return int(c.CPUFrom) }, func(c *Config, i int) { c.CPUFrom = CPUFrom(i) }),
		intSetting("ranks-per-node", "cpu", "ranks placed on each node in rank order; they share its CPU (processor sharing)", func(c *Config) *int { return &c.RanksPerNode }),
		intSetting("cores", "cpu", "cores of each node: up to that many of its ranks compute at full speed at once, more share them (processor sharing); a platform's core attribute sets it", func(c *Config) *int { return &c.Cores }),
		{Key: "map", Group: "cpu", Kind: KindList, Help: "PUPPET placement map P1 … Pn: rank j runs on node P[j mod n] (blank- or comma-separated; empty: none, --ranks-per-node places the ranks)",
			get: func(c *Config) string {
				s := make([]string, len(c.Map))
				for i, p := range c.Map {
					s[i] = strconv.Itoa(p)
				}
				return strings.Join(s, " ")
			},
			set: func(c *Config, v string) error {
				var m []int
				for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
					n, err := strconv.Atoi(f)
					if err != nil || n < 0 {
						return fmt.Errorf("%q: %q is not a node number", v, f)
					}
					m = append(m, n)
				}
				c.Map = m
				return nil
			}},
		spec("placement", "cpu", "rank placement on the nodes: linear, block:K, roundrobin, random:seed=S[,per=K], map:P1,P2,…, file:map.txt (empty: ranks-per-node or map)",
			func(c *Config) *string { return &c.Placement }, checkPlacement),
		choice("send", "mpi", "send completion: auto (MPI: eager below the threshold, rendezvous above, Ssend synchronous), buffered (at issue), synchronous (when received), nospace (when arrived), recorded (auto, but sends the recorded run completed before their receive was posted are buffered). Eager: the send completes at once, its data leaving without waiting for the receive; rendezvous: the data moves once the receive is posted and the send completes when it has arrived",
			[]string{"auto", "buffered", "synchronous", "nospace", "recorded"}, func(c *Config) int { return int(c.Send) }, func(c *Config, i int) { c.Send = SendMode(i) }),
		size("eager-threshold", "mpi", "messages of this size and more use the rendezvous protocol (B, KB, KiB, MB, MiB)", func(c *Config) *int64 { return &c.EagerThreshold }),
		choice("eager-start", "mpi", "when eager data moves: auto (match for the simgrid model, else send), send (at the send), match (once the receive is posted, as SimGrid)",
			[]string{"auto", "send", "match"}, func(c *Config) int { return int(c.EagerStart) }, func(c *Config, i int) { c.EagerStart = EagerStart(i) }),
		choice("handshake", "mpi", "rendezvous control traffic: none (transfer starts when both sides are posted) or rts-cts (request and clear-to-send through the network)",
			[]string{"none", "rts-cts"}, func(c *Config) int { return int(c.Handshake) }, func(c *Config, i int) { c.Handshake = Handshake(i) }),
		choice("any-source", "mpi", "wildcard receives: recorded (match the sender the trace recorded), free (any sender; inconsistencies with the trace are reported) or auto (free when the trace records no sender for them, as SimGrid's -555, else recorded)",
			[]string{"recorded", "free", "auto"}, func(c *Config) int { return int(c.AnySource) }, func(c *Config, i int) { c.AnySource = AnySource(i) }),
		choice("collectives", "collectives", "collective events: expand (point-to-point messages of an algorithm) or analytic ((latency + size/bandwidth) × factor)",
			[]string{"expand", "analytic"}, func(c *Config) int { return int(c.Collectives) }, func(c *Config, i int) { c.Collectives = CollMode(i) }),
		{Key: "coll-alg", Group: "collectives", Kind: KindAlgorithms, Help: "algorithms by operation, e.g. bcast=binomial,allreduce=ring (all=linear sets every operation; auto = MPICH's choice)",
			get: func(c *Config) string { return formatAlgorithms(&c.CollAlg) },
			set: func(c *Config, v string) error { return parseAlgorithms(&c.CollAlg, v) }},
		{Key: "coll-factor", Group: "collectives", Kind: KindChoice, Choices: []string{"0", "1", "log2p", "p"},
			Help: "factor of the analytic collective model: 0, 1, log2p or p",
			get:  func(c *Config) string { return c.CollFactor.String() },
			set: func(c *Config, v string) error {
				f, err := collective.ParseFactor(v)
				if err == nil {
					c.CollFactor = f
				}
				return err
			}},
		choice("model", "network", "network model: puppet (switching formulas), loggops (L o g G O S), simgrid (SimGrid's CM02 on a star cluster, without contention), packet (packet-level virtual cut-through routers on the topology, with contention), flow (flows sharing the topology's links by max-min fairness, as SimGrid's CM02)",
			[]string{"puppet", "loggops", "simgrid", "packet", "flow"}, func(c *Config) int { return int(c.Model) }, func(c *Config, i int) { c.Model = ModelKind(i) }),
		spec("topology", "network", "network topology: ring:16, mesh:4x4x4, torus:8x8, hypercube:6, crossbar:64, bus:8, fattree:k=4,levels=3[,taper=0.5], dragonfly:p=2,a=4,h=2, file:net.txt (empty: the complete graph; packet model: a crossbar)",
			func(c *Config) *string { return &c.Topology }, checkTopology),
		spec("routing", "network", "routing of the packet and flow models: dor, dor:bubble, dor:none, adaptive, minimal[:random|rr|queue], valiant, updown[:random|rr|adaptive], ugal (empty: the topology's default deadlock-free routing)",
			func(c *Config) *string { return &c.Routing }, nil),
		intSetting("hops", "network", "distance between distinct nodes in links (0: the topology's; 1 on the complete graph)", func(c *Config) *int { return &c.Hops }),
		{Key: "bandwidth", Group: "network", Kind: KindRate, Help: "link bandwidth (b/s, Mb/s, Gb/s, B/s, MB/s, GB/s); sets per-byte to its inverse",
			get: func(c *Config) string { return formatBandwidth(c.PerByte) },
			set: func(c *Config, v string) error {
				if v == "inf" {
					c.PerByte = 0
					return nil
				}
				r, err := units.ParseRate(v)
				if err != nil {
					return err
				}
				if !(r > 0) || math.IsInf(r, 0) {
					return fmt.Errorf("%q: must be positive", v)
				}
				c.PerByte = perByteOf(r)
				return nil
			}},
		perByte("per-byte", "network", "link time per byte, PUPPET's t1 (ps, ns, us, ms, s per byte); the inverse of bandwidth", func(c *Config) *float64 { return &c.PerByte }),
		dur("latency", "simgrid", "latency of one link (ps, ns, us, ms, s)", func(c *Config) *des.Time { return &c.Latency }),
		{Key: "crosstraffic", Group: "flow", Kind: KindFloat, Help: "flow model: share of each flow's rate also loading its reverse route, as TCP acknowledgements (SimGrid: 0.05; 0 = off)",
			get: func(c *Config) string { return formatFloat(c.CrossTraffic) },
			set: func(c *Config, v string) error {
				f, err := strconv.ParseFloat(v, 64)
				if err != nil || !(f >= 0) || f > 1 {
					return fmt.Errorf("%q: expected a share from 0 to 1", v)
				}
				c.CrossTraffic = f
				return nil
			}},
		intSetting("vcs", "packet", "virtual channels per router port", func(c *Config) *int { return &c.VCs }),
		intSetting("buffer", "packet", "capacity of each virtual channel's input buffer, in packets", func(c *Config) *int { return &c.Buffer }),
		dur("router-delay", "packet", "router pipeline delay from a packet's head arrival to its earliest departure (ps, ns, us, ms, s)", func(c *Config) *des.Time { return &c.RouterDelay }),
		dur("link-latency", "packet", "latency of the topology's links where its spec sets none (lat=, nlat=); their bandwidth is --bandwidth unless the spec sets bw=", func(c *Config) *des.Time { return &c.LinkLatency }),
		dur("sample-period", "packet", "period of the network metrics samples (--metrics-out, live link and queue heatmaps); 0 = none", func(c *Config) *des.Time { return &c.SamplePeriod }),
		dur("wait-threshold", "packet", "a packet that waits longer than this in a router buffer counts as a long wait (hot spots)", func(c *Config) *des.Time { return &c.WaitThreshold }),
		{Key: "switching", Group: "puppet", Kind: KindChoice, Choices: []string{"store-and-forward", "cut-through", "circuit", "wormhole"},
			Help: "PUPPET switching: store-and-forward d·t(s), cut-through d·t(h)+t(s), circuit d·t(c)+t(s), wormhole (d−1+⌈s/f⌉)·t(f)",
			get:  func(c *Config) string { return c.Switching.String() },
			set: func(c *Config, v string) error {
				s, err := netmodel.ParseSwitching(strings.ToLower(v))
				if err == nil {
					c.Switching = s
				}
				return err
			}},
		dur("startup", "puppet", "PUPPET start-up time i, per packet (ps, ns, us, ms, s)", func(c *Config) *des.Time { return &c.Startup }),
		size("packet-size", "puppet", "packet size p (PUPPET; the packet model's largest payload); 0 = unpacketised: one packet per message (B, KiB, …)", func(c *Config) *int64 { return &c.PacketSize }),
		size("header", "puppet", "header h of cut-through, control packet c of circuit switching, header of every packet of the packet model (B)", func(c *Config) *int64 { return &c.Header }),
		size("flit", "puppet", "flit size f of wormhole switching (B)", func(c *Config) *int64 { return &c.Flit }),
		size("envelope", "simgrid", "bytes the simgrid model adds to every message (SMPI: 16 B)", func(c *Config) *int64 { return &c.Envelope }),
		dur("L", "loggops", "LogGOPS latency L (ps, ns, us, ms, s)", func(c *Config) *des.Time { return &c.L }),
		dur("o", "loggops", "LogGOPS CPU overhead o per message (ps, ns, us, ms, s)", func(c *Config) *des.Time { return &c.O }),
		dur("g", "loggops", "LogGOPS gap g between messages (ps, ns, us, ms, s)", func(c *Config) *des.Time { return &c.Gap }),
		perByte("G", "loggops", "LogGOPS gap per byte G (time per byte: 6ns)", func(c *Config) *float64 { return &c.G }),
		perByte("O", "loggops", "LogGOPS CPU overhead per byte O (time per byte)", func(c *Config) *float64 { return &c.OPerByte }),
		size("S", "loggops", "LogGOPS eager limit S (0: eager-threshold)", func(c *Config) *int64 { return &c.S }),
	}
	return append(base, platformSettings()...)
}

// checkTopology checks a topology spec's syntax (a custom graph file is
// read when the run starts).
func checkTopology(v string) error {
	if strings.HasPrefix(strings.TrimSpace(v), "file:") {
		return nil
	}
	_, err := topology.Parse(v)
	return err
}

// checkPlacement checks a placement spec's syntax (a map file is read,
// and the ranks counted, when the run starts).
func checkPlacement(v string) error {
	v = strings.TrimSpace(v)
	nodes := 64 // enough for the syntax: random shuffles every slot
	switch {
	case strings.HasPrefix(v, "file:"):
		return nil
	case strings.HasPrefix(v, "map:"):
		nodes = 1 << 24 // any node number
	}
	_, err := placement.Parse(v, 1, nodes)
	return err
}

// LookupSetting returns the setting with the given key.
func LookupSetting(key string) (*Setting, bool) {
	all := Settings()
	for i := range all {
		if all[i].Key == key {
			return &all[i], true
		}
	}
	return nil, false
}

// Set sets the named setting, with an error naming it.
func (c *Config) Set(key, value string) error {
	s, ok := LookupSetting(key)
	if !ok {
		return unknownKey(key)
	}
	if err := s.Set(c, value); err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	return nil
}

// Get returns the named setting's value.
func (c *Config) Get(key string) (string, error) {
	s, ok := LookupSetting(key)
	if !ok {
		return "", unknownKey(key)
	}
	return s.Get(c), nil
}

// Values returns every setting's key and value, in Settings order.
func (c *Config) Values() [][2]string {
	all := Settings()
	out := make([][2]string, len(all))
	for i := range all {
		out[i] = [2]string{all[i].Key, all[i].Get(c)}
	}
	return out
}

func unknownKey(key string) error {
	all := Settings()
	best, bestD := "", 4
	for _, s := range all {
		if d := editDistance(strings.ToLower(key), strings.ToLower(s.Key)); d < bestD {
			best, bestD = s.Key, d
		}
	}
	if best != "" {
		return fmt.Errorf("%s: unknown setting (did you mean %s?)", key, best)
	}
	return fmt.Errorf("%s: unknown setting", key)
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// ParseTime parses a duration with a unit (bare numbers are seconds) into
// picoseconds.
func ParseTime(v string) (des.Time, error) {
	s, err := units.ParseDuration(v)
	if err != nil {
		return 0, err
	}
	if s > 9e6 {
		return 0, fmt.Errorf("%q: longer than the engine's 100-day range", v)
	}
	return des.FromSeconds(s), nil
}

// FormatTime writes t exactly with the largest unit that needs at most
// three decimals: "1449.848us", "5s", "800ps" (units.FormatPicoseconds).
func FormatTime(t des.Time) string { return units.FormatPicoseconds(int64(t)) }

// formatPerByte writes picoseconds per byte as a duration.
func formatPerByte(ps float64) string {
	if ps == math.Trunc(ps) && ps < 1e15 {
		return FormatTime(des.Time(ps))
	}
	return units.FormatPicosecondsFrac(ps)
}

// formatBandwidth writes 1/perByte as a rate in bits per second, with the
// fewest digits that the bandwidth setting reads back to perByte
// (1.23456GB/s is kept as 810.005184 ps per byte and prints
// "9.87648Gb/s").
func formatBandwidth(perByte float64) string {
	if perByte == 0 {
		return "inf"
	}
	return units.FormatRateWithin(1e12/perByte, func(r float64) bool { return perByteOf(r) == perByte })
}

// perByteOf is the per-byte time in picoseconds the bandwidth setting
// keeps for a rate of r bytes per second: rounded to 1e-6 ps, so that a
// rate typed in any unit gives the same configuration.
func perByteOf(r float64) float64 { return math.Round(1e18/r) / 1e6 }

// bandwidthExact reports whether a configuration file should hold
// perByte as the bandwidth: formatBandwidth(perByte) reads back as perByte
// (a per-byte time from a platform file, 1e12/bandwidth not rounded, may
// have no rate that rounds to it) and needs no more significant digits
// than the per-byte time itself, so that "10Gb/s" stays a bandwidth and
// "1008.644ns" (7.931434…Mb/s) a per-byte time.
func bandwidthExact(perByte float64) bool {
	if perByte == 0 {
		return true
	}
	bw := formatBandwidth(perByte)
	r, err := units.ParseRate(bw)
	return err == nil && perByteOf(r) == perByte && sigDigits(bw) <= sigDigits(formatPerByte(perByte))
}

// sigDigits counts the significant digits of the number a formatted
// value starts with: 2 in "1.5us", 1 in "800ps" and in "10Gb/s".
func sigDigits(s string) int {
	end := strings.IndexFunc(s, func(r rune) bool { return r != '.' && (r < '0' || r > '9') })
	if end < 0 {
		end = len(s)
	}
	num := strings.Trim(strings.ReplaceAll(s[:end], ".", ""), "0")
	return len(num)
}

// FormatSize writes a byte count with the largest binary unit that
// divides it: "64KiB", "1000B" (units.FormatSizeExact).
func FormatSize(n int64) string { return units.FormatSizeExact(n) }

// FormatSpeed writes flops per second with a prefix and the fewest digits
// that read back exactly: "1Gf", "2.5Mf" (units.FormatFlopsExact).
func FormatSpeed(f float64) string { return units.FormatFlopsExact(f) }

// collOpNames lists the operations coll-alg accepts, in tracefmt order.
func collOpNames() []string {
	out := make([]string, numCollOps)
	for i := range out {
		out[i] = tracefmt.CollOp(i).String()
	}
	return out
}

func formatAlgorithms(a *[numCollOps]collective.Algorithm) string {
	var parts []string
	for op, alg := range a {
		if alg != collective.Auto {
			parts = append(parts, tracefmt.CollOp(op).String()+"="+alg.String())
		}
	}
	if len(parts) == 0 {
		return "auto"
	}
	return strings.Join(parts, ",")
}

func parseAlgorithms(a *[numCollOps]collective.Algorithm, v string) error {
	var out [numCollOps]collective.Algorithm
	if v == "" || v == "auto" {
		*a = out
		return nil
	}
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		opName, algName, ok := strings.Cut(part, "=")
		if !ok {
			return fmt.Errorf("%q: expected op=algorithm, e.g. bcast=binomial", part)
		}
		alg, err := collective.ParseAlgorithm(strings.TrimSpace(algName))
		if err != nil {
			return err
		}
		opName = strings.ToLower(strings.TrimSpace(opName))
		if opName == "all" {
			for op := range out {
				if collective.Applicable(tracefmt.CollOp(op), alg) {
					out[op] = alg
				}
			}
			continue
		}
		op, ok := tracefmt.ParseCollOp(strings.TrimPrefix(opName, "mpi_"))
		if !ok {
			return fmt.Errorf("%q: unknown operation %q (expected all or one of %s)", part, opName, strings.Join(collOpNames(), ", "))
		}
		if !collective.Applicable(op, alg) {
			var ok []string
			for _, b := range collective.Algorithms(op) {
				ok = append(ok, b.String())
			}
			return fmt.Errorf("%q: %s cannot use %s (choose %s)", part, op, alg, strings.Join(ok, ", "))
		}
		out[op] = alg
	}
	*a = out
	return nil
}
