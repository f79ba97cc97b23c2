package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/creack/pty"
	gossh "golang.org/x/crypto/ssh"

	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/tracefmt/tsim"
	"github.com/tracesim/tracesim/tracefmt/units"
	"github.com/tracesim/tracesim/tui"
)

// The UI benchmark (`tracesim bench --ui`) measures what a user waits for:
// the time from a key press to the end of the frame that shows it. It runs
// this very binary's `tracesim ui` in a pseudo-terminal, as a terminal
// emulator would, and answers the renderer's query for synchronized output
// (mode 2026), so that every frame arrives wrapped in ESC[?2026h …
// ESC[?2026l: the end sequence marks a frame complete, whatever its bytes.

const (
	// syncEnd closes a synchronized-output frame.
	syncEnd = "\x1b[?2026l"
	// syncQuery is Bubble Tea's DECRQM query for mode 2026, and syncReply
	// the answer of a terminal that supports the mode (2: reset).
	syncQuery = "\x1b[?2026$p"
	syncReply = "\x1b[?2026;2$y"
)

// uiBenchKeys are the keys pressed in turn: each changes the screen
// (Timeline zoom in, pan right, pan left, zoom out; next and previous
// tab), and the cycle comes back to where it started.
var uiBenchKeys = []struct{ name, seq string }{
	{"+", "+"}, {"l", "l"}, {"h", "h"}, {"-", "-"}, {"tab", "\t"}, {"shift+tab", "\x1b[Z"},
}

// uiBenchConfig is one measured configuration of `tracesim bench --ui`.
type uiBenchConfig struct {
	bin           string // the tracesim binary to run
	trace         string // the trace file it opens
	width, height int
	fps           int    // the UI's --fps
	renderer      string // the UI's --renderer
	presses       int    // keys pressed (measured)
}

// uiBenchResult is what one configuration measured.
type uiBenchResult struct {
	Renderer string  `json:"renderer"`
	FPS      int     `json:"fps"`
	Sessions int     `json:"sessions"` // terminals the process drew on
	Presses  int     `json:"presses"`
	Frames   int     `json:"frames"` // presses whose frame arrived
	Missed   int     `json:"missed"` // presses with no frame within a second
	P50ms    float64 `json:"p50_ms"`
	P90ms    float64 `json:"p90_ms"`
	P99ms    float64 `json:"p99_ms"`
	MaxMs    float64 `json:"max_ms"`
	LoadS    float64 `json:"load_s"`
	IdleCPU  float64 `json:"idle_cpu_percent"` // of one core, -1 when unknown
	// CPUPerPress is the UI's CPU time while the keys were pressed, per
	// press (ms; -1 when unknown): what a frame costs, whatever the load.
	CPUPerPress float64 `json:"cpu_ms_per_press"`
	// SwitchesPerPress counts the context switches of the UI's threads
	// while the keys were pressed, per press (-1 when unknown): each is a
	// thread put to sleep and woken again, and on a loaded host every
	// wake-up waits for a core.
	SwitchesPerPress float64 `json:"switches_per_press"`
	FrameSize        int     `json:"mean_frame_bytes"`
	// KeyP50ms is the median per key.
	KeyP50ms map[string]float64 `json:"key_p50_ms"`
	// KeyMissed counts the missed presses per key.
	KeyMissed map[string]int `json:"key_missed,omitempty"`
	// FramesPerPress is the mean number of frames a press drew until
	// the screen was still.
	FramesPerPress float64 `json:"frames_per_press"`
	// WarmupMaxMs is the slowest of the unmeasured presses before the
	// measured ones (first visits of each tab; 1000: a press that drew
	// nothing within a second, such as the Timeline's while it builds).
	WarmupMaxMs float64 `json:"warmup_max_ms"`
}

// ptyTerm is the terminal end of a pseudo-terminal: it reads what the
// program writes, with the time each read returned, and answers the
// synchronized-output query.
type ptyTerm struct {
	w      io.Writer
	ends   atomic.Int64 // frame ends read so far
	chunks chan ptyChunk
	buf    []byte // read and not yet consumed
}

type ptyChunk struct {
	data []byte
	at   time.Time
	err  error
}

