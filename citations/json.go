package citations

import (
	"encoding/json"

	"github.com/cite-rag/cite/internal/escape"
)

// referenceJSON is Reference without its methods, for encoding/json.
type referenceJSON Reference

// MarshalJSON writes the reference with its Source escaped as every path in
// cite's JSON is ([escape.Path]: a byte that is not UTF-8, or of a control
// or bidirectional-formatting character, as \xNN, a backslash as \\), so
// that a file name that is not UTF-8 survives: encoding/json would replace
// its bad bytes with U+FFFD. [Reference.UnmarshalJSON] undoes it.
func (r Reference) MarshalJSON() ([]byte, error) {
	j := referenceJSON(r)
	j.Source = escape.Path(r.Source)
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes, unescaping Source.
func (r *Reference) UnmarshalJSON(data []byte) error {
	var j referenceJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	src, err := escape.UnescapePath(j.Source)
	if err != nil {
		return err
	}
	j.Source = src
	*r = Reference(j)
	return nil
}

// citedJSON is Cited's JSON form: Number and Key, then the reference's
// fields, as encoding/json flattens an embedded struct.
type citedJSON struct {
	Number int    `json:"number"`
	Key    string `json:"key"`
	referenceJSON
}

// MarshalJSON writes the cited reference as [Reference.MarshalJSON] does,
// with its number and key. (Without it, Cited would take Reference's
// method and lose them.)
func (c Cited) MarshalJSON() ([]byte, error) {
	j := citedJSON{Number: c.Number, Key: c.Key, referenceJSON: referenceJSON(c.Reference)}
	j.Source = escape.Path(c.Source)
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes, unescaping Source.
func (c *Cited) UnmarshalJSON(data []byte) error {
	var j citedJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	src, err := escape.UnescapePath(j.Source)
	if err != nil {
		return err
	}
	j.Source = src
	*c = Cited{Number: j.Number, Key: j.Key, Reference: Reference(j.referenceJSON)}
	return nil
}
