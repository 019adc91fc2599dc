package citations

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
)

// Errors returned by [Invocation.Register].
var (
	// ErrInvalidIndex means a reference's Index is negative.
	ErrInvalidIndex = errors.New("invalid reference index")
	// ErrDuplicateIndex means a reference with the same Index is already
	// registered in the invocation.
	ErrDuplicateIndex = errors.New("reference index already registered")
)

// Registry finds registered references by index. The renderers read
// references through it; [*Invocation] implements it.
type Registry interface {
	// Lookup returns the reference registered under index, if any.
	Lookup(index int) (Reference, bool)
}

var _ Registry = (*Invocation)(nil)

// Invocation is the citation state of one request: the reference registry,
// the shared index counter and a bag of per-request values. It is the Go
// analogue of an ambient invocation scope: [Begin] stores a fresh Invocation
// in a context, and code deep in a tool call finds it with [FromContext].
// Concurrent requests each have their own Invocation, so nothing is keyed by
// a request id and nothing needs cleaning up.
//
// All methods are safe for concurrent use. The zero Invocation is empty and
// ready to use; an Invocation must not be copied after first use.
type Invocation struct {
	next atomic.Int64

	mu      sync.Mutex
	refs    []Reference // in registration order; guarded by mu
	byIndex map[int]int // Index -> position in refs; guarded by mu
	// byPassage finds a registered passage by ID or by source and span;
	// guarded by mu.
	byPassage map[passageKey]int
	resolver  Resolver // guarded by mu

	bag sync.Map
}

// NewInvocation returns an empty invocation whose first index is 1. Most code
// calls [Begin] instead; NewInvocation is for callers that keep the value
// themselves, such as tests or a re-render of a stored answer.
func NewInvocation() *Invocation {
	return &Invocation{byIndex: make(map[int]int)}
}

type ctxKey struct{}

// Begin returns a copy of ctx carrying a fresh [Invocation]. Call it once per
// request, before any producer runs. A Begin inside a context that already
// carries an invocation starts a new, separate one that shadows the outer.
func Begin(ctx context.Context) context.Context {
	return context.WithValue(ctx, ctxKey{}, NewInvocation())
}

// FromContext returns the invocation stored in ctx by [Begin], and whether
// there was one.
func FromContext(ctx context.Context) (*Invocation, bool) {
	inv, ok := ctx.Value(ctxKey{}).(*Invocation)
	return inv, ok
}

// NextIndex reserves and returns the next marker index: 1, 2, 3, ... Every
// producer in the invocation shares the counter, so no two references get
// the same index even when retrieval and several tool calls run at once.
func (inv *Invocation) NextIndex() int {
	return int(inv.next.Add(1))
}

// SetResolver sets the resolver that fills the Link of references registered
// without one. Set it before producers start; references registered earlier
// keep their links.
func (inv *Invocation) SetResolver(r Resolver) {
	inv.mu.Lock()
	inv.resolver = r
	inv.mu.Unlock()
}

// Register adds ref to the registry and returns it as stored. A zero Index
// is assigned with [Invocation.NextIndex]; a positive Index, normally one
// reserved earlier with NextIndex, is kept, and the counter is moved past it
// so later indices never collide with it. An empty Link is filled by the
// invocation's resolver, if one is set.
//
// A passage is registered once. When ref is a passage the invocation
// already has (the same Type and ID, or the same Type, Source and non-empty
// Span), Register adds nothing and returns the reference it has, with its
// Index, whatever Index ref asked for: the producer gives the model that
// Index. So a chunk found by preemptive retrieval and again by a tool call
// is one reference, listed once. References with neither an ID nor a
// Source and Span are never merged.
//
// Register fails with [ErrInvalidIndex] for a negative Index and with
// [ErrDuplicateIndex] when the Index is already registered to another
// passage.
func (inv *Invocation) Register(ref Reference) (Reference, error) {
	if ref.Index < 0 {
		return Reference{}, fmt.Errorf("register reference %q: index %d: %w", ref.ID, ref.Index, ErrInvalidIndex)
	}
	keys := passageKeys(ref)
	inv.mu.Lock()
	if have, ok := inv.registered(keys); ok {
		inv.mu.Unlock()
		return have, nil
	}
	r := inv.resolver
	inv.mu.Unlock()

	if ref.Index == 0 {
		ref.Index = inv.NextIndex()
	} else {
		for {
			cur := inv.next.Load()
			if cur >= int64(ref.Index) || inv.next.CompareAndSwap(cur, int64(ref.Index)) {
				break
			}
		}
	}
	// The resolver is the caller's code: it runs without the lock.
	if ref.Link == "" && r != nil {
		ref.Link = r.Resolve(ref)
	}

	inv.mu.Lock()
	defer inv.mu.Unlock()
	if have, ok := inv.registered(keys); ok { // registered meanwhile
		return have, nil
	}
	if inv.byIndex == nil {
		inv.byIndex = make(map[int]int)
	}
	if _, dup := inv.byIndex[ref.Index]; dup {
		return Reference{}, fmt.Errorf("register %s: %w", ref.Key(), ErrDuplicateIndex)
	}
	inv.byIndex[ref.Index] = len(inv.refs)
	inv.refs = append(inv.refs, ref)
	if len(keys) > 0 && inv.byPassage == nil {
		inv.byPassage = make(map[passageKey]int)
	}
	for _, k := range keys {
		inv.byPassage[k] = len(inv.refs) - 1
	}
	return ref, nil
}

