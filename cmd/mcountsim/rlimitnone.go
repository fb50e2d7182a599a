//go:build !unix

package main

// processMemoryLimit: no process limits are read on this platform.
func processMemoryLimit() int64 { return 0 }
