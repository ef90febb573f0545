//go:build !linux

package proc

// Undumpable does nothing where /proc does not expose a process's environment (macOS).
func Undumpable() error { return nil }
