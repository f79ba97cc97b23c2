package atomicfile

import "io"

// stopEvery is how many bytes a Stopping writer passes on between two
// calls of its stop function: small enough that a write stops within a
// moment of a signal, large enough that asking costs nothing.
const stopEvery = 64 << 10

// Stopping returns a writer that fails once stop returns an error (a
// cancelled context's Err), asking it every 64 KiB: a long write inside
// Write's fn then fails, and its temporary file is removed, soon after
// SIGINT or SIGTERM.
func Stopping(w io.Writer, stop func() error) io.Writer {
	return &stoppingWriter{w: w, stop: stop}
}

type stoppingWriter struct {
	w       io.Writer
	stop    func() error
	pending int
}

func (s *stoppingWriter) Write(p []byte) (int, error) {
	s.pending += len(p)
	if s.pending >= stopEvery {
		s.pending = 0
		if err := s.stop(); err != nil {
			return 0, err
		}
	}
	return s.w.Write(p)
}
