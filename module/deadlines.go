package module

import (
	"net/http"
	"reflect"
	"time"
)

// maxWrappers bounds the ResponseWriter wrappers connController looks
// through.
const maxWrappers = 16

// connController returns a ResponseController for the connection under w.
// http.ResponseController finds it through wrappers that have an Unwrap
// method; some middleware that Weaviate puts in front of its modules has
// none (its tracing, with EXPERIMENTAL_OTEL_ENABLED, wraps the writer in a
// struct that embeds it). connController also looks through a pointer to a
// struct embedding an exported http.ResponseWriter, so that the connection's
// deadlines bound the body and the answer there too. Only the deadlines are
// set through the result: the answer is written to w, through every wrapper.
func connController(w http.ResponseWriter) *http.ResponseController {
	for range maxWrappers {
		switch u := w.(type) {
		case interface{ SetReadDeadline(time.Time) error }:
			return http.NewResponseController(w)
		case interface{ Unwrap() http.ResponseWriter }:
			w = u.Unwrap()
			continue
		}
		inner := embeddedWriter(w)
		if inner == nil {
			break
		}
		w = inner
	}
	return http.NewResponseController(w)
}

// embeddedWriter returns the http.ResponseWriter that w, a pointer to a
// struct, embeds as an exported field, or nil.
func embeddedWriter(w http.ResponseWriter) http.ResponseWriter {
	v := reflect.ValueOf(w)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	s, rw := v.Elem(), reflect.TypeFor[http.ResponseWriter]()
	for i := range s.NumField() {
		f := s.Type().Field(i)
		if !f.Anonymous || !f.IsExported() || f.Type != rw || s.Field(i).IsNil() {
			continue
		}
		inner, _ := s.Field(i).Interface().(http.ResponseWriter)
		return inner
	}
	return nil
}
