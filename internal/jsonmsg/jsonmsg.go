// Package jsonmsg words the errors of decoding a JSON request in the
// request's own terms: the field, the JSON type wanted and the JSON type
// sent, never a Go type. The HTTP server and the Weaviate module share it.
package jsonmsg

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// Error is a decoding error worded for the client; it wraps the decoder's
// error.
type Error struct {
	Msg string
	Err error
}

func (e *Error) Error() string { return e.Msg }

// Unwrap returns the decoder's error.
func (e *Error) Unwrap() error { return e.Err }

// Describe words err, an error of decoding a request body into dst (a
// pointer to the request's struct) with encoding/json, as an *Error:
// an empty body, a syntax error and its offset, a body that is not an
// object (naming fields, the fields a request holds), an unknown field, or
// a field of the wrong JSON type (naming the field, the JSON type its
// declaration wants and the one sent, and whether it was an element or a
// value inside it). Any other error is wrapped as malformed JSON.
func Describe(err error, dst any, fields []string) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	known := strings.Join(fields, ", ")
	switch {
	case errors.Is(err, io.EOF):
		return &Error{Msg: "malformed JSON: empty body", Err: err}
	case errors.As(err, &syn):
		return &Error{Msg: fmt.Sprintf("malformed JSON at offset %d: %v", syn.Offset, err), Err: err}
	case errors.As(err, &typ) && typ.Field == "":
		return &Error{Err: err, Msg: fmt.Sprintf("malformed JSON: the request body must be a JSON object "+
			"(fields: %s), got a JSON %s", known, typ.Value)}
	case errors.As(err, &typ):
		return &Error{Msg: "malformed JSON: " + fieldTypeMessage(typ, dst), Err: err}
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return &Error{Msg: fmt.Sprintf("malformed JSON: unknown field %s (known: %s)", name, known), Err: err}
	}
	return &Error{Msg: "malformed JSON: " + err.Error(), Err: err}
}

// End checks that nothing but white space follows the JSON value dec has
// just decoded: a second value, a stray bracket or any other data after it
// is an *Error naming the offset at which the value ends, which wraps the
// error of reading on, if any (an *http.MaxBytesError, say).
func End(dec *json.Decoder) error {
	end := dec.InputOffset()
	_, err := dec.Token()
	if errors.Is(err, io.EOF) {
		return nil
	}
	return &Error{Msg: fmt.Sprintf("malformed JSON: data after the JSON value, which ends at offset %d", end), Err: err}
}

// fieldTypeMessage words a value of the wrong JSON type in field typ.Field
// of dst. The decoder names the type of the value it failed to fill, which
// for an element of an array (or a value of an object) is the element's:
// the field's own declaration gives the type the field wants.
func fieldTypeMessage(typ *json.UnmarshalTypeError, dst any) string {
	declared, field, ok := FieldType(reflect.TypeOf(dst), typ.Field)
	if !ok {
		return fmt.Sprintf("field %q: want %s, got a JSON %s", typ.Field, TypeName(typ.Type), typ.Value)
	}
	if deref(declared) == deref(typ.Type) {
		return fmt.Sprintf("field %q: want %s, got a JSON %s", field, TypeName(declared), typ.Value)
	}
	inner := "an element"
	if deref(declared).Kind() == reflect.Map {
		inner = "a value"
	}
	return fmt.Sprintf("field %q: %s is a JSON %s, want %s", field, inner, typ.Value, TypeName(declared))
}

// FieldType returns the declared type of the field at path (names joined
// by dots, as json.UnmarshalTypeError.Field gives them) in a value of type
// t, looking through pointers and, as the path does, the elements of arrays
// and the values of maps; and the path in JSON names only (without the Go
// names of embedded structs that the decoder's path holds).
func FieldType(t reflect.Type, path string) (reflect.Type, string, bool) {
	var names []string
	for name := range strings.SplitSeq(path, ".") {
		t = deref(t)
		for t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = deref(t.Elem())
		}
		if t.Kind() != reflect.Struct {
			return nil, "", false
		}
		f, ok := structField(t, name)
		if !ok {
			return nil, "", false
		}
		if !f.Anonymous || f.Tag.Get("json") != "" {
			names = append(names, name)
		}
		t = f.Type
	}
	return t, strings.Join(names, "."), true
}

// structField returns the field of struct t that encoding/json decodes the
// key name into (its tag's name, else its Go name), or the embedded struct
// of that Go name.
func structField(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case tag == "-":
		case tag == name:
			return f, true
		case tag == "" && f.Name == name && (f.IsExported() || f.Anonymous):
			return f, true
		}
	}
	for i := range t.NumField() {
		if f := t.Field(i); f.Tag.Get("json") == "" && f.IsExported() && strings.EqualFold(f.Name, name) {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// TypeName names the JSON value that decodes into a value of type t:
// "a string", "an array of numbers", "an array of arrays of integers",
// "a base64 string" ([]byte), "an object".
func TypeName(t reflect.Type) string {
	one, _ := nouns(t)
	if strings.ContainsAny(one[:1], "aeiou") {
		return "an " + one
	}
	return "a " + one
}

// nouns returns the singular and plural nouns of the JSON value that
// decodes into a value of type t.
func nouns(t reflect.Type) (one, many string) {
	t = deref(t)
	pt := reflect.PointerTo(t)
	switch {
	case t == reflect.TypeFor[json.Number]():
		return "number", "numbers"
	case pt.Implements(reflect.TypeFor[encoding.TextUnmarshaler]()):
		return "string", "strings" // time.Time, say
	case pt.Implements(reflect.TypeFor[json.Unmarshaler]()):
		return "JSON value", "JSON values"
	}
	switch t.Kind() {
	case reflect.String:
		return "string", "strings"
	case reflect.Bool:
		return "boolean", "booleans"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer", "integers"
	case reflect.Float32, reflect.Float64:
		return "number", "numbers"
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			return "base64 string", "base64 strings" // as encoding/json sends a []byte
		}
		if _, many := nouns(t.Elem()); many != "JSON values" {
			return "array of " + many, "arrays of " + many
		}
		return "array", "arrays"
	case reflect.Map, reflect.Struct:
		return "object", "objects"
	}
	return "JSON value", "JSON values"
}

// ValueKind names the kind of the JSON value raw begins with (white space
// skipped): "object", "array", "string", "boolean", "null" or "number";
// "nothing" when raw holds only white space.
func ValueKind(raw []byte) string {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}
