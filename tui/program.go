package tui

// FPS is the frame-rate cap the UI's programs run at: Bubble Tea's
// renderer draws on a ticker, never right after an update, so a key press
// waits up to one tick to reach the screen. At Bubble Tea's highest cap
// (120) that wait is at most 8.3 ms, against 16.7 ms at its default of 60;
// an idle UI costs next to nothing either way, because a tick whose view
// has not changed only compares two strings (docs/tui.md has the
// measurements).
const FPS = 120
