// Package simgrid runs SimGrid's SMPI replayer (`smpirun -replay`, Debian
// package libsimgrid-dev, tested with SimGrid 3.32) on time-independent
// traces, so that tests can check that SimGrid accepts the traces tracesim
// writes and compare its simulated times with tracesim's engine.
//
// The invocation it builds, for N ranks on a star cluster platform:
//
//	smpirun -np N -platform platform.xml -hostfile hostfile \
//	    --cfg=smpi/privatization:no --cfg=network/model:CM02 ... -replay INDEX
//
// run in INDEX's directory (SimGrid opens the files an index lists
// relative to its working directory). smpirun starts SimGrid's own
// replay program (/usr/lib/x86_64-linux-gnu/simgrid/smpireplaymain); no
// program needs to be built. The replay prints "Simulation time T" when
// the last rank finishes; Run returns T.
//
// Facts about SimGrid 3.32 worth knowing when comparing with it:
//   - every host of the hostfile must exist in the platform, even those
//     beyond -np;
//   - option values are split at commas: paths with commas or blanks break
//     it (Run keeps its files in a safe temporary directory);
//   - MPI_Test costs 0.1 ms of simulated time by default (smpi/test);
//     pass "smpi/test:0" to compare with an ideal machine;
//   - sends below 64 KiB (smpi/send-is-detached-thresh) return at once,
//     larger ones wait for their receiver (models.md has the rest of the
//     network model);
//   - a receive of count 0 probes for the size and then aborts with
//     MPI_ERR_TRUNCATE; a "sendRecv" without datatypes aborts;
//   - a wildcard irecv (-555) is filed under source -556, so a
//     "wait -555 DST TAG" finds nothing and the receive completes only at
//     a later waitall or at the end of the rank.
package simgrid

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Cluster is a star platform: Hosts hosts of Speed flops/s, each with a
// private link of Bandwidth bytes/s and Latency seconds to one switch. A
// message crosses the sender's and the receiver's links. Attrs can make
// it another of SimGrid's clusters.
type Cluster struct {
	Hosts     int
	Speed     float64 // flops/s
	Bandwidth float64 // bytes/s
	Latency   float64 // seconds
	// Sharing is SimGrid's sharing policy of the private links:
	// "SPLITDUPLEX" (one link per direction, the default when empty),
	// "SHARED" or "FATPIPE".
	Sharing string
	// Attrs are further attributes of the <cluster> element, written as
	// given: `topology="TORUS" topo_parameters="4,2"` makes it a torus.
	Attrs string
}

// HostName returns the name of host i in the platform.
func (c Cluster) HostName(i int) string { return "host" + strconv.Itoa(i) }

func (c Cluster) check() error {
	switch {
	case c.Hosts < 1:
		return fmt.Errorf("simgrid: cluster needs at least one host, got %d", c.Hosts)
	case !(c.Speed > 0):
		return fmt.Errorf("simgrid: host speed %v flops/s must be positive", c.Speed)
	case !(c.Bandwidth > 0):
		return fmt.Errorf("simgrid: bandwidth %v B/s must be positive", c.Bandwidth)
	case !(c.Latency >= 0):
		return fmt.Errorf("simgrid: latency %v s must not be negative", c.Latency)
	}
	switch c.Sharing {
	case "", "SPLITDUPLEX", "SHARED", "FATPIPE":
		return nil
	}
	return fmt.Errorf("simgrid: unknown sharing policy %q (SPLITDUPLEX, SHARED or FATPIPE)", c.Sharing)
}

// WritePlatform writes the platform XML (SimGrid DTD 4.1) describing c.
func (c Cluster) WritePlatform(w io.Writer) error {
	if err := c.check(); err != nil {
		return err
	}
	sharing := c.Sharing
	if sharing == "" {
		sharing = "SPLITDUPLEX"
	}
	attrs := ""
	if c.Attrs != "" {
		attrs = " " + c.Attrs
	}
	_, err := fmt.Fprintf(w, `<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="cluster" prefix="host" suffix="" radical="0-%d" speed="%sf"
           bw="%sBps" lat="%ss" sharing_policy="%s"%s/>
</platform>
`, c.Hosts-1, fnum(c.Speed), fnum(c.Bandwidth), fnum(c.Latency), sharing, attrs)
	return err
}

