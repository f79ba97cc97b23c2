package component

import (
	"image/color"

	"charm.land/bubbles/v2/progress"
	"github.com/charmbracelet/x/ansi"
)

// ProgressBar renders the bar every progress row shows (loading a trace,
// a run in Simulate, a running sweep): bubbles' progress, width cells at
// frac, solid fill over empty in the given colours, no percentage (the
// row writes its own). Without colour (monochrome frames and goldens) the
// bar is its glyphs alone.
func ProgressBar(width int, frac float64, fill, empty color.Color, colour bool) string {
	pb := progress.New(progress.WithWidth(max(width, 1)), progress.WithoutPercentage(),
		progress.WithFillCharacters('█', '░'), progress.WithColors(fill))
	pb.EmptyColor = empty
	bar := pb.ViewAs(frac)
	if !colour {
		bar = ansi.Strip(bar)
	}
	return bar
}
