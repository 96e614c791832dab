// Command sandboxprobe tries one thing a sandboxed command must not be able
// to do, for the terminal plugin's tests; it prints what happened and exits
// 0 when the attempt succeeded.
//
//	sandboxprobe unix PATH|@NAME   connect to a UNIX socket (@: abstract)
//	sandboxprobe tcp HOST:PORT     connect over TCP
//	sandboxprobe setxattr PATH     set the extended attribute user.sandbox
//	sandboxprobe readkey ID        read the payload of a key (keyrings)
package main

import (
	"fmt"
	"net"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: sandboxprobe unix|tcp|setxattr TARGET")
		os.Exit(2)
	}
	target := os.Args[2]
	var err error
	switch os.Args[1] {
	case "unix":
		var c net.Conn
		if c, err = net.Dial("unix", target); err == nil {
			c.Close()
		}
	case "tcp":
		var c net.Conn
		if c, err = net.Dial("tcp", target); err == nil {
			c.Close()
		}
	case "setxattr":
		err = unix.Setxattr(target, "user.sandbox", []byte("probe"), 0)
	case "readkey":
		var id, n int
		if id, err = strconv.Atoi(target); err == nil {
			buf := make([]byte, 256)
			if n, err = unix.KeyctlBuffer(unix.KEYCTL_READ, id, buf, 0); err == nil {
				fmt.Printf("payload %q\n", buf[:min(n, len(buf))])
			}
		}
	default:
		err = fmt.Errorf("unknown probe %q", os.Args[1])
	}
	if err != nil {
		fmt.Println("probe failed:", err)
		os.Exit(1)
	}
	fmt.Println("probe succeeded")
}
