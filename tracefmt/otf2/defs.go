package otf2

import (
	"errors"
	"fmt"
	"io"
	"math"
)

// Global definition record types.
const (
	defClockProperties = 5
	defString          = 10
	defLocationGroup   = 13
	defLocation        = 14
	defRegion          = 15
	defGroup           = 18
	defComm            = 22
)

// Local definition record types (the per-location .def files).
const (
	localMappingTable = 5
	localClockOffset  = 6
)

// Group types and flags.
const (
	groupCommLocations = 4
	groupCommGroup     = 5
	groupCommSelf      = 6
	groupGlobalMembers = 1
)

// Paradigms the reader looks at.
const paradigmMPI = 4

// Location group types.
const locationGroupProcess = 1

// Mapping table types, for the ids an event file uses locally.
const (
	mapRegion = 3
	mapComm   = 6
	numMaps   = 12
)

// undefined32 is OTF2's undefined reference.
const undefined32 = math.MaxUint32

// Defs holds the global definitions the reader needs.
type Defs struct {
	// Resolution is the timer's ticks per second; Offset the tick count
	// of the trace's start.
	Resolution, Offset, Length uint64
	Strings                    map[uint32]string
	LocationGroups             []LocationGroup
	Locations                  []Location
	Regions                    map[uint32]Region
	Groups                     map[uint32]Group
	Comms                      []Comm
	// Records counts the global definition records read.
	Records int
	// End is the offset where the records end, for errors about what
	// none of them defined.
	End int64
}

// LocationGroup is a process (or another kind of location group).
type LocationGroup struct {
	ID, Name uint32
	Type     uint8
	// At is the offset of its record in the definition file, for errors.
	At int64
}

// Location is a thread (or a GPU stream, or a metric source) and the id of
// its event file.
type Location struct {
	ID     uint64
	Name   uint32
	Type   uint8
	Events uint64
	Group  uint32
	// At is the offset of its record in the definition file, for errors.
	At int64
}

// Region is a code region: what Enter and Leave records name.
type Region struct {
	Name     uint32
	Role     uint8
	Paradigm uint8
}

// Group lists members: locations (COMM_LOCATIONS) or ranks of the
// COMM_LOCATIONS group (COMM_GROUP).
type Group struct {
	Type, Paradigm uint8
	Flags          uint32
	Members        []uint64
	// At is the offset of its record in the definition file, for errors.
	At int64
}

// Comm is a communicator over a group.
type Comm struct {
	ID, Name, Group, Parent uint32
	// At is the offset of its record in the definition file, for errors.
	At int64
}

// readGlobalDefs parses a global definition file.
func readGlobalDefs(name string, r io.Reader, chunk int) (*Defs, error) {
	d := &Defs{
		Resolution: 1,
		Strings:    map[uint32]string{},
		Regions:    map[uint32]Region{},
		Groups:     map[uint32]Group{},
	}
	s := newScanner(name, r, chunk)
	for {
		t, err := s.recordType()
		if errors.Is(err, errEnd) {
			d.End = s.offset()
			return d, nil
		}
		if err != nil {
			return nil, err
		}
		if err := d.record(s, t); err != nil {
			return nil, err
		}
		d.Records++
	}
}

