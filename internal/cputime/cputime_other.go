//go:build !unix

package cputime

import "time"

// Used returns 0: the system does not tell the process's CPU time.
func Used() time.Duration { return 0 }