// SavePlatform writes the platform XML describing c to the file path.
func (c Cluster) SavePlatform(path string) error { return writeFile(path, c.WritePlatform) }

// WriteHostfile writes the hostfile placing rank i on host i mod Hosts.
func (c Cluster) WriteHostfile(w io.Writer, ranks int) error {
	if err := c.check(); err != nil {
		return err
	}
	var b strings.Builder
	for i := range ranks {
		b.WriteString(c.HostName(i % c.Hosts))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func fnum(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// Replay describes one run of SimGrid's replayer.
type Replay struct {
	// Index is the TI trace: an index file (one per-rank file per line,
	// or a single line naming one file that holds every rank).
	Index string
	// Ranks is the number of MPI processes (smpirun -np).
	Ranks   int
	Cluster Cluster
	// Platform and Hostfile, when set, are files used instead of the
	// ones written from Cluster.
	Platform, Hostfile string
	// Config lists extra SimGrid settings as "key:value", passed as
	// --cfg=key:value (e.g. "network/model:CM02").
	Config []string
	// Dir receives the platform and hostfile; empty means a temporary
	// directory removed afterwards.
	Dir string
	// Precise asks SimGrid to print the makespan with 12 decimals (its
	// "Simulation time" line has 6) through the smpi_replay log format.
	Precise bool

	// logs are extra --log settings (InfeasibleSharing's check).
	logs []string
}

// Result is what a replay printed.
type Result struct {
	// SimulatedTime is the makespan in seconds SimGrid reported.
	SimulatedTime float64
	// Args is the smpirun command line that was run.
	Args []string
	// Output is smpirun's combined standard output and error.
	Output string
	// Wall is the wall-clock time smpirun took; CPU its user and system
	// time and PeakRSS its peak resident set size in bytes, both with the
	// simulator it waited for (PeakRSS 0 where it cannot tell).
	Wall    time.Duration
	CPU     time.Duration
	PeakRSS int64
}

// Path returns the path of smpirun, or an error when SimGrid is not
// installed (tests skip then).
func Path() (string, error) {
	return exec.LookPath("smpirun")
}

// The patterns of smpirun's simulated time, compiled at first use rather
// than at every start of the program.
var (
	simTime     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`Simulation time ([0-9.eE+-]+)`) })
	preciseTime = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`Simulation time [0-9.eE+-]+ @([0-9.eE+-]+)`) })
)