// passageKey identifies a passage: by its ID, or by its place in its
// source.
type passageKey struct {
	typ        Type
	id, source string
	span       Span
}

// passageKeys returns the keys ref's passage is known by: none when it has
// neither an ID nor a Source with a non-empty Span.
func passageKeys(ref Reference) []passageKey {
	var keys []passageKey
	if ref.ID != "" {
		keys = append(keys, passageKey{typ: ref.Type, id: ref.ID})
	}
	if ref.Source != "" && ref.Span.End > ref.Span.Start {
		keys = append(keys, passageKey{typ: ref.Type, source: ref.Source, span: ref.Span})
	}
	return keys
}

// registered returns the reference registered under one of keys. The
// caller holds inv.mu.
func (inv *Invocation) registered(keys []passageKey) (Reference, bool) {
	for _, k := range keys {
		if i, ok := inv.byPassage[k]; ok {
			return inv.refs[i], true
		}
	}
	return Reference{}, false
}

// Lookup returns the reference registered under index, if any.
func (inv *Invocation) Lookup(index int) (Reference, bool) {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	i, ok := inv.byIndex[index]
	if !ok {
		return Reference{}, false
	}
	return inv.refs[i], true
}

// Len returns the number of registered references.
func (inv *Invocation) Len() int {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	return len(inv.refs)
}

// References returns every registered reference sorted by Index: the final
// collection, taken after the last producer has finished.
func (inv *Invocation) References() []Reference {
	inv.mu.Lock()
	refs := slices.Clone(inv.refs)
	inv.mu.Unlock()
	slices.SortFunc(refs, func(a, b Reference) int { return cmp.Compare(a.Index, b.Index) })
	return refs
}

// Cursor returns a new cursor positioned before the first registered
// reference.
func (inv *Invocation) Cursor() *Cursor {
	return &Cursor{inv: inv}
}

// Store sets the value for key in the invocation's bag of per-request
// values. Use an unexported key type, as with [context.WithValue].
func (inv *Invocation) Store(key, value any) { inv.bag.Store(key, value) }

// Load returns the value stored for key in the invocation's bag, and whether
// there was one.
func (inv *Invocation) Load(key any) (any, bool) { return inv.bag.Load(key) }

// Cursor reads the references registered in an [Invocation] incrementally:
// each call to [Cursor.Next] returns the ones added since the previous call.
// A streaming consumer keeps one Cursor and asks it after every model delta
// and once more at the end. Producers may register concurrently with Next; a
// Cursor itself belongs to one consumer goroutine.
type Cursor struct {
	inv *Invocation
	pos int
}

// Next returns the references registered since the previous call, in
// registration order, or nil when there are none.
func (c *Cursor) Next() []Reference {
	c.inv.mu.Lock()
	defer c.inv.mu.Unlock()
	if c.pos == len(c.inv.refs) {
		return nil
	}
	refs := slices.Clone(c.inv.refs[c.pos:])
	c.pos = len(c.inv.refs)
	return refs
}
