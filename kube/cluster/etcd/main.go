// Command etcd is etcd's server, built from the same module graph as the control plane
// because Debian's etcd is too old for this Kubernetes.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
