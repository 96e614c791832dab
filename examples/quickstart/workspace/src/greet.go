package greet

// Hello returns a greeting.
// TODO: greet people by name
func Hello() string {
	// TODO: handle an empty name
	return "hello"
}
