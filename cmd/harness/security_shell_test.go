package main_test

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// wordAttacks are commands that run only ls, as far as the command line
// shows, and yet make bash run code or open a connection: PAYLOAD is a file
// in the workspace holding an array subscript with a command in it, PORT a
// listener of the test.
var wordAttacks = []string{
	"ls $(( $(<PAYLOAD) ))", // the case
	"ls $[ $(<PAYLOAD) ]",
	"ls ${a[$(<PAYLOAD)]}",
	"ls ${!a[$(<PAYLOAD)]}",
	"ls ${PWD:1:$(<PAYLOAD)}",
	"ls 3</dev/tcp/127.0.0.1/PORT",
	"ls 3<>/dev/tcp/127.0.0.1/PORT",
	"ls 4<>/dev/udp/127.0.0.1/PORT",
}

// examplePermissions returns the permissions block of a shipped example,
// with the sandbox off so that the shell policy is the only defence.
func examplePermissions(t *testing.T, example string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(repoRoot(t), "examples", example, "agent.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile(`(?s)  permissions \{.*?\n  \}`).Find(src)
	if block == nil {
		t.Fatalf("examples/%s/agent.hcl has no permissions block", example)
	}
	lines := strings.Split(string(block), "\n")
	var kept []string
	for _, l := range lines {
		if !strings.HasPrefix(strings.TrimSpace(l), "sandbox") {
			kept = append(kept, l)
		}
	}
	kept = append(kept[:len(kept)-1], `    sandbox = "off"`, "  }")
	return strings.Join(kept, "\n")
}

// connections counts the connections a listener accepts.
type connections struct {
	ln   net.Listener
	mu   sync.Mutex
	seen []string // remote addresses, in the order accepted
}

func listen(t *testing.T) *connections {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &connections{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			c.mu.Lock()
			c.seen = append(c.seen, conn.RemoteAddr().String())
			c.mu.Unlock()
			conn.Close()
		}
	}()
	return c
}

// before returns how many connections were accepted before one the test
// makes now: the listener accepts in order, so every connection the run
// made is counted once the test's own has been seen.
func (c *connections) before(t *testing.T) int {
	t.Helper()
	conn, err := net.Dial("tcp", c.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	mine := conn.LocalAddr().String()
	var buf [1]byte
	_, _ = conn.Read(buf[:]) // returns once the listener has accepted and closed it
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, addr := range c.seen {
		if addr == mine {
			return i
		}
	}
	t.Fatal("the listener did not see the test's own connection")
	return 0
}

// TestSecurityShellPolicyCodeInWords sends wordAttacks under allow_commands
// = ["ls *"] and under the rules of the shipped quickstart and deepseek
// examples: none is approved without a person, no canary appears outside the
// workspace and no connection reaches the listener. With --yes (a person's
// yes) the same run creates every canary, which shows the attacks are real.
func TestSecurityShellPolicyCodeInWords(t *testing.T) {
	t.Parallel()
	run := func(t *testing.T, permissions string, yes bool) (canaries []string, conns int, decided map[string]map[string]any) {
		root := t.TempDir()
		ws, outside := filepath.Join(root, "ws"), filepath.Join(root, "outside")
		if err := os.MkdirAll(outside, 0o755); err != nil {
			t.Fatal(err)
		}
		ln := listen(t)
		_, port, _ := net.SplitHostPort(ln.ln.Addr().String())
		var calls []call
		for i, attack := range wordAttacks {
			canary := filepath.Join(outside, fmt.Sprintf("canary%02d", i))
			payload := fmt.Sprintf("out/p%02d.txt", i)
			writeFile(t, filepath.Join(ws, payload), "a[$(touch "+canary+")]")
			if strings.Contains(attack, "PAYLOAD") {
				canaries = append(canaries, canary)
			}
			command := strings.NewReplacer("PAYLOAD", payload, "PORT", port).Replace(attack)
			calls = append(calls, call{"terminal", map[string]any{"command": command}, ""})
		}
		fake, ids := scriptCalls(t, calls)
		cfg := withTools(deepseekConfig(fake.URL, permissions, ""), "terminal")
		writeFile(t, filepath.Join(ws, "agent.hcl"), cfg)
		args := []string{"run", "--json", "--no-input", "agent.hcl", "List the files"}
		if yes {
			args = append(args[:1], append([]string{"--yes"}, args[1:]...)...)
		}
		r := harness(t, ws, keyEnv, args...)
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		decided = map[string]map[string]any{}
		for _, d := range eventData(parseEvents(t, r.stdout), "action.decided") {
			decided[fmt.Sprint(d["call_id"])] = d
		}
		byCommand := map[string]map[string]any{}
		for i, id := range ids {
			byCommand[wordAttacks[i]] = decided[id]
		}
		return canaries, ln.before(t), byCommand
	}

	policies := map[string]string{
		"allow_ls":   "  permissions {\n    terminal       = \"ask\"\n    allow_commands = [\"ls *\"]\n    sandbox        = \"off\"\n  }",
		"quickstart": examplePermissions(t, "quickstart"),
		"deepseek":   examplePermissions(t, "deepseek"),
	}
	for name, permissions := range policies {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			canaries, conns, decided := run(t, permissions, false)
			for _, canary := range canaries {
				if _, err := os.Stat(canary); err == nil {
					t.Errorf("%s exists: an attack ran without a person", filepath.Base(canary))
				}
			}
			if conns != 0 {
				t.Errorf("%d connections reached the listener without a person", conns)
			}
			for _, attack := range wordAttacks {
				d := decided[attack]
				if d == nil {
					t.Errorf("%q: no action.decided", attack)
					continue
				}
				if d["decision"] == "approved" {
					t.Errorf("%q was approved by %v (%v)", attack, d["by"], d["rule"])
				}
			}
		})
	}
	t.Run("control_with_yes", func(t *testing.T) {
		t.Parallel()
		canaries, conns, decided := run(t, policies["allow_ls"], true)
		for _, canary := range canaries {
			if _, err := os.Stat(canary); err != nil {
				t.Errorf("%s is missing: with a person's yes the attack should have run, so the test proves nothing", filepath.Base(canary))
			}
		}
		if conns < 1 {
			t.Errorf("no connection with a person's yes: the /dev/tcp read should have connected")
		}
		for _, attack := range wordAttacks {
			d := decided[attack]
			// <> writes too: outside the workspace, so it stays denied.
			outside := d != nil && d["decision"] == "denied" && strings.HasPrefix(fmt.Sprint(d["rule"]), "redirection outside workspace")
			if d == nil || !outside && (d["decision"] != "approved" || d["by"] != "flag") {
				t.Errorf("%q with --yes: %v, want approved by flag", attack, d)
			}
		}
	})
}
