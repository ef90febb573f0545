// Package proc starts the processes of a run so that they die with the process that started
// them, however it dies: the kernel sends each child SIGKILL when its parent goes (Pdeathsig).
// Each process of a run starts the next this way (runner, adapter, proxy, server), so killing
// any of them takes down everything it started, down the chain.
//
// Wherever toolscore starts a process of a run it calls [Start] instead of cmd.Start: the
// local backend (the adapter), the cell (the adapter, the proxy), the raw client (the server
// command), the proxy (the server), the bridge and the agents (their CLIs). [Start] forks from
// one locked thread that lives as long as the process, because the kernel ties the death
// signal to the thread that forked, not to the process. Where a library starts the command
// itself (the command transports of go-sdk and mcp-go), [DieWithParent] sets the signal on
// the command beforehand.
//
// The death signal reaches only the processes toolscore started, not a server's own children.
// For those, the proxy makes itself a child subreaper ([Subreaper]), so its orphaned
// descendants are given to it, and kills and reaps whatever is left when it exits
// ([KillOrphans]). The local backend's runner is a subreaper too, and after each run, or
// install step, kills and reaps only what that run's group left ([EndStrays]): its other
// children are os/exec's to wait for. [Undumpable] keeps a runner's /proc files, its
// environment among them, from the runs, which share its user.
//
// Files: proc.go ([Start]), deathsig_linux.go, orphans_linux.go, strays_linux.go,
// dumpable_linux.go and exited_linux.go ([Exited])
// (Linux), and their _other twins, which do nothing where the kernel has no such feature (macOS).
//
// Used by: backend, install, proxy, transcript, client, agent, bridge and the CLI. Uses nothing of
// toolscore's own.
package proc
