package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestManDate(t *testing.T) {
	vcs := &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.time", Value: "2026-11-26T23:15:17-02:00"}}}
	tests := []struct {
		name    string
		epoch   string
		info    *debug.BuildInfo
		want    string
		wantErr string
	}{
		{"SOURCE_DATE_EPOCH wins", "1700000000", vcs, "2023-11-14", ""},
		{"epoch 0", "0", nil, "1970-01-01", ""},
		{"the commit's time, in UTC", "", vcs, "2026-11-27", ""},
		{"no commit recorded", "", &debug.BuildInfo{}, manFallbackDate, ""},
		{"no build info", "", nil, manFallbackDate, ""},
		{"malformed", "yesterday", vcs, "", `SOURCE_DATE_EPOCH="yesterday": expected a non-negative number of seconds`},
		{"negative", "-5", vcs, "", `SOURCE_DATE_EPOCH="-5"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := manDate(func(k string) string {
				if k == "SOURCE_DATE_EPOCH" {
					return tt.epoch
				}
				return ""
			}, tt.info)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("manDate = %q, %v; want an error with %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("manDate = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// TestManReproducible runs `tracesim man` twice: the pages are equal, and
// dated by SOURCE_DATE_EPOCH, not by the day the test runs.
func TestManReproducible(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, tc := range []struct{ epoch, title string }{
		{"1700000000", `.TH TRACESIM 1 "2023-11-14" "tracesim"`},
		// A test binary records no commit: the fixed date.
		{"", `.TH TRACESIM 1 "` + manFallbackDate + `" "tracesim"`},
	} {
		t.Setenv("SOURCE_DATE_EPOCH", tc.epoch)
		code1, out1, errs1 := tracesim(t, "man")
		code2, out2, errs2 := tracesim(t, "man")
		if code1 != exitOK || code2 != exitOK || errs1 != "" || errs2 != "" {
			t.Fatalf("epoch %q: exit %d, %d: %s%s", tc.epoch, code1, code2, errs1, errs2)
		}
		if out1 != out2 {
			t.Errorf("epoch %q: two runs differ", tc.epoch)
		}
		if !strings.HasPrefix(out1, tc.title) {
			t.Errorf("epoch %q: page starts %q, want %q", tc.epoch, out1[:min(len(out1), 80)], tc.title)
		}
	}
	t.Setenv("SOURCE_DATE_EPOCH", "soon")
	if code, _, errs := tracesim(t, "man"); code == exitOK || !strings.Contains(errs, `SOURCE_DATE_EPOCH="soon"`) {
		t.Errorf("malformed SOURCE_DATE_EPOCH: exit %d, stderr %q", code, errs)
	}
}