// record decodes one global definition record of type t.
func (d *Defs) record(s *scanner, t byte) error {
	start := s.rec
	end, err := s.length()
	if err != nil {
		return err
	}
	switch t {
	case defClockProperties:
		if d.Resolution, err = s.u64(end, "timer resolution"); err != nil {
			return err
		}
		if d.Resolution == 0 {
			return s.errAt(start, "clock properties: timer resolution 0, expected ticks per second")
		}
		if d.Offset, err = s.u64(end, "global offset"); err != nil {
			return err
		}
		if d.Length, err = s.u64(end, "trace length"); err != nil {
			return err
		}
	case defString:
		id, err := s.u32(end, "string id")
		if err != nil {
			return err
		}
		v, err := s.str(end, "string")
		if err != nil {
			return err
		}
		d.Strings[id] = v
	case defLocationGroup:
		g := LocationGroup{At: s.base + int64(start)}
		if g.ID, err = s.u32(end, "location group id"); err != nil {
			return err
		}
		if g.Name, err = s.u32(end, "location group name"); err != nil {
			return err
		}
		if g.Type, err = s.byte1(end, "location group type"); err != nil {
			return err
		}
		d.LocationGroups = append(d.LocationGroups, g)
	case defLocation:
		l := Location{At: s.base + int64(start)}
		if l.ID, err = s.u64(end, "location id"); err != nil {
			return err
		}
		if l.Name, err = s.u32(end, "location name"); err != nil {
			return err
		}
		if l.Type, err = s.byte1(end, "location type"); err != nil {
			return err
		}
		if l.Events, err = s.u64(end, "number of events"); err != nil {
			return err
		}
		if l.Group, err = s.u32(end, "location group"); err != nil {
			return err
		}
		d.Locations = append(d.Locations, l)
	case defRegion:
		var g Region
		id, err := s.u32(end, "region id")
		if err != nil {
			return err
		}
		if g.Name, err = s.u32(end, "region name"); err != nil {
			return err
		}
		// description, region type (pre 1.1), source file, lines
		if _, err = s.u32(end, "region description"); err != nil {
			return err
		}
		if _, err = s.byte1(end, "region type"); err != nil {
			return err
		}
		for _, what := range []string{"source file", "begin line", "end line"} {
			if _, err = s.u32(end, what); err != nil {
				return err
			}
		}
		if s.pos < end { // added in OTF2 1.1
			if _, err = s.u32(end, "canonical name"); err != nil {
				return err
			}
			if g.Role, err = s.byte1(end, "region role"); err != nil {
				return err
			}
			if g.Paradigm, err = s.byte1(end, "paradigm"); err != nil {
				return err
			}
		}
		d.Regions[id] = g
	case defGroup:
		g := Group{At: s.base + int64(start)}
		id, err := s.u32(end, "group id")
		if err != nil {
			return err
		}
		if _, err = s.u32(end, "group name"); err != nil {
			return err
		}
		pre, err := s.byte1(end, "group type")
		if err != nil {
			return err
		}
		n, err := s.u32(end, "number of members")
		if err != nil {
			return err
		}
		if int64(n) > int64(end-s.pos) {
			return s.errAt(start, "group %d claims %d members in a record of %d bytes", id, n, end-start)
		}
		g.Members = make([]uint64, n)
		for i := range g.Members {
			if g.Members[i], err = s.u64(end, "group member"); err != nil {
				return err
			}
		}
		g.Type, g.Paradigm = groupTypePre12(pre)
		if s.pos < end { // added in OTF2 1.2
			if g.Type, err = s.byte1(end, "group type"); err != nil {
				return err
			}
			if g.Paradigm, err = s.byte1(end, "group paradigm"); err != nil {
				return err
			}
			if g.Flags, err = s.u32(end, "group flags"); err != nil {
				return err
			}
		}
		d.Groups[id] = g
	case defComm:
		c := Comm{At: s.base + int64(start)}
		if c.ID, err = s.u32(end, "communicator id"); err != nil {
			return err
		}
		if c.Name, err = s.u32(end, "communicator name"); err != nil {
			return err
		}
		if c.Group, err = s.u32(end, "communicator group"); err != nil {
			return err
		}
		if c.Parent, err = s.u32(end, "parent communicator"); err != nil {
			return err
		}
		d.Comms = append(d.Comms, c)
	}
	s.pos = end
	return nil
}