func newPtyTerm(r io.Reader, w io.Writer) *ptyTerm {
	t := &ptyTerm{w: w, chunks: make(chan ptyChunk, 1024)}
	go func() {
		tail := ""
		for {
			b := make([]byte, 64<<10)
			n, err := r.Read(b)
			at := time.Now()
			if n > 0 {
				// A query may straddle two reads: look at the end of the
				// last one too.
				s := tail + string(b[:n])
				if strings.Contains(s, syncQuery) {
					_, _ = io.WriteString(w, syncReply)
				}
				// The tail is shorter than either sequence: nothing counts
				// twice.
				t.ends.Add(int64(strings.Count(s, syncEnd)))
				tail = s[max(0, len(s)-len(syncEnd)+1):]
				t.chunks <- ptyChunk{data: b[:n], at: at}
			}
			if err != nil {
				t.chunks <- ptyChunk{err: err, at: at}
				close(t.chunks)
				return
			}
		}
	}()
	return t
}

// next returns the next chunk, or ok false after timeout.
func (t *ptyTerm) next(timeout time.Duration) (ptyChunk, bool) {
	select {
	case c, ok := <-t.chunks:
		if !ok {
			return ptyChunk{err: io.EOF}, true
		}
		return c, true
	case <-time.After(timeout):
		return ptyChunk{}, false
	}
}

// quiet consumes output until none has come for d, or until limit.
func (t *ptyTerm) quiet(d, limit time.Duration) error {
	end := time.Now().Add(limit)
	for time.Now().Before(end) {
		c, ok := t.next(d)
		if !ok {
			return nil
		}
		if c.err != nil {
			return c.err
		}
		t.buf = append(t.buf, c.data...)
	}
	return fmt.Errorf("the UI never stopped drawing for %v within %v", d, limit)
}

// frameEnd waits up to timeout for the end of a frame and returns the
// time the read that completed it returned, and the frame's size.
func (t *ptyTerm) frameEnd(timeout time.Duration) (time.Time, int, bool, error) {
	end := time.Now().Add(timeout)
	size := 0
	t.buf = t.buf[:0]
	for {
		c, ok := t.next(time.Until(end))
		if !ok {
			return time.Time{}, size, false, nil
		}
		if c.err != nil {
			return time.Time{}, size, false, c.err
		}
		size += len(c.data)
		t.buf = append(t.buf, c.data...)
		if bytes.Contains(t.buf, []byte(syncEnd)) {
			return c.at, size, true, nil
		}
		t.buf = t.buf[max(0, len(t.buf)-len(syncEnd)+1):]
	}
}

// waitFor consumes output until its text (escape sequences removed)
// contains every one of want.
func (t *ptyTerm) waitFor(limit time.Duration, want ...string) error {
	end := time.Now().Add(limit)
	var all []byte
	for {
		c, ok := t.next(time.Until(end))
		if !ok {
			return fmt.Errorf("the UI never showed %q within %v", want, limit)
		}
		if c.err != nil {
			text := strings.TrimSpace(stripEscapes(all))
			return fmt.Errorf("the UI ended before showing %q (%w); it wrote: %s", want, c.err, text[max(0, len(text)-500):])
		}
		all = append(all, c.data...)
		text := stripEscapes(all)
		if !slices.ContainsFunc(want, func(w string) bool { return !strings.Contains(text, w) }) {
			return nil
		}
	}
}

// stripEscapes returns b without CSI, OSC and two-byte escape sequences:
// enough to find a word the UI drew.
func stripEscapes(b []byte) string {
	var out strings.Builder
	for i := 0; i < len(b); i++ {
		if b[i] != 0x1b {
			out.WriteByte(b[i])
			continue
		}
		if i+1 >= len(b) {
			break
		}
		switch b[i+1] {
		case '[': // CSI: parameters, then a final byte in @–~
			j := i + 2
			for j < len(b) && (b[j] < 0x40 || b[j] > 0x7e) {
				j++
			}
			i = j
		case ']': // OSC: up to BEL or ST
			j := i + 2
			for j < len(b) && b[j] != 0x07 && (b[j] != 0x1b || j+1 >= len(b) || b[j+1] != '\\') {
				j++
			}
			if j < len(b) && b[j] == 0x1b {
				j++
			}
			i = j
		default:
			i++
		}
		// Cursor moves stand for spaces: keep words apart.
		out.WriteByte(' ')
	}
	return out.String()
}

