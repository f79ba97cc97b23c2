//go:build unix

package simgrid

import (
	"os/exec"
	"syscall"
)

// setProcessGroup makes cancellation kill smpirun and the simulator it
// starts, not only the smpirun script.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
