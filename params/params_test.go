package params_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/params"
	"github.com/mcountsim/mcountsim/sched"
)

// The table is the defaults everyone uses.
func TestTableIsTheDefaults(t *testing.T) {
	sc := explore.Scenario{}.WithDefaults()
	assert.Equal(t, params.CPUs.Default, sc.CPUs)
	assert.Equal(t, params.Tasks.Default, sc.Tasks)
	assert.Equal(t, params.Iterations.Default, sc.Iterations)
	assert.Equal(t, params.Toggles.Default, sc.Toggles)
	assert.Equal(t, params.Functions.Default, sc.Functions)
	assert.Equal(t, params.Bound.Default, explore.DefaultBound)
	assert.Equal(t, params.CPUs.Max, sched.MaxCPUs)
	assert.Equal(t, params.Tasks.Max, sched.MaxTasks-1)
	assert.EqualError(t, params.CPUs.Check(9), "--cpus must be 1..8, got 9")
	assert.NoError(t, params.Bound.Check(0))
	assert.EqualError(t, params.StackWords.Check(8), "--stack-words must be 16..4096, got 8")
	assert.Equal(t, params.StackWords.Default, explore.Scenario{}.DefaultStackWords())
	for _, p := range params.All {
		q, ok := params.Lookup(p.Name)
		assert.True(t, ok)
		assert.Same(t, p, q)
		assert.NoError(t, p.Check(p.Default), p.Name)
	}
}
