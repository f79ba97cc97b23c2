package component

// SweepMsg asks the application to sweep one setting of the session's
// machine (WhatIf) over Values on the loaded trace, every other setting
// as it is, and to show the result in the Sweep tab. The Machine tab
// sends it from a setting's row; the application runs the points off the
// UI goroutine (engine/sweep), within the session's sweep budget.
type SweepMsg struct {
	// Key is the setting (a replay.Settings key, the result's column).
	Key string
	// Values are the setting's values, each as the setting writes it.
	Values []string
}

// SweepRefusedMsg says the application did not start the sweep a
// SweepMsg asked for, and why (a value that does not load, the session's
// budget, a sweep already running): the tab that asked shows it, where
// the user is, since no Sweep tab opens.
type SweepRefusedMsg struct {
	// Key is the setting the refused sweep was of.
	Key string
	// Reason says why, for the user.
	Reason string
}
