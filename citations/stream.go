package citations

// Stream renders an answer while it is generated. Feed it the model's text
// deltas as they arrive; each call returns the display text that is final,
// and [Stream.Close] returns the rest followed by the reference list. The
// concatenation of everything returned is byte for byte
// Render(text, reg, Options{Order: ByAppearance}).Markdown() for the
// concatenated deltas, however the text was split.
//
// A Stream numbers references by first appearance: the number of a citation
// must be final when it is sent, and with numbering by index a later,
// smaller index would renumber citations already shown.
//
// Output is held back only while it is undecided: a marker group that may
// still be forming (at most 256 bytes on one line), a chain of groups joined
// by connectors or in parentheses until it ends (about 1.5 KB at most: see
// [Render] for what goes with a dropped marker), white space that would
// be removed together with a dropped marker or trimmed at the end (at most
// 256 bytes: a longer run is text, passed on as it comes, in [Render] too)
// and a ",", ";" or ":" before it, the start of a line until its
// block structure is known, the content of a code span that has not been
// closed yet (such a span may turn out not to be one), and a link or image
// until it is complete (see [Render]; at most 4 KB).
//
// References may be registered while the stream runs, as tool calls do. A
// marker is resolved against the registry when the stream reaches the end
// of its chain: the byte after it, or after the connectors and markers
// joined to it. A marker whose reference is registered only later is dropped as
// unregistered: the model cannot have been given a passage that did not
// exist yet. So the equality above holds whenever every cited reference was
// registered before the model wrote its marker, which is always the case for
// a real citation.
//
// A Stream is not safe for concurrent use; the registry may be written
// concurrently.
type Stream struct {
	sc     scanner
	led    ledger
	out    []byte // output of the current call
	ws     []byte // trailing white space, held back until text follows it
	longWS bool   // the trailing white space is a run longer than maxSpaceRun, passed on
	body   []byte // all body text output so far
	nums   []int
	taken  int // cited references returned by NewCitations
	closed bool
	res    Rendered
	links  linkFilter
	put    func([]byte)
}

// NewStream returns a stream that resolves markers against reg and
// neutralizes external images and links as [Render] does.
func NewStream(reg Registry) *Stream {
	return NewStreamWith(reg, Options{})
}

// NewStreamWith is [NewStream] with options: opts.KeepLinks keeps images
// and links as written; opts.Order is ignored (a Stream numbers by
// appearance).
func NewStreamWith(reg Registry, opts Options) *Stream {
	s := &Stream{led: ledger{reg: reg}, links: linkFilter{reg: reg, keep: opts.KeepLinks}}
	s.put = s.output
	s.sc.init(s, nil)
	return s
}

// Feed adds the next delta of the model's output and returns the display
// text that became final, possibly "". Feed panics after Close.
func (s *Stream) Feed(delta string) string {
	if s.closed {
		panic("citations: Feed after Close")
	}
	s.sc.write([]byte(delta))
	s.sc.scan()
	return s.flush()
}

// Close ends the input and returns the rest of the display text followed by
// the reference list. Calling it again returns "" and changes nothing, so a
// deferred Close may follow an explicit one.
func (s *Stream) Close() string {
	if s.closed {
		return ""
	}
	s.closed = true
	s.sc.final = true
	s.sc.scan()
	s.links.close(s.put)
	refs := cited(s.led.order, 1)
	if len(refs) > 0 {
		s.ws = s.ws[:0]
		n := len(s.body)
		s.body = finishBody(s.body, &s.sc.st)
		s.out = append(s.out, s.body[n:]...)
		s.out = appendList(s.out, refs)
	} else {
		s.out = append(s.out, s.ws...)
		s.body = append(s.body, s.ws...)
	}
	s.res = Rendered{Text: string(s.body), References: refs, Dropped: s.led.droppedList()}
	return s.flush()
}

// NewCitations returns the references cited for the first time since the
// previous call, numbered as in the text. Send them along with the text so
// a client can show each citation as soon as its number appears.
func (s *Stream) NewCitations() []Cited {
	if s.taken == len(s.led.order) {
		return nil
	}
	c := cited(s.led.order[s.taken:], s.taken+1)
	s.taken = len(s.led.order)
	return c
}

// Result returns the structured rendering after Close: the same value as
// Render(text, reg, Options{Order: ByAppearance}) under the condition in the
// type's documentation. Before Close it returns the zero Rendered.
func (s *Stream) Result() Rendered { return s.res }

func (s *Stream) flush() string {
	out := string(s.out)
	s.out = s.out[:0]
	return out
}

// write outputs p, text that is not code, through the link filter.
func (s *Stream) write(p []byte) { s.links.feed(p, false, s.put) }

// output outputs p, holding back trailing white space, at most
// maxSpaceRun bytes of it: [finishBody] trims no longer run.
func (s *Stream) output(p []byte) {
	k := len(p) - 1
	for k >= 0 && isSpaceNL(p[k]) {
		k--
	}
	if k >= 0 {
		s.pass(s.ws)
		s.ws = s.ws[:0]
		s.longWS = false
		s.pass(p[:k+1])
	}
	if s.longWS {
		s.pass(p[k+1:])
		return
	}
	s.ws = append(s.ws, p[k+1:]...)
	if len(s.ws) > maxSpaceRun {
		s.pass(s.ws)
		s.ws = s.ws[:0]
		s.longWS = true
	}
}

// pass outputs p as final body text.
func (s *Stream) pass(p []byte) {
	s.out = append(s.out, p...)
	s.body = append(s.body, p...)
}

func (s *Stream) text(p []byte, code bool) { s.links.feed(p, code, s.put) }

func (s *Stream) run(r *run) bool { return s.led.render(r, s) }

func (s *Stream) runText(p []byte) {
	if len(p) > 0 {
		s.write(p)
	}
}

func (s *Stream) runCite(idx []int) {
	s.nums = s.nums[:0]
	for _, n := range idx {
		s.nums = append(s.nums, s.led.pos[n]+1)
	}
	var buf [64]byte
	s.write(appendCitations(buf[:0], s.nums))
}
