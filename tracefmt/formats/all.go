package formats

// All returns the known formats, in detection order: formats with a
// distinctive magic first, loosely recognised text formats last.
func All() []Format {
	return []Format{}
}
