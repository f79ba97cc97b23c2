package simulate

import (
	"sort"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/tracesim/tracesim/tracefmt/gen"
)

// loop is a small Bubble Tea event loop: commands run on their own
// goroutines and their messages come back on one channel, which the loop
// drains, calling Update and then View for each message as the real
// program does.
type loop struct {
	m    *Model
	msgs chan tea.Msg
}

func (l *loop) exec(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		msg := runSlice(cmd())
		if b, ok := msg.(tea.BatchMsg); ok {
			for _, c := range b {
				l.exec(c)
			}
			return
		}
		if msg != nil {
			l.msgs <- msg
		}
	}()
}

// keyAt is a key press stamped with the time it was sent.
type keyAt struct {
	key  tea.KeyPressMsg
	sent time.Time
}

// BenchmarkKeyLatencyWhileRunning measures how long a key press takes to
// reach the screen (queueing behind snapshots, Update and View) while the
// packet-level simulator runs flat out on an 8×8 torus: 64 ranks
// exchanging 8 KiB all-to-all. Each op is one key press; p99-ms and
// max-ms report the tail. The done-when bound is 50 ms.
func BenchmarkKeyLatencyWhileRunning(b *testing.B) {
	tr, err := gen.Generate(gen.Options{Pattern: "alltoall", Ranks: 64, Iters: 50, Size: 8192, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	m := newModel(b, tr, packetConfig(b, "torus:8x8"), 160, 50)
	m.plain = false
	l := &loop{m: m, msgs: make(chan tea.Msg, 64)}
	l.exec(press(m, "r"))
	keys := []tea.KeyPressMsg{{Code: tea.KeyRight}, {Code: tea.KeyLeft}}
	var lat []time.Duration
	snaps := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// Let snapshots flow between presses, as a user types.
		deadline := time.Now().Add(20 * time.Millisecond)
		for time.Now().Before(deadline) {
			select {
			case msg := <-l.msgs:
				_, cmd := m.Update(msg)
				m.View()
				l.exec(cmd)
				snaps++
			case <-time.After(time.Until(deadline)):
			}
		}
		if m.Status() != Running {
			b.Fatalf("the run stopped (%v) before the benchmark ended; use a longer trace", m.Status())
		}
		k := keyAt{keys[i%2], time.Now()}
		l.msgs <- k
		for {
			msg := <-l.msgs
			if ka, ok := msg.(keyAt); ok {
				_, cmd := m.Update(ka.key)
				m.View()
				l.exec(cmd)
				lat = append(lat, time.Since(ka.sent))
				break
			}
			_, cmd := m.Update(msg)
			m.View()
			l.exec(cmd)
			snaps++
		}
	}
	b.StopTimer()
	m.Close()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1e3, "p50-ms")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1e3, "p99-ms")
		b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1e3, "max-ms")
		b.ReportMetric(m.evRate, "engine-ev/s")
	}
}

// BenchmarkViewLive measures drawing the live pane of an 8×8 torus.
func BenchmarkViewLive(b *testing.B) {
	tr, err := gen.Generate(gen.Options{Pattern: "alltoall", Ranks: 64, Iters: 2, Size: 8192, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	m := newModel(b, tr, packetConfig(b, "torus:8x8"), 200, 60)
	m.plain = false
	drive(b, m, press(m, "t", "2", "0", "u", "s", "enter"))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.memo.Invalidate()
		m.View()
	}
}
