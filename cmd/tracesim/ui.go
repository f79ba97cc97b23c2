package main

// runUI opens the terminal UI. Until it lands, it prints the help.
func runUI(e *env, args []string) int {
	usage(e.stdout)
	return exitOK
}