// uiGroup is one measured configuration while it runs: a process (the UI,
// or the SSH server) and the terminals it draws on (one, or one per SSH
// session), whose presses are measured together.
type uiGroup struct {
	c       uiBenchConfig
	cmd     *exec.Cmd
	closers []io.Closer // the terminals' connections, then the server's
	terms   []*ptyTerm
	loadS   float64
	lat     []time.Duration
	byKey   map[string][]time.Duration
	bytes   int
	miss    int
	presses int
	// drawn counts the frames each measured press drew, until the screen
	// was still again; keyMiss the presses of each key that drew none.
	drawn   int
	keyMiss map[string]int
	// pressCPU is the CPU time the process used while the keys were
	// pressed, -1 when unknown; pressSwitches its threads' context
	// switches meanwhile, -1 when unknown.
	pressCPU      time.Duration
	pressSwitches int
	// warm is the slowest unmeasured press before the measured ones.
	warm time.Duration
}

// benchEnv is the environment of a terminal that is neither over SSH nor
// a named program: Bubble Tea asks it about synchronized output.
func benchEnv() []string {
	env := slices.DeleteFunc(os.Environ(), func(s string) bool {
		return strings.HasPrefix(s, "TERM=") || strings.HasPrefix(s, "TERM_PROGRAM=") ||
			strings.HasPrefix(s, "SSH_TTY=") || strings.HasPrefix(s, "NO_COLOR=")
	})
	return append(env, "TERM=xterm-256color", "COLORTERM=truecolor")
}

// startUI starts the UI of configuration c in a pseudo-terminal and
// waits until it has loaded and drawn its trace.
func startUI(c uiBenchConfig) (*uiGroup, error) {
	cmd := exec.Command(c.bin, "--theme", "dark", "--fps", strconv.Itoa(c.fps), "--renderer", c.renderer, c.trace)
	cmd.Env = benchEnv()
	start := time.Now()
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: uint16(c.height), Cols: uint16(c.width)})
	if err != nil {
		return nil, fmt.Errorf("starting %s in a pseudo-terminal: %w", c.bin, err)
	}
	g := &uiGroup{c: c, cmd: cmd, closers: []io.Closer{f}, terms: []*ptyTerm{newPtyTerm(f, f)}}
	if err := g.terms[0].loaded(filepath.Base(c.trace)); err != nil {
		g.stop()
		return nil, err
	}
	g.loadS = time.Since(start).Seconds()
	return g, nil
}

// timelineBuilt is a word the Timeline shows only once it has built its
// summary (the title of its legend): before, a big trace's Timeline shows
// that it is building, and ignores keys.
const timelineBuilt = "States"

// loaded waits until the terminal shows name (the Timeline's title names
// the file once it is loaded) and the Timeline's built summary, and then
// stays still.
func (t *ptyTerm) loaded(name string) error {
	if err := t.waitFor(10*time.Minute, name, timelineBuilt); err != nil {
		return err
	}
	return t.quiet(300*time.Millisecond, 10*time.Minute)
}

func (g *uiGroup) stop() {
	_ = g.cmd.Process.Kill()
	for _, c := range g.closers {
		_ = c.Close()
	}
	_ = g.cmd.Wait()
}

// warmUp presses the keys of uiBenchKeys in turn on terminal t, unmeasured,
// until a whole cycle of them drew a frame each, and returns the slowest
// press's time to its frame (a press that drew none counts as the second
// it was waited for). Right after the load a big trace's Timeline still
// builds its summary in the background and ignores keys meanwhile, and a
// tab builds its view and derived data on its first visit: neither is the
// latency of a key press on a loaded UI, which the measured presses are.
func (g *uiGroup) warmUp(t *ptyTerm) (time.Duration, error) {
	var slowest time.Duration
	for range 100 {
		all := true
		for _, k := range uiBenchKeys {
			p, err := t.press(k.seq)
			if err != nil {
				return slowest, fmt.Errorf("warming up, key %s: %w", k.name, err)
			}
			slowest = max(slowest, p.d)
			all = all && p.ok
		}
		if all {
			return slowest, nil
		}
	}
	return slowest, errors.New("warming up: after 100 cycles some key still drew no frame within a second")
}

// pressed is what one key press drew.
type pressed struct {
	d     time.Duration // from the write of the key to the end of its frame
	bytes int           // the frame's size
	ok    bool          // a frame ended within a second (else d is that second)
	drawn int           // frames drawn until the screen was still again
}

