package tsim

import (
	"errors"
	"strings"
	"testing"
)

// TestReadErrors: every kind of mistake gives a *ParseError naming the
// line, the column and what was expected.
func TestReadErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", `tsim: line 1:1: expected the header line "tsim 1", got end of file`},
		{"only comments", "# nothing\n\n", `tsim: line 3:1: expected the header line "tsim 1", got end of file`},
		{"bad magic", "hello 1\n", `tsim: line 1:1: expected the header line "tsim 1" first, got "hello"`},
		{"no version", "tsim\n", `tsim: line 1:5: expected the format version after tsim, got end of line`},
		{"bad version", "tsim x\n", `tsim: line 1:6: expected the format version (an integer) after tsim, got "x"`},
		{"future version", "tsim 2\n", `tsim: line 1:6: expected format version 1, got version 2 (written by a newer tracesim?)`},
		{"trailing after version", "tsim 1 extra\n", `tsim: line 1:8: expected end of line, got "extra"`},
		{"second tsim", "tsim 1\ntsim 1\n", `tsim: line 2:1: expected one tsim line, at the top of the file, got a second one`},
		{"unknown header", "tsim 1\nrank 3\n", `tsim: line 2:1: expected a header line (ranks, unit, timed, untimed, pairing, attr, world, comm, state, marker) or a record (TIME RANK KIND ...), got "rank"`},
		{"no ranks", "tsim 1\nunit us\n", `tsim: line 3:1: expected ranks N in the header, got end of file`},
		{"BOM column", "\uFEFFtsim 1 x\n", `tsim: line 1:8: expected end of line, got "x"`},
		{"long field shortened", "tsim 1\nranks 1\n1 0 " + strings.Repeat("é", 50) + "\n", `tsim: line 3:5: expected an event kind (enter, leave, send, recv, wait, coll, compute, marker), got "` + strings.Repeat("é", 20) + `"…`},
		{"long bad string shortened", "tsim 1\nranks 1\n1 0 marker \"\\q" + strings.Repeat("a", 70) + "\"\n", `tsim: line 3:12: expected a string in Go syntax (escapes such as \n, \t, \", \\, \x41, \u00e9), got "\q` + strings.Repeat("a", 57) + `…`},
		{"ranks missing value", "tsim 1\nranks\n", `tsim: line 2:6: expected the number of ranks after ranks, got end of line`},
		{"ranks zero", "tsim 1\nranks 0\n", `tsim: line 2:7: expected the number of ranks (an integer from 1 to 1048576), got "0"`},
		{"ranks twice", "tsim 1\nranks 2\nranks 3\n", `tsim: line 3:1: expected ranks only once, got it again (first on line 2)`},
		{"bad unit", "tsim 1\nranks 2\nunit min\n", `tsim: line 3:6: expected a time unit (s, ms, us, ns, ps), got "min"`},
		{"timed twice", "tsim 1\nranks 2\ntimed\nuntimed\n", `tsim: line 4:1: expected timed or untimed only once, got it again (first on line 3)`},
		{"bad pairing", "tsim 1\nranks 2\npairing random\n", `tsim: line 3:9: expected newest or oldest after pairing, got "random"`},
		{"attr missing value", "tsim 1\nranks 2\nattr key\n", `tsim: line 3:9: expected the value of attribute "key" after attr, got end of line`},
		{"comm before ranks", "tsim 1\ncomm row ranks=0\n", `tsim: line 2:1: expected ranks N before the first comm line, got a comm line`},
		{"comm rank out of range", "tsim 1\nranks 2\ncomm row ranks=0,2\n", `tsim: line 3:18: expected ranks from 0 to 1 (the world has 2 ranks), got "2"`},
		{"comm bad range", "tsim 1\nranks 4\ncomm row ranks=3-1\n", `tsim: line 3:16: expected a range LOW-HIGH with LOW ≤ HIGH, got "3-1"`},
		{"comm bad list", "tsim 1\nranks 4\ncomm row ranks=0,,1\n", `tsim: line 3:18: expected a rank or a range of ranks (such as 3 or 4-7), got an empty item in "0,,1"`},
		{"sizeunknown on a send", "tsim 1\nranks 2\n1 0 send to=1 sizeunknown\n", `tsim: line 3:15: expected an argument of send (to=, tag=, size=, comm=, req=) or a flag (nb, sync, sendrecv, anysrc, anytag, all, test), got "sizeunknown"`},
		{"comm bad arg", "tsim 1\nranks 4\ncomm row size=3\n", `tsim: line 3:10: expected id=N or ranks=LIST in a comm line, got "size=3"`},
		{"comm name with equals", "tsim 1\nranks 4\ncomm ranks=0\n", `tsim: line 3:6: expected a communicator name after comm, got "ranks=0" (write names containing = in quotes)`},
		{"state bad category", "tsim 1\nranks 1\nstate S cat=mpi\n", `tsim: line 3:13: expected a category (p2p, collective, wait, compute, io, user, other), got "mpi"`},
		{"state bad arg", "tsim 1\nranks 1\nstate S colour=red\n", `tsim: line 3:9: expected an argument of a state definition (cat=, color=, format=, src=), got "colour=red"`},
		{"marker cat", "tsim 1\nranks 1\nmarker M cat=user\n", `tsim: line 3:10: expected an argument of a marker definition (color=, format=, src=), got "cat=user"`},
		{"state bad src", "tsim 1\nranks 1\nstate S src=1,2,3,4\n", `tsim: line 3:13: expected src=ID[,START[,END]] (up to three 32-bit integers), got "1,2,3,4"`},
		{"state empty value", "tsim 1\nranks 1\nstate S color= cat=p2p\n", `tsim: line 3:15: expected a value after color=, got "cat=p2p"`},
		{"record before ranks", "tsim 1\nunit us\n0 0 enter S\n", `tsim: line 3:1: expected ranks N in the header before the first record, got a record`},
		{"header after records", "tsim 1\nranks 1\n0 0 enter S\nstate S\n", `tsim: line 4:1: expected a record (TIME RANK KIND ...) after the first record (line 3), got header line "state" (header lines go above the records)`},
		{"bad time", "tsim 1\nranks 1\n1.2.3 0 enter S\n", `tsim: line 3:1: expected a time (a number in s) at the start of a record, got "1.2.3"`},
		{"dash time in timed", "tsim 1\nranks 1\n- 0 enter S\n", `tsim: line 3:1: expected a time (a number in s) at the start of a record, got "-"`},
		{"number time in untimed", "tsim 1\nranks 1\nuntimed\n5 0 enter S\n", `tsim: line 4:1: expected - for the time (the trace is untimed), got "5"`},
		{"missing rank", "tsim 1\nranks 1\n5\n", `tsim: line 3:2: expected a rank after the time, got end of line`},
		{"bad rank", "tsim 1\nranks 1\n5 r0 enter S\n", `tsim: line 3:3: expected a rank (an integer from 0 to 0), got "r0"`},
		{"rank of 19 digits", "tsim 1\nranks 2\n0 0000000000000000000 leave 0\n", `tsim: line 3:3: expected a rank (an integer from 0 to 1), got "0000000000000000000"`},
		{"rank out of range", "tsim 1\nranks 3\n5 3 enter S\n", `tsim: line 3:3: expected a rank from 0 to 2 (the world has 3 ranks), got 3`},
		{"missing kind", "tsim 1\nranks 1\n5 0\n", `tsim: line 3:4: expected an event kind (enter, leave, send, recv, wait, coll, compute, marker), got end of line`},
		{"unknown kind", "tsim 1\nranks 1\n5 0 isend to=0\n", `tsim: line 3:5: expected an event kind (enter, leave, send, recv, wait, coll, compute, marker), got "isend"`},
		{"missing state", "tsim 1\nranks 1\n5 0 enter\n", `tsim: line 3:10: expected a state name after enter, got end of line`},
		{"state name with equals", "tsim 1\nranks 1\n5 0 enter text=x\n", `tsim: line 3:11: expected a state name after enter, got "text=x" (write names containing = in quotes)`},
		{"undefined state index", "tsim 1\nranks 1\nstate A\n5 0 leave 1\n", `tsim: line 4:11: expected a state name or the index of a defined state (0 to 0), got "1" (write names made of digits in quotes)`},
		{"send without to", "tsim 1\nranks 2\n5 0 send tag=1 size=4\n", `tsim: line 3:22: expected to=RANK (the destination) in a send, got end of line`},
		{"recv without from", "tsim 1\nranks 2\n5 0 recv tag=1 size=4 anysrc\n", `tsim: line 3:29: expected from=RANK (the actual source, also for anysrc receives) in a recv, got end of line`},
		{"to out of range", "tsim 1\nranks 2\n5 0 send to=2\n", `tsim: line 3:13: expected a rank from 0 to 1 after to= (the world has 2 ranks), got 2`},
		{"bad tag", "tsim 1\nranks 2\n5 0 send to=1 tag=x\n", `tsim: line 3:19: expected a tag (a 32-bit integer), got "x"`},
		{"tag overflow", "tsim 1\nranks 2\n5 0 send to=1 tag=2147483648\n", `tsim: line 3:19: expected a tag (a 32-bit integer), got "2147483648"`},
		{"bad size unit", "tsim 1\nranks 2\n5 0 send to=1 size=4XB\n", `tsim: line 3:20: expected a byte count after size= (such as 4096 or 4KiB; units B, KB, KiB, MB, MiB, GB, GiB), got "4XB"`},
		{"negative size", "tsim 1\nranks 2\n5 0 send to=1 size=-4\n", `tsim: line 3:20: expected a byte count after size= (such as 4096 or 4KiB; units B, KB, KiB, MB, MiB, GB, GiB), got "-4"`},
		{"fractional size", "tsim 1\nranks 2\n5 0 send to=1 size=1.5\n", `tsim: line 3:20: expected a byte count after size= (such as 4096 or 4KiB; units B, KB, KiB, MB, MiB, GB, GiB), got "1.5"`},
		{"undefined comm", "tsim 1\nranks 2\n5 0 send to=1 comm=row\n", `tsim: line 3:20: expected a communicator defined in the header (a comm line's name, or its index from 0 for the world to 0), got "row"`},
		{"comm index out of range", "tsim 1\nranks 2\ncomm row ranks=0,1\n5 0 send to=1 comm=2\n", `tsim: line 4:20: expected a communicator defined in the header (a comm line's name, or its index from 0 for the world to 1), got "2"`},
		{"arg not for kind", "tsim 1\nranks 2\n5 0 enter S to=1\n", `tsim: line 3:13: expected an argument of enter (text=) or a flag (nb, sync, sendrecv, anysrc, anytag, all, test), got "to=1"`},
		{"unknown flag", "tsim 1\nranks 2\n5 0 send to=1 blocking\n", `tsim: line 3:15: expected an argument of send (to=, tag=, size=, comm=, req=) or a flag (nb, sync, sendrecv, anysrc, anytag, all, test), got "blocking"`},
		{"duplicate arg", "tsim 1\nranks 2\n5 0 send to=1 tag=1 tag=2\n", `tsim: line 3:21: expected tag= only once, got it twice`},
		{"bad req", "tsim 1\nranks 2\n5 0 wait req=first\n", `tsim: line 3:14: expected a request id (an integer) after req=, got "first"`},
		{"unknown op", "tsim 1\nranks 2\n5 0 coll allsum\n", `tsim: line 3:10: expected a collective operation (barrier, bcast, reduce, allreduce, gather, gatherv, scatter, scatterv, allgather, allgatherv, alltoall, alltoallv, reducescatter, scan, exscan, other), got "allsum"`},
		{"missing op", "tsim 1\nranks 2\n5 0 coll\n", `tsim: line 3:9: expected a collective operation after coll, got end of line`},
		{"rooted without root", "tsim 1\nranks 2\n5 0 coll bcast sent=8\n", `tsim: line 3:22: expected root=RANK in a bcast, got end of line`},
		{"root out of range", "tsim 1\nranks 2\n5 0 coll bcast root=-2\n", `tsim: line 3:21: expected a root rank (an integer from 0 to 1, or -1 for none), got "-2"`},
		{"compute without amount", "tsim 1\nranks 1\n5 0 compute\n", `tsim: line 3:12: expected dur=DURATION or flops=AMOUNT in a compute record, got end of line`},
		{"compute both", "tsim 1\nranks 1\n5 0 compute dur=1 flops=2\n", `tsim: line 3:19: expected either dur= or flops= in a compute record, got both`},
		{"bad duration unit", "tsim 1\nranks 1\n5 0 compute dur=3min\n", `tsim: line 3:17: expected a duration (a non-negative number, in s or with a unit such as 5us), got "3min"`},
		{"negative duration", "tsim 1\nranks 1\n5 0 compute dur=-1us\n", `tsim: line 3:17: expected a duration (a non-negative number, in s or with a unit such as 5us), got "-1us"`},
		{"bad flops", "tsim 1\nranks 1\n5 0 compute flops=fast\n", `tsim: line 3:19: expected an amount of work (a non-negative number of flops such as 2e9 or 2Gf), got "fast"`},
		{"unterminated quote", "tsim 1\nranks 1\n5 0 enter \"My state\n", `tsim: line 3:11: expected a closing " for the string opened here, got end of line`},
		{"junk after quote", "tsim 1\nranks 1\n5 0 enter \"My\"state\n", `tsim: line 3:15: expected a blank after the closing ", got "state"`},
		{"bad escape", "tsim 1\nranks 1\n5 0 marker M text=\"a\\qb\"\n", `tsim: line 3:19: expected a string in Go syntax (escapes such as \n, \t, \", \\, \x41, \u00e9), got "a\qb"`},
		{"value missing", "tsim 1\nranks 2\n5 0 send to= tag=1\n", `tsim: line 3:13: expected a value after to=, got "tag=1"`},
		{"key missing", "tsim 1\nranks 2\n5 0 send =1\n", `tsim: line 3:10: expected an argument name before =, got "=1"`},
		{"non-ascii column", "tsim 1\nranks 1\n5 0 marker \"é\" text=ü bad\n", `tsim: line 3:23: expected an argument of marker (text=) or a flag (nb, sync, sendrecv, anysrc, anytag, all, test), got "bad"`},
		{"nan time", "tsim 1\nranks 1\nNaN 0 enter S\n", `tsim: line 3:1: expected a header line (ranks, unit, timed, untimed, pairing, attr, world, comm, state, marker) or a record (TIME RANK KIND ...), got "NaN"`},
		{"inf time", "tsim 1\nranks 1\n+Inf 0 enter S\n", `tsim: line 3:1: expected a time (a number in s) at the start of a record, got "+Inf"`},
		{"hex time", "tsim 1\nranks 1\n0x10 0 enter S\n", `tsim: line 3:1: expected a time (a number in s) at the start of a record, got "0x10"`},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		if seen[tt.name] {
			t.Fatalf("duplicate case %q", tt.name)
		}
		seen[tt.name] = true
		t.Run(tt.name, func(t *testing.T) {
			tr, err := Read(strings.NewReader(tt.in))
			if err == nil {
				t.Fatalf("no error; read %d ranks, %d events", tr.Size(), tr.NumEvents())
			}
			if err.Error() != tt.want {
				t.Errorf("error\n got: %s\nwant: %s", err, tt.want)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Errorf("error %T is not a *ParseError", err)
			}
		})
	}
}
