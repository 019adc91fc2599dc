//go:build race

package weaviate_test

const raceEnabled = true