// press writes key seq on a still screen (so that the next frame is the
// press's) and times its frame, then waits for the screen to be still.
func (t *ptyTerm) press(seq string) (pressed, error) {
	if err := t.quiet(30*time.Millisecond, 10*time.Second); err != nil {
		return pressed{}, err
	}
	ends := t.ends.Load()
	sent := time.Now()
	if _, err := io.WriteString(t.w, seq); err != nil {
		return pressed{}, err
	}
	at, n, ok, err := t.frameEnd(time.Second)
	if err != nil {
		return pressed{}, err
	}
	p := pressed{d: time.Second, bytes: n, ok: ok}
	if ok {
		p.d = at.Sub(sent)
	}
	// Count the frames the press drew, the first one included, once the
	// screen is still again.
	_ = t.quiet(30*time.Millisecond, 10*time.Second)
	p.drawn = int(t.ends.Load() - ends)
	return p, nil
}

// press presses key i of uiBenchKeys on terminal t and records the time
// to the end of its frame.
func (g *uiGroup) press(t *ptyTerm, i int) error {
	k := uiBenchKeys[i%len(uiBenchKeys)]
	g.presses++
	p, err := t.press(k.seq)
	if err != nil {
		return fmt.Errorf("pressing %s: %w", k.name, err)
	}
	g.drawn += p.drawn
	if !p.ok {
		g.miss++
		if g.keyMiss == nil {
			g.keyMiss = map[string]int{}
		}
		g.keyMiss[k.name]++
		return nil
	}
	g.lat = append(g.lat, p.d)
	if g.byKey == nil {
		g.byKey = map[string][]time.Duration{}
	}
	g.byKey[k.name] = append(g.byKey[k.name], p.d)
	g.bytes += p.bytes
	return nil
}

// result summarises what g measured.
func (g *uiGroup) result() (uiBenchResult, error) {
	res := uiBenchResult{Renderer: g.c.renderer, FPS: g.c.fps, Sessions: len(g.terms), Presses: g.presses, Missed: g.miss,
		LoadS: g.loadS, IdleCPU: -1, CPUPerPress: -1, SwitchesPerPress: -1, WarmupMaxMs: g.warm.Seconds() * 1e3}
	if g.pressCPU >= 0 && g.presses > 0 {
		res.CPUPerPress = g.pressCPU.Seconds() * 1e3 / float64(g.presses)
	}
	if g.pressSwitches >= 0 && g.presses > 0 {
		res.SwitchesPerPress = float64(g.pressSwitches) / float64(g.presses)
	}
	lat := slices.Clone(g.lat)
	if len(lat) == 0 {
		return res, errors.New("no key press changed the screen (does the terminal answer the mode 2026 query?)")
	}
	res.Frames = len(lat)
	res.FrameSize = g.bytes / len(lat)
	slices.Sort(lat)
	ms := func(q float64) float64 {
		return lat[min(len(lat)-1, int(q*float64(len(lat))))].Seconds() * 1e3
	}
	res.P50ms, res.P90ms, res.P99ms = ms(0.50), ms(0.90), ms(0.99)
	res.MaxMs = lat[len(lat)-1].Seconds() * 1e3
	res.KeyMissed = g.keyMiss
	res.FramesPerPress = float64(g.drawn) / float64(g.presses)
	res.KeyP50ms = map[string]float64{}
	for k, l := range g.byKey {
		l = slices.Clone(l)
		slices.Sort(l)
		res.KeyP50ms[k] = l[len(l)/2].Seconds() * 1e3
	}
	return res, nil
}

