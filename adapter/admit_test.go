package adapter

import (
	"strings"
	"testing"
)

func TestCheckKeys(t *testing.T) {
	for _, c := range []struct {
		body, want string // want "" = accepted
	}{
		{`{"text":"f1","config":{"task_type":"query"}}`, ""},
		{`{"Text":"f1"}`, `unknown field "Text"`},
		{`{"\u0054ext":"f1"}`, `unknown field "Text"`},
		{`{"text":"a","te\u0078t":"b"}`, `duplicate key "text"`},
		{`{"text":"f1","config":{"a":1,"b":{"a":1},"a":2}}`, `duplicate key "a"`},
		{`{"text":"{\"a\":1,\"a\":2}","config":{}}`, ""},
		{`{"texts":[{"x":1,"x":2}]}`, `duplicate key "x"`},
		{`{"text":"\\","config":{"k":[1,2,{"k":true}],"k2":null}}`, ""},
		{`{"text":`, ""}, // malformed: decodeJSON reports it
		{`["text","text"]`, ""},
	} {
		err := checkKeys([]byte(c.body), "text", "texts", "config")
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.body, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want %q", c.body, err, c.want)
		}
	}
}
