//go:build !linux

package main

import "errors"

// harnessRealtime is Linux only.
func harnessRealtime() error {
	return errors.New("--realtime is supported on Linux only")
}
