// Package bench holds mcountsim's measurements against other tools: the
// comparison script compare.sh, the sharded runs of shards.sh, and
// spin.sh, which times SPIN on abstract Promela models of every built-in
// strategy's default scenario (models/*.pml) against `mcountsim check`.
// The package has no code of its own: its test (spin_test.go) runs each
// model through spin, gcc and pan, when they are installed, and requires
// SPIN's verdict to equal mcountsim's, so that the models cannot drift
// from the strategies they stand for, and runs two mutants (a model with
// its protocol step removed) to show that the SAFE models owe their verdict
// to that step. See README.md.
//
// Imports (test only): patch, testify and the standard library.
package bench
