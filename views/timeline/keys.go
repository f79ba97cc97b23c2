package timeline

import "charm.land/bubbles/v2/key"

// KeyMap holds the Timeline's key bindings.
type KeyMap struct {
	ZoomIn, ZoomOut, Fit, Back, ZoomSel key.Binding
	PanLeft, PanRight                   key.Binding
	PageLeft, PageRight, Home, End      key.Binding
	CursorLeft, CursorRight             key.Binding
	Up, Down, PageUp, PageDown          key.Binding
	NextItem, PrevItem, Select, Clear   key.Binding
	Search, SearchNext, SearchPrev      key.Binding
	GoTo, RankFilter, Legend, Toggle    key.Binding
	AltTimes, Messages, View            key.Binding
	Cone                                key.Binding // cone.go
	promptAccept, promptCancel          key.Binding
}

// DefaultKeyMap returns the Timeline's default bindings. They avoid the
// application's global keys (tab, shift+tab, 1–9, q, ?, o, T), which the
// application handles before the view.
func DefaultKeyMap() KeyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return KeyMap{
		ZoomIn:       b("+", "zoom in", "+", "="),
		ZoomOut:      b("-", "zoom out", "-", "_"),
		Fit:          b("f/0", "fit", "f", "0"),
		Back:         b("u/⌫", "zoom back", "u", "backspace"),
		ZoomSel:      b("z", "zoom to selection", "z"),
		PanLeft:      b("←/h", "pan left", "left", "h"),
		PanRight:     b("→/l", "pan right", "right", "l"),
		PageLeft:     b("[", "page left", "[", "shift+left"),
		PageRight:    b("]", "page right", "]", "shift+right"),
		Home:         b("home", "to the start", "home"),
		End:          b("end", "to the end", "end"),
		CursorLeft:   b(",", "cursor left", ","),
		CursorRight:  b(".", "cursor right", "."),
		Up:           b("↑/k", "rank up", "up", "k"),
		Down:         b("↓/j", "rank down", "down", "j"),
		PageUp:       b("pgup", "ranks up", "pgup"),
		PageDown:     b("pgdn", "ranks down", "pgdown"),
		NextItem:     b("w", "next event", "w"),
		PrevItem:     b("b", "prev event", "b"),
		Select:       b("enter", "select", "enter"),
		Clear:        b("esc", "clear", "esc"),
		Search:       b("/", "search", "/"),
		SearchNext:   b("n", "next match", "n"),
		SearchPrev:   b("N", "prev match", "N"),
		GoTo:         b("g", "go to time", "g"),
		RankFilter:   b("r", "rank filter", "r"),
		Legend:       b("L", "legend", "L"),
		Toggle:       b("space", "show/hide state", "space"),
		AltTimes:     b("a", "alt times", "a"),
		Messages:     b("m", "message mode", "m"),
		View:         b("p", "recorded/predicted/both", "p"),
		Cone:         b("K", "causal cone", "K"),
		promptAccept: key.NewBinding(key.WithKeys("enter")),
		promptCancel: key.NewBinding(key.WithKeys("esc", "ctrl+c")),
	}
}

// ShortHelp returns the bindings shown in the one-line help.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.ZoomIn, k.ZoomOut, k.Fit, k.PanLeft, k.PanRight, k.NextItem, k.Search, k.Legend}
}

// FullHelp returns every binding, in columns.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.ZoomIn, k.ZoomOut, k.Fit, k.Back, k.ZoomSel, k.GoTo},
		{k.PanLeft, k.PanRight, k.PageLeft, k.PageRight, k.Home, k.End, k.CursorLeft, k.CursorRight},
		{k.Up, k.Down, k.PageUp, k.PageDown, k.RankFilter},
		{k.NextItem, k.PrevItem, k.Select, k.Clear, k.Search, k.SearchNext, k.SearchPrev},
		{k.Legend, k.Toggle, k.AltTimes, k.View, k.Messages, k.Cone},
	}
}
