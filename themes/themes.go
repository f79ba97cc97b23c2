// Package themes holds tracesim's colour palettes and the styles built from
// them: dark and light themes, a colour-blind-safe palette (Okabe–Ito), and a
// monochrome theme for NO_COLOR terminals that tells states apart by glyphs
// instead of colours.
//
// A Theme is a value: each session (each SSH user) builds its own, so no
// state is shared between sessions.
package themes

import (
	"fmt"
	"image/color"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/tracesim/tracesim/tracefmt"
)

// Theme is a palette plus the styles derived from it.
type Theme struct {
	// Name is the theme's name as given to --theme.
	Name string
	// Dark reports whether the theme is meant for a dark background.
	Dark bool
	// Mono is true for the monochrome theme: colours are nil and views
	// must use glyphs (Fill) and attributes to distinguish things.
	Mono bool

	Background, Foreground, Muted, Subtle, Accent, Border, Selection color.Color
	OK, Warning, Error                                               color.Color

	// Categories gives the default colour of each state category; a
	// state's own colour (from the trace) takes precedence.
	Categories [7]color.Color
	// Heat is a perceptually ordered ramp from low to high (empty → full
	// links, few → many bytes), at least 8 steps.
	Heat []color.Color
	// Series colours lines in charts and tells runs apart in comparisons.
	Series []color.Color

	Styles Styles
}

// Styles are the lipgloss styles of the shell and of small widgets.
type Styles struct {
	App, Title, TabActive, TabInactive, StatusBar, StatusKey, StatusValue lipgloss.Style
	HelpKey, HelpDesc, HelpSep, Border, Dim, Bold, Selected, Error, Warn  lipgloss.Style
	Panel, PanelTitle, TableHeader, TableCell, TableSelected              lipgloss.Style
}

// Names lists the themes ByName knows.
func Names() []string { return []string{"dark", "light", "colorblind", "mono"} }

// ByName returns the named theme.
func ByName(name string) (*Theme, error) {
	switch strings.ToLower(name) {
	case "dark":
		return Dark(), nil
	case "light":
		return Light(), nil
	case "colorblind", "colourblind", "cb":
		return ColorBlind(true), nil
	case "mono", "monochrome", "none":
		return Mono(), nil
	}
	return nil, fmt.Errorf("unknown theme %q (known: %s)", name, strings.Join(Names(), ", "))
}

// NoColor reports whether the environment asks for no colour (NO_COLOR set
// to any non-empty value, see no-color.org).
func NoColor(environ []string) bool {
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "NO_COLOR="); ok && v != "" {
			return true
		}
	}
	return false
}

// Default returns the theme for a session: monochrome when NO_COLOR is set
// in environ, else dark or light by the terminal's background.
func Default(environ []string, darkBackground bool) *Theme {
	if NoColor(environ) {
		return Mono()
	}
	if darkBackground {
		return Dark()
	}
	return Light()
}

func hex(s string) color.Color { return lipgloss.Color(s) }

// Dark returns the default theme for dark terminals.
func Dark() *Theme {
	t := &Theme{
		Name: "dark", Dark: true,
		Background: hex("#1b1d23"), Foreground: hex("#d8dee9"), Muted: hex("#7b8496"),
		Subtle: hex("#3b4252"), Accent: hex("#88c0d0"), Border: hex("#4c566a"),
		Selection: hex("#ebcb8b"), OK: hex("#a3be8c"), Warning: hex("#ebcb8b"), Error: hex("#bf616a"),
	}
	t.Categories = [7]color.Color{
		tracefmt.CatOther:      hex("#8f9bb3"),
		tracefmt.CatP2P:        hex("#e06c75"),
		tracefmt.CatCollective: hex("#c678dd"),
		tracefmt.CatWait:       hex("#e5c07b"),
		tracefmt.CatCompute:    hex("#56b6c2"),
		tracefmt.CatIO:         hex("#d19a66"),
		tracefmt.CatUser:       hex("#61afef"),
	}
	t.Heat = viridis
	t.Series = []color.Color{hex("#61afef"), hex("#e06c75"), hex("#98c379"), hex("#e5c07b"), hex("#c678dd"), hex("#56b6c2")}
	t.Styles = buildStyles(t)
	return t
}

// Light returns the default theme for light terminals.
func Light() *Theme {
	t := &Theme{
		Name: "light", Dark: false,
		Background: hex("#fafafa"), Foreground: hex("#24292f"), Muted: hex("#6e7781"),
		Subtle: hex("#d0d7de"), Accent: hex("#0969da"), Border: hex("#8c959f"),
		Selection: hex("#bf8700"), OK: hex("#1a7f37"), Warning: hex("#9a6700"), Error: hex("#cf222e"),
	}
	t.Categories = [7]color.Color{
		tracefmt.CatOther:      hex("#6e7781"),
		tracefmt.CatP2P:        hex("#cf222e"),
		tracefmt.CatCollective: hex("#8250df"),
		tracefmt.CatWait:       hex("#bf8700"),
		tracefmt.CatCompute:    hex("#1b7c83"),
		tracefmt.CatIO:         hex("#bc4c00"),
		tracefmt.CatUser:       hex("#0969da"),
	}
	t.Heat = viridis
	t.Series = []color.Color{hex("#0969da"), hex("#cf222e"), hex("#1a7f37"), hex("#9a6700"), hex("#8250df"), hex("#1b7c83")}
	t.Styles = buildStyles(t)
	return t
}