// groupTypePre12 converts a group type of OTF2 before 1.2, which named
// MPI's groups, to a group type and paradigm (as the library does).
func groupTypePre12(t uint8) (uint8, uint8) {
	switch t {
	case 1, 2:
		return t, 0 // locations, regions
	case 3:
		return 2, 0 // metric groups read as regions, as the library does
	case 4:
		return groupCommGroup, paradigmMPI
	case 5:
		return groupCommSelf, paradigmMPI
	case 6:
		return groupCommLocations, paradigmMPI
	}
	return 0, 0
}

// localDefs are what a location's own definition file says: how its
// event file's ids map to global ones, and its clock offsets.
type localDefs struct {
	maps      [numMaps]map[uint64]uint64
	intervals []clockInterval
}

// clockInterval corrects the timestamps from begin on: t + slope·(t −
// begin) + offset, as the OTF2 library does between two clock offsets.
type clockInterval struct {
	begin, end uint64
	offset     float64
	slope      float64
}

// readLocalDefs parses a location's definition file.
func readLocalDefs(name string, r io.Reader, chunk int) (*localDefs, error) {
	l := &localDefs{}
	s := newScanner(name, r, chunk)
	var pending *clockInterval
	for {
		t, err := s.recordType()
		if errors.Is(err, errEnd) {
			return l, nil
		}
		if err != nil {
			return nil, err
		}
		start := s.rec
		end, err := s.length()
		if err != nil {
			return nil, err
		}
		switch t {
		case localMappingTable:
			kind, err := s.byte1(end, "mapping type")
			if err != nil {
				return nil, err
			}
			m, err := readIDMap(s, end)
			if err != nil {
				return nil, err
			}
			if int(kind) < numMaps {
				l.maps[kind] = m
			}
		case localClockOffset:
			tm, err := s.full64(end, "clock offset time")
			if err != nil {
				return nil, err
			}
			off, err := s.u64(end, "clock offset")
			if err != nil {
				return nil, err
			}
			o := float64(int64(off))
			if pending != nil {
				if pending.begin >= tm {
					return nil, s.errAt(start, "clock offsets at %d then %d: expected increasing times", pending.begin, tm)
				}
				pending.end = tm
				pending.slope = (o - pending.offset) / (float64(tm) - float64(pending.begin))
				l.intervals = append(l.intervals, *pending)
			}
			pending = &clockInterval{begin: tm, offset: o}
		}
		s.pos = end
	}
}

// readIDMap reads a serialised id map: entries, mode (dense: global ids
// in local order; sparse: local/global pairs).
func readIDMap(s *scanner, end int) (map[uint64]uint64, error) {
	n, err := s.u64(end, "id map size")
	if err != nil {
		return nil, err
	}
	mode, err := s.byte1(end, "id map mode")
	if err != nil {
		return nil, err
	}
	if n > uint64(end-s.pos) {
		return nil, s.errAt(s.pos, "id map of %d entries in %d bytes", n, end-s.pos)
	}
	m := make(map[uint64]uint64, n)
	for i := uint64(0); i < n; i++ {
		local := i
		if mode != 0 {
			if local, err = s.u64(end, "id map local id"); err != nil {
				return nil, err
			}
		}
		g, err := s.u64(end, "id map global id")
		if err != nil {
			return nil, err
		}
		m[local] = g
	}
	return m, nil
}

// correct applies a location's clock intervals to a timestamp, keeping
// the interval reached (timestamps of a location increase).
func (l *localDefs) correct(t uint64, at *int) uint64 {
	if len(l.intervals) == 0 {
		return t
	}
	i := *at
	for i+1 < len(l.intervals) && t > l.intervals[i].end {
		i++
	}
	*at = i
	iv := &l.intervals[i]
	v := math.RoundToEven(float64(t) + float64(iv.slope*(float64(t)-float64(iv.begin))) + iv.offset)
	if v < 0 {
		return 0
	}
	return uint64(v)
}

// name returns a string definition, or a placeholder naming the id.
func (d *Defs) name(id uint32) string {
	if s, ok := d.Strings[id]; ok {
		return s
	}
	return fmt.Sprintf("string %d", id)
}
