// Command etcd mirrors go.etcd.io/etcd/server/v3/main.go. The etcd version is the one
// k8s.io/kubernetes (via k8s.io/apiserver) requires, i.e. envtest's pairing for 1.34.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
