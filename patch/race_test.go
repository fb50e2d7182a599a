//go:build race

package patch_test

// raceEnabled scales the search-heavy tests down under the race detector,
// which makes the explorer about fifteen times slower.
const raceEnabled = true
