package main

import (
	"github.com/spf13/cobra"

	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/engine/topology"
)

// settingFlag is a flag for one engine setting: it checks the value when
// parsed and keeps it for applying after the configuration file.
type settingFlag struct {
	s   *replay.Setting
	raw string
}

func (f *settingFlag) String() string {
	if f == nil || f.s == nil {
		return ""
	}
	return f.raw
}

func (f *settingFlag) Set(v string) error {
	c := replay.Default()
	if err := f.s.Set(&c, v); err != nil {
		return err
	}
	f.raw = v
	return nil
}

// Type names the value in pflag's usage by the setting's kind.
func (f *settingFlag) Type() string {
	return [...]string{replay.KindChoice: "choice", replay.KindInt: "int", replay.KindFloat: "float",
		replay.KindSize: "size", replay.KindDuration: "duration", replay.KindRate: "rate", replay.KindSpeed: "speed",
		replay.KindList: "list", replay.KindAlgorithms: "algorithms", replay.KindSpec: "spec"}[f.s.Kind]
}

// values lists the words of a choice setting, for completions.
func (f *settingFlag) values() []string {
	if f.s.Kind != replay.KindChoice {
		return nil
	}
	return f.s.Choices
}

// addSettingFlags declares one flag per engine setting, generated from
// the settings table (replay.Settings), so that a setting added there is
// a flag of every command that configures a machine, with its help,
// group and default; its one-letter LogGOPS names (-L, -G) keep their
// short form. The choices of choice settings and the kinds of topology
// complete in the shells.
func addSettingFlags(cc *cobra.Command) []*settingFlag {
	all := replay.Settings()
	flags := make([]*settingFlag, len(all))
	def := replay.Default()
	for i := range all {
		flags[i] = &settingFlag{s: &all[i]}
		// A settingFlag holds only what was typed, so the flag records
		// no default: the help states it in words, which fang's
		// "(value)" after a help ending in a parenthesis would not.
		usage := "[" + all[i].Group + "] " + all[i].Help
		if d := all[i].Get(&def); d != "" {
			usage += " (default " + d + ")"
		}
		cc.Flags().VarP(flags[i], all[i].Key, shorthand(all[i].Key), usage)
	}
	// A topology is KIND:PARAMETERS: complete the kind and its colon.
	_ = cc.RegisterFlagCompletionFunc("topology", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		var kinds []string
		for _, k := range topology.Kinds() {
			kinds = append(kinds, k.String()+":")
		}
		return kinds, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	})
	return flags
}