// ColorBlind returns a theme whose colours stay distinguishable with the
// common forms of colour blindness: the Okabe–Ito palette for categories
// and cividis for heat maps.
func ColorBlind(dark bool) *Theme {
	base := Light()
	if dark {
		base = Dark()
	}
	t := *base
	t.Name = "colorblind"
	okabeIto := []color.Color{
		hex("#E69F00"), hex("#56B4E9"), hex("#009E73"), hex("#F0E442"),
		hex("#0072B2"), hex("#D55E00"), hex("#CC79A7"), hex("#999999"),
	}
	t.Categories = [7]color.Color{
		tracefmt.CatOther:      okabeIto[7],
		tracefmt.CatP2P:        okabeIto[5],
		tracefmt.CatCollective: okabeIto[6],
		tracefmt.CatWait:       okabeIto[0],
		tracefmt.CatCompute:    okabeIto[1],
		tracefmt.CatIO:         okabeIto[3],
		tracefmt.CatUser:       okabeIto[4],
	}
	t.OK, t.Warning, t.Error = okabeIto[2], okabeIto[0], okabeIto[5]
	t.Heat = cividis
	t.Series = okabeIto[:7]
	t.Styles = buildStyles(&t)
	return &t
}

// Mono returns the monochrome theme (NO_COLOR, --no-color).
func Mono() *Theme {
	t := &Theme{Name: "mono", Dark: true, Mono: true}
	t.Heat = make([]color.Color, 8)
	t.Series = make([]color.Color, 6)
	t.Styles = buildStyles(t)
	return t
}

// fillGlyphs tells categories apart without colour.
var fillGlyphs = [7]rune{
	tracefmt.CatOther:      '▒',
	tracefmt.CatP2P:        '█',
	tracefmt.CatCollective: '▓',
	tracefmt.CatWait:       '░',
	tracefmt.CatCompute:    ' ',
	tracefmt.CatIO:         '≡',
	tracefmt.CatUser:       '▚',
}

// Fill returns the glyph that fills a state of category c. Coloured themes
// use a full block; the monochrome theme uses a distinct pattern per
// category.
func (t *Theme) Fill(c tracefmt.Category) rune {
	if !t.Mono {
		return '█'
	}
	if int(c) < len(fillGlyphs) {
		return fillGlyphs[c]
	}
	return '▒'
}

// HeatGlyph returns the monochrome glyph of a non-zero heat value at
// position v in [0, 1] of its scale: ░ ▒ ▓ █ by quarter, so that the
// smallest value still shows. Zero ("none") is the caller's to draw,
// since it means different things: '·' in the traffic matrix, the link's
// own line in Simulate's link map.
func HeatGlyph(v float64) rune {
	switch {
	case !(v > 0.25): // NaN too
		return '░'
	case v <= 0.5:
		return '▒'
	case v <= 0.75:
		return '▓'
	}
	return '█'
}

// HeatColor returns the colour of v in [0, 1] on the theme's heat ramp (nil
// in the monochrome theme).
func (t *Theme) HeatColor(v float64) color.Color {
	if t.Mono || len(t.Heat) == 0 {
		return nil
	}
	if v != v || v < 0 {
		v = 0
	}
	if v > 1 {
		v = 1
	}
	i := int(v*float64(len(t.Heat)-1) + 0.5)
	return t.Heat[i]
}

// StateColor returns the colour to draw a state in: the colour the trace
// gives it when that parses, else its category's colour. Nil in the
// monochrome theme.
func (t *Theme) StateColor(d *tracefmt.StateDef) color.Color {
	if t.Mono {
		return nil
	}
	if c, ok := ParseColor(d.Color); ok {
		return c
	}
	if int(d.Category) < len(t.Categories) {
		return t.Categories[d.Category]
	}
	return t.Categories[tracefmt.CatOther]
}

func buildStyles(t *Theme) Styles {
	s := lipgloss.NewStyle
	fg := func(c color.Color) lipgloss.Style {
		if c == nil {
			return s()
		}
		return s().Foreground(c)
	}
	st := Styles{
		App:         s(),
		Title:       fg(t.Accent).Bold(true),
		TabActive:   fg(t.Accent).Bold(true).Underline(true).Padding(0, 1),
		TabInactive: fg(t.Muted).Padding(0, 1),
		StatusBar:   fg(t.Foreground),
		StatusKey:   fg(t.Muted),
		StatusValue: fg(t.Foreground).Bold(true),
		HelpKey:     fg(t.Accent).Bold(true),
		HelpDesc:    fg(t.Muted),
		HelpSep:     fg(t.Subtle),
		Border:      fg(t.Border),
		Dim:         fg(t.Muted),
		Bold:        s().Bold(true),
		Selected:    fg(t.Selection).Bold(true),
		Error:       fg(t.Error).Bold(true),
		Warn:        fg(t.Warning).Bold(true),
		Panel:       s().Border(lipgloss.RoundedBorder()),
		PanelTitle:  fg(t.Accent).Bold(true),
		TableHeader: fg(t.Muted).Bold(true),
		TableCell:   fg(t.Foreground),
		TableSelected: func() lipgloss.Style {
			if t.Mono {
				return s().Reverse(true)
			}
			return s().Foreground(t.Background).Background(t.Selection)
		}(),
	}
	if t.Border != nil {
		st.Panel = st.Panel.BorderForeground(t.Border)
	}
	if t.Mono {
		st.TabActive = s().Bold(true).Reverse(true).Padding(0, 1)
		st.Selected = s().Bold(true).Reverse(true)
	}
	return st
}
