// Package testenv holds what the tests of every package share: whether the
// race detector is on ([Race]), and where the shared data beside the
// repository is ([SharedData], [FindSharedData]).
//
// It is for tests and benchmarks only; as an internal package, nothing
// outside this module can import it.
package testenv