// runUIBench runs the configurations side by side, each started by
// start, pressing the same key in each in turn (in each of a group's
// terminals in turn), so that they share whatever else the machine is
// doing; then it measures their CPU use while idle, together. With
// realtime the harness's own threads run under SCHED_FIFO once the
// processes are started (harnessRealtime).
func runUIBench(cs []uiBenchConfig, start func(uiBenchConfig) (*uiGroup, error), idle time.Duration, realtime bool) ([]uiBenchResult, error) {
	var gs []*uiGroup
	defer func() {
		for _, g := range gs {
			g.stop()
		}
	}()
	for _, c := range cs {
		g, err := start(c)
		if err != nil {
			return nil, err
		}
		gs = append(gs, g)
	}
	if realtime {
		// After the starts: the measured processes keep the normal policy.
		if err := harnessRealtime(); err != nil {
			return nil, err
		}
	}
	for _, g := range gs {
		for _, t := range g.terms {
			d, err := g.warmUp(t)
			if err != nil {
				return nil, err
			}
			g.warm = max(g.warm, d)
		}
	}
	cpu0 := make([]time.Duration, len(gs))
	cpu0ok := make([]bool, len(gs))
	sw0 := make([]int, len(gs))
	for i, g := range gs {
		cpu0[i], cpu0ok[i] = procCPU(g.cmd.Process.Pid)
		sw0[i] = procSwitches(g.cmd.Process.Pid)
	}
	for i := range cs[0].presses {
		for _, g := range gs {
			t := g.terms[i%len(g.terms)]
			if err := g.press(t, i/len(g.terms)); err != nil {
				return nil, err
			}
		}
	}
	for i, g := range gs {
		g.pressCPU = -1
		if cpu, ok := procCPU(g.cmd.Process.Pid); ok && cpu0ok[i] {
			g.pressCPU = cpu - cpu0[i]
		}
		g.pressSwitches = -1
		if sw := procSwitches(g.cmd.Process.Pid); sw >= 0 && sw0[i] >= 0 {
			g.pressSwitches = sw - sw0[i]
		}
	}
	var out []uiBenchResult
	for _, g := range gs {
		r, err := g.result()
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	if idle > 0 {
		for i, cpu := range idleCPU(gs, idle) {
			out[i].IdleCPU = cpu
		}
	}
	return out, nil
}

// idleCPU returns the CPU time each group's process spent during d while
// nothing was pressed, in per cent of one core; -1 where /proc is not
// available. Output read meanwhile is discarded.
func idleCPU(gs []*uiGroup, d time.Duration) []float64 {
	for _, g := range gs {
		for _, t := range g.terms {
			_ = t.quiet(100*time.Millisecond, 10*time.Second)
		}
	}
	before := make([]time.Duration, len(gs))
	out := make([]float64, len(gs))
	for i, g := range gs {
		var ok bool
		if before[i], ok = procCPU(g.cmd.Process.Pid); !ok {
			out[i] = -1
		}
	}
	start := time.Now()
	for time.Since(start) < d {
		for _, g := range gs {
			for _, t := range g.terms {
				// Keep the terminals read; nothing is expected.
				_ = t.quiet(time.Millisecond, time.Millisecond)
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	elapsed := time.Since(start)
	for i, g := range gs {
		after, ok := procCPU(g.cmd.Process.Pid)
		if out[i] < 0 || !ok {
			out[i] = -1
			continue
		}
		out[i] = (after - before[i]).Seconds() / elapsed.Seconds() * 100
	}
	return out
}

// procCPU returns the CPU time process pid has used (Linux): the sum of
// its threads' run times from /proc/PID/task/*/schedstat, in
// nanoseconds, or else user plus system time from /proc/PID/stat. The
// latter counts in ticks of 1/100 s, too coarse for a dozen presses of
// a millisecond each: they would read as 0.
func procCPU(pid int) (time.Duration, bool) {
	if d, ok := procSchedCPU(pid); ok {
		return d, true
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// The command name (field 2) may hold spaces: count from after it.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	fields := strings.Fields(string(b[i+1:]))
	// fields[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(fields) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseInt(fields[11], 10, 64)
	s, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(u+s) * 10 * time.Millisecond, true
}

// procSchedCPU sums the run time of process pid's threads from
// /proc/PID/task/*/schedstat (its first field, in nanoseconds); false
// when the kernel keeps no such file. A thread that ended takes its
// time with it; the Go runtime rarely ends one.
func procSchedCPU(pid int) (time.Duration, bool) {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return 0, false
	}
	var total time.Duration
	read := 0
	for _, t := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/schedstat", pid, t.Name()))
		if err != nil {
			if os.IsNotExist(err) && read == 0 {
				return 0, false // no schedstat in this kernel
			}
			continue // the thread ended meanwhile
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			return 0, false
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, false
		}
		total += time.Duration(ns)
		read++
	}
	return total, read > 0
}

// procSwitches sums the voluntary and involuntary context switches of
// process pid's threads (Linux: /proc/PID/task/*/status), -1 when
// unknown. A thread that ended takes its count with it.
func procSwitches(pid int) int {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return -1
	}
	total := 0
	for _, t := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/status", pid, t.Name()))
		if err != nil {
			continue // the thread ended meanwhile
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "voluntary_ctxt_switches:"); ok {
				n, _ := strconv.Atoi(strings.TrimSpace(v))
				total += n
			} else if v, ok := strings.CutPrefix(line, "nonvoluntary_ctxt_switches:"); ok {
				n, _ := strconv.Atoi(strings.TrimSpace(v))
				total += n
			}
		}
	}
	return total
}

