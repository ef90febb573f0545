// Package runenv builds the environment of every process of a run (the client adapter, the
// proxy, the server under test) from an allowlist, so no variable of toolscore's own
// environment (a CI token, a secret of the step, the paths of the GitHub Actions files)
// reaches them unless the manifest names it.
//
// [Allowed] keeps of an environment only [Names] (the search path, home, temporary directory,
// locale), LC_* and [Self] (what the toolscore binary needs to start, since the adapter, the
// proxy and a builtin server are that binary). Whoever starts a process of a run starts from
// Allowed(os.Environ()) and adds the run's own variables: the local backend for the adapter,
// the proxy for the server (with the manifest's server.env), toolscore init for the server it
// asks.
//
// Used by: backend, proxy, and the CLI. Uses nothing.
package runenv
