package themes

import (
	"image/color"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

func TestParseColor(t *testing.T) {
	tests := []struct {
		in   string
		want color.RGBA
		ok   bool
	}{
		{"#ff0000", color.RGBA{255, 0, 0, 255}, true},
		{"#0f0", color.RGBA{0, 255, 0, 255}, true},
		{"255 128 0", color.RGBA{255, 128, 0, 255}, true},
		{"ForestGreen", color.RGBA{0x22, 0x8b, 0x22, 255}, true},
		{"forest green", color.RGBA{0x22, 0x8b, 0x22, 255}, true},
		{"red:gray", color.RGBA{255, 0, 0, 255}, true},
		{"SteelBlue3", color.RGBA{0x46, 0x82, 0xb4, 255}, true},
		{"gray50", color.RGBA{127, 127, 127, 255}, true},
		{"", color.RGBA{}, false},
		{"#12345", color.RGBA{}, false},
		{"nosuchcolour", color.RGBA{}, false},
		{"300 0 0", color.RGBA{}, false},
	}
	for _, tt := range tests {
		c, ok := ParseColor(tt.in)
		if ok != tt.ok {
			t.Errorf("ParseColor(%q) ok = %v", tt.in, ok)
			continue
		}
		if ok {
			r, g, b, _ := c.RGBA()
			got := color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 255}
			if got != tt.want {
				t.Errorf("ParseColor(%q) = %v, want %v", tt.in, got, tt.want)
			}
		}
	}
}

func TestThemes(t *testing.T) {
	for _, name := range Names() {
		th, err := ByName(name)
		if err != nil {
			t.Fatal(err)
		}
		if th.Name != name {
			t.Errorf("ByName(%q).Name = %q", name, th.Name)
		}
		if len(th.Heat) < 8 {
			t.Errorf("%s: heat ramp has %d steps", name, len(th.Heat))
		}
		d := tracefmt.StateDef{Name: "MPI_Send", Category: tracefmt.CatP2P}
		if th.Mono != (th.StateColor(&d) == nil) {
			t.Errorf("%s: state colour presence wrong", name)
		}
	}
	if _, err := ByName("sepia"); err == nil {
		t.Error("unknown theme accepted")
	}
}

func TestStateColorPrefersTraceColour(t *testing.T) {
	th := Dark()
	d := tracefmt.StateDef{Name: "x", Color: "#010203", Category: tracefmt.CatP2P}
	r, g, b, _ := th.StateColor(&d).RGBA()
	if r>>8 != 1 || g>>8 != 2 || b>>8 != 3 {
		t.Errorf("trace colour ignored")
	}
	d.Color = "not a colour"
	if th.StateColor(&d) != th.Categories[tracefmt.CatP2P] {
		t.Errorf("category fallback not used")
	}
}

func TestMonoDistinctFills(t *testing.T) {
	th := Mono()
	seen := map[rune]tracefmt.Category{}
	for c := tracefmt.CatOther; c <= tracefmt.CatUser; c++ {
		f := th.Fill(c)
		if prev, dup := seen[f]; dup {
			t.Errorf("categories %v and %v share glyph %q", prev, c, f)
		}
		seen[f] = c
	}
}

func TestNoColor(t *testing.T) {
	if !NoColor([]string{"NO_COLOR=1"}) || NoColor([]string{"NO_COLOR="}) || NoColor(nil) {
		t.Error("NoColor")
	}
	if !Default([]string{"NO_COLOR=1"}, true).Mono {
		t.Error("Default ignores NO_COLOR")
	}
	if Default(nil, false).Dark {
		t.Error("Default light")
	}
}

func TestHeat(t *testing.T) {
	th := Dark()
	if th.HeatColor(0) != th.Heat[0] || th.HeatColor(1) != th.Heat[len(th.Heat)-1] || th.HeatColor(2) != th.Heat[len(th.Heat)-1] {
		t.Error("heat clamp")
	}
	for _, c := range []struct {
		v    float64
		want rune
	}{{-1, '░'}, {0, '░'}, {0.25, '░'}, {0.26, '▒'}, {0.5, '▒'}, {0.7, '▓'}, {0.76, '█'}, {1, '█'}, {2, '█'}} {
		if got := HeatGlyph(c.v); got != c.want {
			t.Errorf("HeatGlyph(%g) = %q, want %q", c.v, got, c.want)
		}
	}
}