// benchUIFlags are the flags of `tracesim bench --ui`.
type benchUIFlags struct {
	on            bool
	events        int
	eventsSet     bool
	width, height int
	presses       int
	fpsList       string
	renderers     string // the renderers to compare, comma-separated
	ssh           int    // sessions of `tracesim serve` instead of the UI; 0: the UI
	idle          time.Duration
	json          bool
	// realtime runs the harness under SCHED_FIFO (harnessRealtime).
	realtime bool
}

// runBenchUI is `tracesim bench --ui`: it writes a generated trace of
// about f.events events to a temporary directory and measures key-to-
// screen times of this binary's UI at each frame-rate cap.
func runBenchUI(e *env, f benchUIFlags) int {
	var fpsCaps []int
	for _, s := range strings.Split(f.fpsList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 || n > maxFPS {
			fmt.Fprintf(e.stderr, "tracesim bench: --fps: %q is not a frame rate from 1 to %d\n", s, maxFPS)
			return exitUsage
		}
		fpsCaps = append(fpsCaps, n)
	}
	var renderers []string
	for _, s := range strings.Split(f.renderers, ",") {
		s = strings.TrimSpace(s)
		if err := tui.CheckRenderer(s); err != nil {
			fmt.Fprintf(e.stderr, "tracesim bench: --%v\n", err)
			return exitUsage
		}
		renderers = append(renderers, s)
	}
	if f.events < 1000 || f.presses < 1 {
		fmt.Fprintln(e.stderr, "tracesim bench: --ui needs --events of at least 1000 and --presses of at least 1")
		return exitUsage
	}
	bin, err := os.Executable()
	if err != nil {
		return fail(e, "bench", err)
	}
	dir, err := os.MkdirTemp("", "tracesim-bench-ui-")
	if err != nil {
		return fail(e, "bench", err)
	}
	defer os.RemoveAll(dir)
	trace := filepath.Join(dir, "bench-ui.tsim")
	events, err := writeBenchTrace(trace, f.events)
	if err != nil {
		return fail(e, "bench", err)
	}
	tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
	if !f.json {
		where := "the UI in a pseudo-terminal"
		if f.ssh > 0 {
			where = fmt.Sprintf("%d SSH sessions of tracesim serve, in turn", f.ssh)
		}
		harness := ""
		if f.realtime {
			harness = "; harness under SCHED_FIFO"
		}
		fmt.Fprintf(e.stdout, "input: stencil2d, 64 ranks, %d events; %s, %d×%d; %d key presses (%s); %s/%s, %d CPUs%s\n\n",
			events, where, f.width, f.height, f.presses, uiBenchKeyNames(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), harness)
		fmt.Fprintln(tw, "RENDERER\tFPS CAP\tP50\tP90\tP99\tMAX\tMISSED\tCPU/PRESS\tSWITCHES/PRESS\tIDLE CPU\tLOAD\tWARM-UP MAX")
	}
	var cs []uiBenchConfig
	for _, r := range renderers {
		for _, fps := range fpsCaps {
			cs = append(cs, uiBenchConfig{bin: bin, trace: trace, width: f.width, height: f.height, fps: fps, renderer: r, presses: f.presses})
		}
	}
	start := startUI
	if f.ssh > 0 {
		start = func(c uiBenchConfig) (*uiGroup, error) { return startServeUI(c, f.ssh) }
	}
	results, err := runUIBench(cs, start, f.idle, f.realtime)
	if err != nil {
		return fail(e, "bench", err)
	}
	for _, r := range results {
		if !f.json {
			idle := "n/a"
			if r.IdleCPU >= 0 {
				idle = fmt.Sprintf("%.2f%%", r.IdleCPU)
			}
			cpu := "n/a"
			if r.CPUPerPress >= 0 {
				cpu = ms(r.CPUPerPress)
			}
			switches := "n/a"
			if r.SwitchesPerPress >= 0 {
				switches = fmt.Sprintf("%.1f", r.SwitchesPerPress)
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n",
				r.Renderer, r.FPS, ms(r.P50ms), ms(r.P90ms), ms(r.P99ms), ms(r.MaxMs), r.Missed, cpu, switches, idle, units.FormatDurationSig(r.LoadS, 3), ms(r.WarmupMaxMs))
		}
	}
	tw.Flush()
	if f.json {
		return writeJSON(e, "bench", map[string]any{
			"events": events, "width": f.width, "height": f.height, "cpus": runtime.NumCPU(),
			"keys": uiBenchKeyNames(), "ssh_sessions": f.ssh, "realtime_harness": f.realtime, "results": results,
		})
	}
	return exitOK
}