// Run replays r.Index with smpirun and returns the simulated time. It
// fails when smpirun exits with an error or prints no simulated time; the
// error then carries the end of SimGrid's output.
func Run(ctx context.Context, r Replay) (Result, error) {
	smpirun, err := Path()
	if err != nil {
		return Result{}, fmt.Errorf("simgrid: smpirun not found (install libsimgrid-dev): %w", err)
	}
	if r.Ranks < 1 {
		return Result{}, fmt.Errorf("simgrid: replay needs at least one rank, got %d", r.Ranks)
	}
	index, err := filepath.Abs(r.Index)
	if err != nil {
		return Result{}, err
	}
	if !safePath(filepath.Base(index)) {
		return Result{}, fmt.Errorf("simgrid: index name %q: SimGrid's option parser needs a name without blanks, commas or colons", filepath.Base(index))
	}
	dir := r.Dir
	if dir == "" || !safePath(dir) {
		// SimGrid splits option values at commas and smpirun at blanks:
		// keep the platform and hostfile where the path has neither.
		if dir, err = os.MkdirTemp("", "tracesim-simgrid-*"); err != nil {
			return Result{}, err
		}
		defer os.RemoveAll(dir)
	}
	platform := filepath.Join(dir, "platform.xml")
	hostfile := filepath.Join(dir, "hostfile")
	if r.Platform != "" {
		if platform, err = filepath.Abs(r.Platform); err != nil {
			return Result{}, err
		}
	} else if err := writeFile(platform, r.Cluster.WritePlatform); err != nil {
		return Result{}, err
	}
	if r.Hostfile != "" {
		if hostfile, err = filepath.Abs(r.Hostfile); err != nil {
			return Result{}, err
		}
	} else if err := writeFile(hostfile, func(w io.Writer) error { return r.Cluster.WriteHostfile(w, r.Ranks) }); err != nil {
		return Result{}, err
	}
	if !safePath(platform) || !safePath(hostfile) {
		return Result{}, fmt.Errorf("simgrid: %s, %s: SimGrid's option parser needs paths without blanks, commas or colons", platform, hostfile)
	}
	args := []string{"-np", strconv.Itoa(r.Ranks), "-platform", platform, "-hostfile", hostfile,
		// Replay runs no user code: no need to copy the binary per rank.
		"--cfg=smpi/privatization:no"}
	for _, c := range r.Config {
		args = append(args, "--cfg="+c)
	}
	if r.Precise {
		args = append(args, "--log=smpi_replay.fmt:%m%e@%.12r%n")
	}
	for _, l := range r.logs {
		args = append(args, "--log="+l)
	}
	args = append(args, "-replay", filepath.Base(index))
	cmd := exec.CommandContext(ctx, smpirun, args...)
	cmd.Dir = filepath.Dir(index)
	setProcessGroup(cmd)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	res := Result{Args: append([]string{smpirun}, args...)}
	start := time.Now()
	err = cmd.Run()
	res.Wall = time.Since(start)
	res.PeakRSS = PeakRSS(cmd.ProcessState)
	if ps := cmd.ProcessState; ps != nil {
		res.CPU = ps.UserTime() + ps.SystemTime()
	}
	res.Output = out.String()
	if ctxErr := ctx.Err(); ctxErr != nil {
		return res, fmt.Errorf("simgrid: %w", ctxErr)
	}
	if err != nil {
		return res, fmt.Errorf("simgrid: smpirun failed (%w):\n%s", err, tail(res.Output, 20))
	}
	m := simTime().FindAllStringSubmatch(res.Output, -1)
	if len(m) == 0 {
		return res, errors.New("simgrid: smpirun printed no simulated time:\n" + tail(res.Output, 20))
	}
	if r.Precise {
		// "Simulation time 0.013635 @0.013635280000": the replay's end
		// time follows the @.
		if p := preciseTime().FindAllStringSubmatch(res.Output, -1); len(p) > 0 {
			m = p
		}
	}
	res.SimulatedTime, err = strconv.ParseFloat(m[len(m)-1][1], 64)
	if err != nil {
		return res, fmt.Errorf("simgrid: simulated time %q: %w", m[len(m)-1][1], err)
	}
	return res, nil
}

// InfeasibleSharing replays r with SimGrid's own check of its max-min
// solver turned on (the ker_lmm.thres log at debug level) and returns the
// check's complaint when the solver gave some link more than its
// bandwidth ("Incorrect value (185975609.756098 is not smaller than
// 125000000.000000): …"; SimGrid aborts there), or "" when every
// allocation of the run was feasible. A makespan from a run with an
// infeasible allocation is not that of a max-min sharing.
func InfeasibleSharing(ctx context.Context, r Replay) (string, error) {
	r.logs = append(r.logs[:len(r.logs):len(r.logs)], "ker_lmm.thres:debug")
	res, err := Run(ctx, r)
	if i := strings.Index(res.Output, "Incorrect value ("); i >= 0 {
		line := res.Output[i:]
		if j := strings.IndexByte(line, '\n'); j >= 0 {
			line = line[:j]
		}
		return line, nil
	}
	return "", err
}

// safePath reports whether p can be passed to smpirun and SimGrid's
// option parser unquoted.
func safePath(p string) bool {
	for _, c := range p {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("/._-+", c)) {
			return false
		}
	}
	return true
}

func writeFile(path string, fn func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := fn(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// WriteRanks writes a time-independent trace of ranks ranks into dir, one
// file per rank (NAME-R.txt: "R init", the lines of actions(r) each
// prefixed by the rank, "R finalize"), and its index NAME.txt, whose
// path it returns.
func WriteRanks(dir, name string, ranks int, actions func(r int) []string) (string, error) {
	var index strings.Builder
	for r := range ranks {
		file := fmt.Sprintf("%s-%d.txt", name, r)
		var b strings.Builder
		fmt.Fprintf(&b, "%d init\n", r)
		for _, a := range actions(r) {
			fmt.Fprintf(&b, "%d %s\n", r, a)
		}
		fmt.Fprintf(&b, "%d finalize\n", r)
		if err := os.WriteFile(filepath.Join(dir, file), []byte(b.String()), 0o644); err != nil {
			return "", err
		}
		index.WriteString(file + "\n")
	}
	path := filepath.Join(dir, name+".txt")
	return path, os.WriteFile(path, []byte(index.String()), 0o644)
}
