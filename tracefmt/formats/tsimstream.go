package formats

import (
	"context"
	"errors"
	"io"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/tsim"
)

// openTsimSource opens a tsim file as a Source (tsim.OpenSource) whose
// errors name the file as Open's do.
func openTsimSource(path string) (tracefmt.Source, error) {
	src, err := tsim.OpenSource(path)
	if err != nil {
		return nil, err
	}
	return &tsimSource{Source: src, path: path}, nil
}

// tsimSource is a streamed tsim file that names itself in its errors.
type tsimSource struct {
	*tsim.Source
	path string
}

// Prescan indexes the file (tsim.Source.Prescan).
func (s *tsimSource) Prescan(fn func(rank int, first int32, ev []tracefmt.Event) error) error {
	err := s.Source.Prescan(fn)
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err // a stopped scan says so, as Open does
	}
	return addPath(s.path, err)
}

// ReadRank reads rank r's next events (tsim.Source.ReadRank).
func (s *tsimSource) ReadRank(r int, dst []tracefmt.Event) (int, error) {
	n, err := s.Source.ReadRank(r, dst)
	if err != nil && !errors.Is(err, io.EOF) {
		err = addPath(s.path, err)
	}
	return n, err
}