func uiBenchKeyNames() string {
	var names []string
	for _, k := range uiBenchKeys {
		names = append(names, k.name)
	}
	return strings.Join(names, " ")
}

// writeBenchTrace writes a 64-rank stencil2d trace of about events events
// to path as tsim, as `tracesim gen stencil2d --ranks 64 --iters N` would,
// and returns its number of events.
func writeBenchTrace(path string, events int) (int, error) {
	o := gen.Options{Pattern: "stencil2d", Ranks: 64, Iters: 1, Compute: -1}
	c, err := gen.Expect(o)
	if err != nil {
		return 0, err
	}
	o.Iters = max(1, (events+c.Events/2)/c.Events)
	t, err := gen.Generate(o)
	if err != nil {
		return 0, fmt.Errorf("generating the input: %w", err)
	}
	out, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	if err := tsim.Write(out, t); err != nil {
		out.Close()
		return 0, fmt.Errorf("writing %s: %w", path, err)
	}
	return t.NumEvents(), out.Close()
}

// startServeUI starts `tracesim serve` on the directory of c's trace and
// opens sessions SSH sessions on it, each with a c.width×c.height
// terminal, and waits until every one has loaded and drawn the trace.
func startServeUI(c uiBenchConfig, sessions int) (*uiGroup, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	dir := filepath.Dir(c.trace)
	cmd := exec.Command(c.bin, "serve", "--allow-anonymous", "--library", dir, "--listen", addr,
		"--host-key", filepath.Join(dir, fmt.Sprintf("host-key-%s-%d", c.renderer, c.fps)), "--fps", strconv.Itoa(c.fps), "--renderer", c.renderer,
		"--theme", "dark", "--max-sessions", strconv.Itoa(sessions), "--per-source-max-startups", "100")
	cmd.Env = benchEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s serve: %w", c.bin, err)
	}
	g := &uiGroup{c: c, cmd: cmd}
	name := strings.TrimSuffix(filepath.Base(c.trace), filepath.Ext(c.trace))
	for range sessions {
		t, closer, err := dialBenchSession(addr, name, c.width, c.height)
		if err != nil {
			g.stop()
			return nil, fmt.Errorf("%w; the server said: %s", err, stderr.String())
		}
		g.closers = append(g.closers, closer)
		g.terms = append(g.terms, t)
		if err := t.loaded(filepath.Base(c.trace)); err != nil {
			g.stop()
			return nil, err
		}
	}
	g.loadS = time.Since(start).Seconds()
	return g, nil
}

// dialBenchSession opens an SSH session with a terminal at addr (waiting
// up to a minute for the server to listen) on trace name.
func dialBenchSession(addr, name string, width, height int) (*ptyTerm, io.Closer, error) {
	cfg := &gossh.ClientConfig{User: "bench", HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: time.Minute}
	var client *gossh.Client
	var err error
	for end := time.Now().Add(time.Minute); ; {
		if client, err = gossh.Dial("tcp", addr, cfg); err == nil || time.Now().After(end) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("connecting to %s: %w", addr, err)
	}
	sess, err := client.NewSession()
	if err != nil {
		client.Close()
		return nil, nil, err
	}
	if err := sess.RequestPty("xterm-256color", height, width, gossh.TerminalModes{}); err != nil {
		client.Close()
		return nil, nil, err
	}
	in, err1 := sess.StdinPipe()
	out, err2 := sess.StdoutPipe()
	if err := errors.Join(err1, err2); err != nil {
		client.Close()
		return nil, nil, err
	}
	if err := sess.Start(name); err != nil {
		client.Close()
		return nil, nil, err
	}
	return newPtyTerm(out, in), client, nil
}

// ms formats a duration given in milliseconds, to three digits.
func ms(v float64) string { return units.FormatDurationSig(v/1e3, 3) }
