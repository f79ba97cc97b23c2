package main

import (
	"bufio"
	"bytes"
	"encoding"
	"encoding/json"
	"io"
	"reflect"
	"strings"
)

// writeJSONStream writes v to w as json.Encoder with SetIndent("", "  ")
// would (the same bytes, newline included), in memory bounded by the
// largest element instead of the whole document: structs are written
// field by field and slices element by element, each element encoded
// on its own. Like the Encoder, it writes nothing when v cannot be
// encoded (a NaN or an infinity, say): a first pass encodes everything
// to nowhere and returns the error that Marshal would give.
func writeJSONStream(w io.Writer, v any) error {
	js := &jsonStreamer{w: bufio.NewWriterSize(io.Discard, 4096), encs: map[string]*json.Encoder{}}
	if err := js.value(reflect.ValueOf(v), ""); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	js.w = bw
	if err := js.value(reflect.ValueOf(v), ""); err != nil {
		return err
	}
	if err := bw.WriteByte('\n'); err != nil {
		return err
	}
	return bw.Flush()
}

var (
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// marshals reports whether t (or *t) encodes itself: such values are
// handed whole to json.
func marshals(t reflect.Type) bool {
	return t.Implements(jsonMarshalerType) || t.Implements(textMarshalerType) ||
		reflect.PointerTo(t).Implements(jsonMarshalerType) || reflect.PointerTo(t).Implements(textMarshalerType)
}

// jsonStreamer writes to w; its Encoders (one per indentation prefix)
// encode single values into buf, reused from one value to the next.
type jsonStreamer struct {
	w    *bufio.Writer
	buf  bytes.Buffer
	encs map[string]*json.Encoder
}

// value writes v at indentation prefix (the current line's): the
// first line is not prefixed, the following ones are.
func (js *jsonStreamer) value(v reflect.Value, prefix string) error {
	w := js.w
	for v.IsValid() && v.Kind() == reflect.Pointer && !v.IsNil() && !marshals(v.Type()) {
		v = v.Elem()
	}
	if !v.IsValid() || marshals(v.Type()) {
		return js.marshal(v, prefix)
	}
	switch {
	case v.Kind() == reflect.Struct:
		return js.object(v, prefix)
	case v.Kind() == reflect.Slice && !v.IsNil() && v.Len() > 0 && v.Type().Elem().Kind() != reflect.Uint8:
		inner := prefix + "  "
		w.WriteString("[\n")
		for i := range v.Len() {
			if i > 0 {
				w.WriteString(",\n")
			}
			w.WriteString(inner)
			if err := js.marshal(v.Index(i), inner); err != nil {
				return err
			}
		}
		w.WriteString("\n")
		w.WriteString(prefix)
		return w.WriteByte(']')
	}
	return js.marshal(v, prefix)
}

// marshal writes v whole, as json.MarshalIndent(v, prefix, "  ").
func (js *jsonStreamer) marshal(v reflect.Value, prefix string) error {
	var x any
	if v.IsValid() {
		x = v.Interface()
	}
	enc := js.encs[prefix]
	if enc == nil {
		enc = json.NewEncoder(&js.buf)
		enc.SetIndent(prefix, "  ")
		js.encs[prefix] = enc
	}
	js.buf.Reset()
	if err := enc.Encode(x); err != nil {
		return err
	}
	_, err := js.w.Write(js.buf.Bytes()[:js.buf.Len()-1]) // without Encode's newline
	return err
}

// jsonField is one field of a struct as encoding/json sees it.
type jsonField struct {
	name      string
	omitEmpty bool
	v         reflect.Value
}

// jsonFields lists v's encoded fields in order, embedded untagged
// structs flattened (the project's types have no name conflicts between
// levels; the test compares with Marshal).
func jsonFields(v reflect.Value, out []jsonField) []jsonField {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			fv := v.Field(i)
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
				if fv.IsNil() {
					continue
				}
				fv = fv.Elem()
			}
			if ft.Kind() == reflect.Struct {
				out = jsonFields(fv, out)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		omit := false
		for o := range strings.SplitSeq(opts, ",") {
			omit = omit || o == "omitempty"
		}
		out = append(out, jsonField{name: name, omitEmpty: omit, v: v.Field(i)})
	}
	return out
}

func emptyJSONValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

func (js *jsonStreamer) object(v reflect.Value, prefix string) error {
	w := js.w
	var fields []jsonField
	for _, f := range jsonFields(v, nil) {
		if !(f.omitEmpty && emptyJSONValue(f.v)) {
			fields = append(fields, f)
		}
	}
	if len(fields) == 0 {
		_, err := w.WriteString("{}")
		return err
	}
	inner := prefix + "  "
	w.WriteString("{\n")
	for i, f := range fields {
		if i > 0 {
			w.WriteString(",\n")
		}
		w.WriteString(inner)
		if err := js.marshal(reflect.ValueOf(f.name), inner); err != nil {
			return err
		}
		w.WriteString(": ")
		if err := js.value(f.v, inner); err != nil {
			return err
		}
	}
	w.WriteString("\n")
	w.WriteString(prefix)
	return w.WriteByte('}')
}
