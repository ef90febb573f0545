// Package install installs a client outside any image: its files and steps into a folder of a
// content-addressed cache on this machine, once per inputs, shared safely by concurrent sweeps.
// The local backend runs the TypeScript and Python clients, the agent CLIs and a manifest's own
// clients from there.
package install
