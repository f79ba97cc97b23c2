package main

import (
	"fmt"

	mcobra "github.com/muesli/mango-cobra"
	"github.com/muesli/roff"
	"github.com/spf13/cobra"
)

// manCommand prints tracesim(1) in roff, built from the command tree so
// that it lists every command and flag the help does:
//
//	tracesim man > /usr/local/share/man/man1/tracesim.1
func manCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "man",
		Short: "print the manual page tracesim(1) in roff (tracesim man | man -l -)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			page, err := mcobra.NewManPage(1, cmd.Root())
			if err != nil {
				return err
			}
			page = page.WithSection("Exit status", "0 success, 1 failure, 2 usage error, 3 findings (check; a sim that deadlocks).").
				WithSection("Files", "$XDG_CONFIG_HOME/tracesim/config.toml (~/.config/tracesim/config.toml): theme, preset and key bindings of the terminal UI.")
			_, err = fmt.Fprint(cmd.OutOrStdout(), page.Build(roff.NewDocument()))
			return err
		},
	}
}
