package jsonmsg

import (
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

func TestTypeName(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{"", "a string"},
		{true, "a boolean"},
		{int64(0), "an integer"},
		{float32(0), "a number"},
		{json.Number(""), "a number"},
		{[]float32{}, "an array of numbers"},
		{[][]float32{}, "an array of arrays of numbers"},
		{[][][]int{}, "an array of arrays of arrays of integers"},
		{[]*string{}, "an array of strings"},
		{[]byte{}, "a base64 string"},
		{[][]byte{}, "an array of base64 strings"},
		{[4]byte{}, "an array of integers"},
		{[]any{}, "an array"},
		{map[string]int{}, "an object"},
		{[]map[string]int{}, "an array of objects"},
		{struct{}{}, "an object"},
		{time.Time{}, "a string"},
		{new(any), "a JSON value"},
	} {
		if got := TypeName(reflect.TypeOf(c.v)); got != c.want {
			t.Errorf("TypeName(%T) = %q, want %q", c.v, got, c.want)
		}
	}
}

type inner struct {
	A []int `json:"a"`
}

type Embedded struct {
	E []string `json:"e"`
}

type request struct {
	Embedded
	Types  []string       `json:"embedding_types"`
	Nested [][]float32    `json:"nested"`
	Map    map[string]int `json:"map"`
	Inner  *inner         `json:"inner"`
	List   []inner        `json:"list"`
	Name   string         `json:"name"`
	Plain  int
	Skip   int                 `json:"-"`
	Deep   map[string][]string `json:"deep"`
}

// TestDescribeFields: a wrong value names its field and the JSON types
// wanted and sent; a wrong element or value inside a field says so and
// names the field's own type, never the element's as the field's.
func TestDescribeFields(t *testing.T) {
	fields := []string{"embedding_types", "nested"}
	for _, c := range []struct{ body, want string }{
		{`{"embedding_types":"float"}`, `field "embedding_types": want an array of strings, got a JSON string`},
		{`{"embedding_types":[1]}`, `field "embedding_types": an element is a JSON number, want an array of strings`},
		{`{"e":[1]}`, `field "e": an element is a JSON number, want an array of strings`},
		{`{"nested":[[1,"x"]]}`, `field "nested": an element is a JSON string, want an array of arrays of numbers`},
		{`{"nested":["x"]}`, `field "nested": an element is a JSON string, want an array of arrays of numbers`},
		{`{"map":{"k":"x"}}`, `field "map": a value is a JSON string, want an object`},
		{`{"deep":{"k":[1]}}`, `field "deep": a value is a JSON number, want an object`},
		{`{"inner":{"a":"x"}}`, `field "inner.a": want an array of integers, got a JSON string`},
		{`{"list":[{"a":["x"]}]}`, `field "list.a": an element is a JSON string, want an array of integers`},
		{`{"list":[1]}`, `field "list": an element is a JSON number, want an array of objects`},
		{`{"name":1}`, `field "name": want a string, got a JSON number`},
		{`{"Plain":"x"}`, `field "Plain": want an integer, got a JSON string`},
		{`[1]`, `the request body must be a JSON object (fields: embedding_types, nested), got a JSON array`},
		{``, `malformed JSON: empty body`},
		{`{"name":`, `malformed JSON: unexpected EOF`},
		{`{"name" 1}`, `malformed JSON at offset 9: invalid character '1' after object key`},
		{`{"Name2":1}`, `malformed JSON: unknown field "Name2" (known: embedding_types, nested)`},
	} {
		var req request
		dec := json.NewDecoder(strings.NewReader(c.body))
		dec.DisallowUnknownFields()
		err := Describe(dec.Decode(&req), &req, fields)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.body, err, c.want)
			continue
		}
		var je *Error
		if !errors.As(err, &je) || je.Unwrap() == nil || strings.Contains(err.Error(), "Go ") {
			t.Errorf("%s: %v: not an *Error wrapping the decoder's error, in JSON terms", c.body, err)
		}
	}
	if err := Describe(io.EOF, &request{}, nil); !errors.Is(err, io.EOF) {
		t.Errorf("Describe(io.EOF) = %v: errors.Is does not find io.EOF", err)
	}
}

func TestValueKind(t *testing.T) {
	for raw, want := range map[string]string{
		` {"a":1}`: "object", "\n[1]": "array", `"x"`: "string", `true`: "boolean", `false`: "boolean",
		`null`: "null", `-1.5`: "number", `  `: "nothing",
	} {
		if got := ValueKind([]byte(raw)); got != want {
			t.Errorf("ValueKind(%q) = %q, want %q", raw, got, want)
		}
	}
}

// TestEnd: white space after the decoded value is its end; a second value, a
// stray bracket or garbage is an *Error naming the offset at which the value
// ends, and wraps the error of reading on.
func TestEnd(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
	}{
		{`{"a":1}`, ""},
		{"{\"a\":1} \n\t", ""},
		{`{"a":1} {"a":2}`, "malformed JSON: data after the JSON value, which ends at offset 7"},
		{`{"a":1}garbage`, "malformed JSON: data after the JSON value, which ends at offset 7"},
		{` {"a":1}  ]`, "malformed JSON: data after the JSON value, which ends at offset 8"},
		{`{"a":1}}`, "malformed JSON: data after the JSON value, which ends at offset 7"},
		{`{"a":1},`, "malformed JSON: data after the JSON value, which ends at offset 7"},
		{`{"a":1}"x"`, "malformed JSON: data after the JSON value, which ends at offset 7"},
	} {
		dec := json.NewDecoder(strings.NewReader(c.in))
		var v struct{ A int }
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%q: %v", c.in, err)
		}
		err := End(dec)
		var e *Error
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v, want no error", c.in, err)
		case c.want != "" && (!errors.As(err, &e) || err.Error() != c.want):
			t.Errorf("%q: %v, want *Error %q", c.in, err, c.want)
		}
	}
	errBroken := errors.New("broken pipe")
	failing := io.MultiReader(strings.NewReader(`{"a":1} `), iotest.ErrReader(errBroken))
	dec := json.NewDecoder(failing)
	var v struct{ A int }
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	if err := End(dec); !errors.Is(err, errBroken) {
		t.Errorf("a failing read after the value: %v, want it wrapped", err)
	}
}
