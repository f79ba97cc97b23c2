//go:build !unix

package serve

import "io/fs"

// checkStrictModes does nothing where file ownership is not Unix's: the
// file's ACLs are the administrator's to set.
func checkStrictModes(string, fs.FileInfo) error { return nil }
