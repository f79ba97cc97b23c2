package main

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/tracesim/tracesim/internal/classdb"
)

// classCommand is `tracesim class`, the commands on the class database
// of `tracesim serve --class-db`: report.
func classCommand(e *env) *cobra.Command {
	cc := newCommand("class", "class report: export the progress and answers of a served class for grading", "",
		"Work with the class database of `tracesim serve --class-db`:\n\n"+
			"  tracesim class report --class-db FILE [--csv|--json]   export it for grading")
	cc.AddCommand(classReportCommand(e))
	cc.Args = cobra.ArbitraryArgs
	cc.RunE = func(*cobra.Command, []string) error {
		return usageError{"class", errors.New("expected `tracesim class report --class-db FILE [--csv|--json]`")}
	}
	return cc
}

// classReportCommand is `tracesim class report`: the class database of
// `tracesim serve --class-db` exported for grading.
func classReportCommand(e *env) *cobra.Command {
	cc := newCommand("class report", "export the progress and answers of a served class for grading", "--class-db FILE [--csv|--json]",
		"Export the class database of `tracesim serve --class-db` for grading: one row per\n"+
			"student and lesson (step reached, finished, questions solved, right and wrong\n"+
			"answers). --json adds every answer. Safe to run while the server runs.")
	fs := cc.Flags()
	file := fs.String("class-db", "", "the class database (required)")
	asCSV := fs.Bool("csv", false, "print CSV")
	asJSON := fs.Bool("json", false, "print JSON, with every answer")
	cc.Args = argCount(0, 0)
	e.runs(cc, func([]string) int {
		switch {
		case *file == "":
			fmt.Fprintln(e.stderr, "tracesim class report: --class-db FILE is required")
			return exitUsage
		case *asCSV && *asJSON:
			fmt.Fprintln(e.stderr, "tracesim class report: --csv and --json exclude each other")
			return exitUsage
		}
		db, err := classdb.Open(*file, classdb.Options{ReadOnly: true})
		if err != nil {
			return fail(e, "class report", err)
		}
		defer db.Close()
		rows, err := db.Report(e.ctx)
		if err != nil {
			return fail(e, "class report", err)
		}
		switch {
		case *asJSON:
			enc := json.NewEncoder(e.stdout)
			enc.SetIndent("", "  ")
			if rows == nil {
				rows = []classdb.Row{}
			}
			err = enc.Encode(rows)
		case *asCSV:
			w := csv.NewWriter(e.stdout)
			_ = w.Write([]string{"key", "name", "sessions", "lesson", "step", "steps", "finished", "solved", "right", "wrong", "updated"})
			for _, r := range rows {
				_ = w.Write([]string{r.Key, r.Name, strconv.Itoa(r.Sessions), r.Lesson, strconv.Itoa(r.Step), strconv.Itoa(r.Steps),
					strconv.FormatBool(r.Finished), strconv.Itoa(r.Solved), strconv.Itoa(r.Right), strconv.Itoa(r.Wrong),
					r.Updated.Format(time.RFC3339)})
			}
			w.Flush()
			err = w.Error()
		default:
			tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "student\tlesson\tstep\tfinished\tsolved\tright\twrong")
			for _, r := range rows {
				name := r.Name
				if name == "" {
					name = r.Key
				}
				step := ""
				if r.Lesson != "" {
					step = fmt.Sprintf("%d/%d", r.Step, r.Steps)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%v\t%d\t%d\t%d\n", name, r.Lesson, step, r.Finished, r.Solved, r.Right, r.Wrong)
			}
			err = tw.Flush()
		}
		if err != nil {
			return fail(e, "class report", err)
		}
		return exitOK
	})
	return cc
}
