// Package timeline is the Timeline view: a row per rank showing its states
// over time, messages between ranks as arrows (or as send/receive marks
// when zoomed out), a time ruler, an overview of the whole run with the
// visible window marked, a legend with per-state counts and times in the
// window, and a details pane for the selected state or message.
//
// # Layout
//
// From the top: the ruler (ticks about every 12 columns, labelled from
// the start of the run in the unit that suits the window: ns, µs, ms, s),
// the overview line (the state most ranks are in, the window bracketed),
// the rank rows (two lines a rank when they fit, the second holding arrows
// and marks; a scroll mark ↑/↓ when ranks are hidden above or below), and
// the details and status lines. A legend panel takes the right quarter
// when the view is at least 70 columns wide; when its states do not all
// fit two lines each it lists names only, one a line, and past that it
// ends with "+N more (L lists all)" and scrolls with its cursor. Every frame is exactly
// Width×Height cells, from 20×6 up.
//
// In colour, a cell shows two time samples (▌ with the left sample as
// foreground and the right as background); the monochrome theme (NO_COLOR)
// shows one sample a cell with the theme's fill glyph for the state's
// category. Messages are braille lines from a dot at the send (• or ● when
// selected) to a head at the receive that points the way the message went
// in time: ▶ forward, ◀ for a message received before it was sent (its
// line dashed and, in colour, in the error colour), ▼/▲ when both ends
// share a column. When the window holds more messages than arrows can
// show, each column shows a mark instead: ▸ sends, ◂ receives, ◆ both.
// Marker events (MPE user events) show as ◇ when few enough.
//
// # Keys
//
//	zoom in around the cursor  + =        zoom out               - _
//	fit the whole run          f 0        back in zoom history   u ⌫
//	zoom to the selection      z
//	pan an eighth              ← h  → l   page                   [ ] shift+←/→
//	to the start, the end      home end
//	cursor a column            , .        go to a time ("1.5ms") g
//	cursor rank (scrolls)      ↑ k  ↓ j   a page of ranks        pgup pgdn
//	next/previous event        w  b       (states and messages on the cursor rank)
//	select under the cursor    enter      clear the selection    esc
//	search                     /          next/previous match    n N
//	rank filter ("0-3,8,60-")  r          legend focus           L (↑↓, space)
//	original/alternative times a          messages mode          m (auto, arrows, marks, off)
//	causal cone of the selection K        (events concurrent with it dimmed; see cone.go)
//
// The mouse wheel zooms around the pointer (shift or horizontal wheel
// pans), a click selects, a click in the overview centres the window, a
// click in the legend shows or hides a state. Mouse positions are relative
// to the view (SetOffset adds an offset when the parent does not translate
// them).
//
// Searches take words, matched against state names, and key-operator-value
// terms: tag, size (with units: size>=4KiB), peer (either end of a
// message), from, to, comm, rank and dur (a state's or message's duration:
// dur>1ms). Terms about messages make the search find messages; "reversed"
// finds messages received before they were sent. Terms combine with AND.
//
// # Cost
//
// Drawing costs rows × columns whatever the size of the trace: when a
// trace is set, each rank gets a multi-resolution summary (power-of-two
// time bins holding the three states that fill each bin most, and message
// counts), its flattened state segments, its state intervals by state
// with prefix sums of their durations (for the legend) and its sends and
// receives in time order (for arrows). A frame reads, per row, the summary
// level whose bins are at most half a sample wide, or the segments when
// zoomed in further. For a 10 M-event trace (64 ranks) the summary takes
// about half a second of CPU and 17 bytes an event (the events themselves
// take 40); a 200×60 frame of the whole run about a millisecond. From a
// million events the summary is built in the background: New returns at
// once, the view says it is building, and the command Init returns (or
// the next Update) brings the summary in.
// Frames are cached: a message that changes nothing the view shows
// re-renders nothing.
//
// Untimed traces (SimGrid time-independent traces) are drawn by event
// order: an event's position in its rank's stream stands in for its time,
// and the status line says so.
package timeline
