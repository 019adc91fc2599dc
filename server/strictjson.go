package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/cite-rag/cite/internal/jsonkeys"
)

// jsonError words an error of decoding a JSON object (what: "the body",
// "the arguments") in JSON's terms, naming the field and the type it
// wants: encoding/json's own messages name Go types ("cannot unmarshal
// string into Go struct field askRequest.k of type int").
func jsonError(err error, what string) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te) && te.Field == "":
		return what + " must be a JSON object"
	case errors.As(err, &te):
		return fmt.Sprintf("%q: want %s, got %s", te.Field, jsonWant(te.Type), jsonGot(te.Value))
	case errors.As(err, &se):
		return fmt.Sprintf("not JSON: %s (at byte %d)", se.Error(), se.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "not JSON: it ends too soon"
	}
	return strings.TrimPrefix(err.Error(), "json: ") // unknown field "x"
}

// jsonWant names the JSON values a Go type decodes from.
func jsonWant(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "another value"
}

// jsonGot names the JSON value an UnmarshalTypeError's Value describes:
// "string", "number", "number 1.5", "bool", "array", "object".
func jsonGot(v string) string {
	switch v {
	case "string":
		return "a string"
	case "number":
		return "a number"
	case "bool":
		return "true or false"
	case "array":
		return "an array"
	case "object":
		return "an object"
	}
	if n, ok := strings.CutPrefix(v, "number "); ok {
		return n
	}
	return v
}

// checkFields walks the JSON object in data along t, the type it decodes
// into, and returns an error naming the first field that appears twice in
// an object, or whose name matches a field of t only when case is
// ignored: encoding/json would take the last of repeated fields, and
// match names case-insensitively.
func checkFields(data []byte, t reflect.Type) error {
	err := jsonkeys.Walk(data, fieldCase{t})
	if de, ok := err.(*jsonkeys.DuplicateError); ok {
		return fmt.Errorf("field %q appears twice", de.Path)
	}
	return err
}

// fieldCase is the [jsonkeys.Visitor] of a value that decodes into t (nil:
// not known): it refuses a key that names a field of a struct only when
// case is ignored.
type fieldCase struct{ t reflect.Type }

func (v fieldCase) Key(obj, key string) (jsonkeys.Visitor, error) {
	t := v.t
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t != nil && t.Kind() == reflect.Struct:
		f, want, ok := structField(t, key)
		if ok && want != key {
			return nil, fmt.Errorf("field %q: field names are case-sensitive: %q", joinPath(obj, key), joinPath(obj, want))
		}
		return fieldCase{f}, nil
	case t != nil && t.Kind() == reflect.Map:
		return fieldCase{t.Elem()}, nil
	}
	return fieldCase{}, nil
}

func (v fieldCase) Elem() jsonkeys.Visitor {
	t := v.t
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
		return fieldCase{t.Elem()}
	}
	return fieldCase{}
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// structField finds the field of struct t that encoding/json decodes key
// into: its type and its JSON name, which may differ from key in case.
func structField(t reflect.Type, key string) (reflect.Type, string, bool) {
	var fold reflect.Type
	var foldName string
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if name == key {
			return f.Type, name, true
		}
		if fold == nil && strings.EqualFold(name, key) {
			fold, foldName = f.Type, name
		}
	}
	return fold, foldName, fold != nil
}
