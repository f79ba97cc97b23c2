//go:build !unix

package simgrid

import "os/exec"

func setProcessGroup(*exec.Cmd) {}
