// Command hello prints hello: the package testkit's own tests build it.
package main

import "fmt"

func main() { fmt.Println("hello") }
