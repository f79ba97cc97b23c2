package themes

import (
	"image/color"
	"strconv"
	"strings"
)

// ParseColor parses a colour as traces write it: "#rrggbb", "#rgb", three
// decimal components "255 0 0", or an X11 colour name ("ForestGreen",
// "forest green"); ALOG's "color:bitmap" form keeps the part before the
// colon. It reports false for anything else, including "".
func ParseColor(s string) (color.Color, bool) {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, ':'); i >= 0 {
		s = s[:i]
	}
	if s == "" {
		return nil, false
	}
	if s[0] == '#' {
		h := s[1:]
		if len(h) == 3 {
			h = string([]byte{h[0], h[0], h[1], h[1], h[2], h[2]})
		}
		if len(h) != 6 {
			return nil, false
		}
		v, err := strconv.ParseUint(h, 16, 32)
		if err != nil {
			return nil, false
		}
		return rgb(uint32(v)), true
	}
	if f := strings.Fields(s); len(f) == 3 {
		var c [3]uint8
		for i, x := range f {
			v, err := strconv.ParseUint(x, 10, 8)
			if err != nil {
				return nil, false
			}
			c[i] = uint8(v)
		}
		return color.RGBA{c[0], c[1], c[2], 0xff}, true
	}
	name := strings.ToLower(strings.ReplaceAll(s, " ", ""))
	if v, ok := x11Colors[name]; ok {
		return rgb(v), true
	}
	// X11 numbered variants ("SteelBlue3", "gray40") fall back to the base.
	base := strings.TrimRight(name, "0123456789")
	if base != name {
		if base == "gray" || base == "grey" {
			n, err := strconv.Atoi(name[len(base):])
			if err == nil && n <= 100 {
				g := uint8(n * 255 / 100)
				return color.RGBA{g, g, g, 0xff}, true
			}
		}
		if v, ok := x11Colors[base]; ok {
			return rgb(v), true
		}
	}
	return nil, false
}

func rgb(v uint32) color.Color {
	return color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 0xff}
}

func ramp(hexes ...uint32) []color.Color {
	out := make([]color.Color, len(hexes))
	for i, h := range hexes {
		out[i] = rgb(h)
	}
	return out
}

// viridis and cividis are perceptually uniform ramps; cividis is also
// readable with red-green colour blindness.
var (
	viridis = ramp(0x440154, 0x482475, 0x414487, 0x355f8d, 0x2a788e, 0x21918c,
		0x22a884, 0x44bf70, 0x7ad151, 0xbddf26, 0xfde725)
	cividis = ramp(0x00224e, 0x123570, 0x3b496c, 0x575d6d, 0x707173, 0x8a8779,
		0xa69d75, 0xc4b56c, 0xe4cf5b, 0xfee838)
)
