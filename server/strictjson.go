package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// checkFields walks the JSON object in data along t, the type it decodes
// into, and returns an error naming the first field that appears twice in
// an object, or whose name matches a field of t only when case is
// ignored: encoding/json would take the last of repeated fields, and
// match names case-insensitively.
func checkFields(data []byte, t reflect.Type) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return walkFields(dec, t, "")
}

func walkFields(dec *json.Decoder, t reflect.Type, path string) error {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		seen := map[string]bool{}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return err
			}
			key, _ := tok.(string)
			name := key
			if path != "" {
				name = path + "." + key
			}
			if seen[key] {
				return fmt.Errorf("field %q appears twice", name)
			}
			seen[key] = true
			var ft reflect.Type
			if t != nil && t.Kind() == reflect.Struct {
				f, want, ok := structField(t, key)
				if ok && want != key {
					return fmt.Errorf("field %q: field names are case-sensitive: %q", name, joinPath(path, want))
				}
				ft = f
			} else if t != nil && t.Kind() == reflect.Map {
				ft = t.Elem()
			}
			if err := walkFields(dec, ft, name); err != nil {
				return err
			}
		}
		_, err = dec.Token()
		return err
	case json.Delim('['):
		var et reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			et = t.Elem()
		}
		for i := 0; dec.More(); i++ {
			if err := walkFields(dec, et, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		_, err = dec.Token()
		return err
	}
	return nil
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
