package main

import (
	"fmt"
	"os"
	"regexp"
	"runtime/debug"
	"strconv"
	"time"

	mcobra "github.com/muesli/mango-cobra"
	"github.com/muesli/roff"
	"github.com/spf13/cobra"
)

// manCommand prints tracesim(1) in roff, built from the command tree so
// that it lists every command and flag the help does:
//
//	tracesim man > /usr/local/share/man/man1/tracesim.1
//
// The page is reproducible: its date is manDate's, not today's, so that
// two runs (and two packagers' builds of one commit) print the same bytes.
func manCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "man",
		Short: "print the manual page tracesim(1) in roff (tracesim man | man -l -)",
		Long: "Print the manual page tracesim(1) in roff. Its date is SOURCE_DATE_EPOCH when set, else the time of " +
			"the commit the binary was built from, else " + manFallbackDate + ".",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			info, _ := debug.ReadBuildInfo()
			date, err := manDate(os.Getenv, info)
			if err != nil {
				return err
			}
			page, err := mcobra.NewManPage(1, cmd.Root())
			if err != nil {
				return err
			}
			page = page.WithSection("Exit status", "0 success, 1 failure, 2 usage error, 3 findings (check; a sim that deadlocks).").
				WithSection("Files", "$XDG_CONFIG_HOME/tracesim/config.toml (~/.config/tracesim/config.toml): theme, preset and key bindings of the terminal UI.")
			_, err = fmt.Fprint(cmd.OutOrStdout(), datePage(page.Build(roff.NewDocument()), date))
			return err
		},
	}
}

// manFallbackDate dates the page of a build that recorded no commit
// (-buildvcs=false, a git worktree) and has no SOURCE_DATE_EPOCH.
const manFallbackDate = "2026-11-29"

// manDate returns the date tracesim(1) carries, as YYYY-MM-DD in UTC:
// SOURCE_DATE_EPOCH (https://reproducible-builds.org/specs/source-date-epoch/)
// when set, else the commit time the go command recorded (vcs.time),
// else manFallbackDate. A malformed SOURCE_DATE_EPOCH is an error, as the
// specification asks, rather than a silently different date.
func manDate(getenv func(string) string, info *debug.BuildInfo) (string, error) {
	if s := getenv("SOURCE_DATE_EPOCH"); s != "" {
		sec, err := strconv.ParseInt(s, 10, 64)
		if err != nil || sec < 0 {
			return "", fmt.Errorf("SOURCE_DATE_EPOCH=%q: expected a non-negative number of seconds since 1970-01-01 UTC", s)
		}
		return time.Unix(sec, 0).UTC().Format(time.DateOnly), nil
	}
	if info != nil {
		for _, s := range info.Settings {
			if s.Key != "vcs.time" {
				continue
			}
			if t, err := time.Parse(time.RFC3339, s.Value); err == nil {
				return t.UTC().Format(time.DateOnly), nil
			}
		}
	}
	return manFallbackDate, nil
}

// thDate is the date field of roff's title line, which mango fills with
// today's date and offers no option to set.
var thDate = regexp.MustCompile(`(?m)\A(\.TH \S+ \d+ )"[^"]*"`)

// datePage puts date in the title line of the page.
func datePage(page, date string) string {
	loc := thDate.FindStringSubmatchIndex(page)
	if loc == nil {
		return page
	}
	return page[:loc[3]] + strconv.Quote(date) + page[loc[1]:]
}
