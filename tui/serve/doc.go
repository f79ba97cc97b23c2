// Package serve serves the tracesim terminal UI over SSH, for a classroom
// or a remote what-if session.
//
// Every SSH session runs its own Bubble Tea program with its own view
// state and simulations. Traces come from one library directory; each is
// loaded once, on first use, and the same *tracefmt.Trace is handed to
// every session that asks for it (the UI treats traces as read-only).
//
// The security model is deliberately small: public-key authentication
// against an authorized_keys file (anonymous access only when asked for
// explicitly), a pseudo-terminal is required and the only thing a session
// can do is run the UI, an SSH command is taken as the name of a trace in
// the library and never executed, and names that would leave the library
// (absolute paths, "..", symbolic links pointing outside) are refused.
// Sessions are limited in number, closed when idle, and given a
// simulation budget; on shutdown each one is told on screen and closed
// after a grace period. See docs/serve.md.
package serve
