//go:build !race

package patch_test

const raceEnabled = false
