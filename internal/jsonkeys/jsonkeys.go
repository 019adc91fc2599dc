// Package jsonkeys finds keys given twice in one JSON object, which
// encoding/json (and so the MCP go-sdk) decodes by keeping the last one:
// whoever sent the first value, a model or a client, would never learn it
// was dropped. The model tool loop (package answer), the MCP tools and the
// HTTP API (package server) refuse such arguments and bodies through this
// one walker; the server's [Visitor] also refuses field names that match
// only when case is ignored.
//
// Imports: the standard library only.
package jsonkeys

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// DuplicateError is a key that appears twice in one object.
type DuplicateError struct {
	// Path names the key from the top value: "k", "filter.path",
	// "items[0].k".
	Path string
}

func (e *DuplicateError) Error() string { return fmt.Sprintf("%q appears twice", e.Path) }

// A Visitor checks the keys of the objects [Walk] reads, knowing where in
// the value they are (a struct the JSON decodes into, say).
type Visitor interface {
	// Key is called for each key of an object, after it is known not to
	// be repeated, with the object's path ("" for the top value); it
	// returns the Visitor of the key's value (nil: none), or an error that
	// stops the walk.
	Key(obj, key string) (Visitor, error)
	// Elem returns the Visitor of an array's elements (nil: none).
	Elem() Visitor
}

// Walk reads the one JSON value in data and returns a [*DuplicateError]
// for the first key that appears twice in one of its objects, at any depth
// (the same key in two objects is not twice), or the first error of v
// (which may be nil), or a syntax error of encoding/json's. Keys are
// compared as decoded ("\u0061" is "a").
func Walk(data []byte, v Visitor) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return walk(dec, v, "")
}

// Duplicate returns the path of the first key that appears twice in one
// object of data, a JSON value, and true; "" and false if there is none
// (also when data is not JSON). The path of a key may be "": the empty key
// of the top object.
func Duplicate(data []byte) (string, bool) {
	if de, ok := Walk(data, nil).(*DuplicateError); ok {
		return de.Path, true
	}
	return "", false
}

func walk(dec *json.Decoder, v Visitor, path string) error {
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
				return &DuplicateError{Path: name}
			}
			seen[key] = true
			var kv Visitor
			if v != nil {
				if kv, err = v.Key(path, key); err != nil {
					return err
				}
			}
			if err := walk(dec, kv, name); err != nil {
				return err
			}
		}
		_, err = dec.Token()
		return err
	case json.Delim('['):
		var ev Visitor
		if v != nil {
			ev = v.Elem()
		}
		for i := 0; dec.More(); i++ {
			if err := walk(dec, ev, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		_, err = dec.Token()
		return err
	}
	return nil
}
