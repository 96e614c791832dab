package config

import (
	"net"
	"strconv"
	"time"

	"github.com/hashicorp/hcl/v2"
)

const blockEngine = "engine"

// EngineTemporal is the engine block's label for a Temporal server.
const EngineTemporal = "temporal"

// Engine is the engine block: where `harness run` runs the agent's loop
// when no --engine flag says otherwise. Flags override each attribute.
type Engine struct {
	Name      string // the block's label: "temporal"
	Address   string // the Temporal server, HOST:PORT
	TaskQueue string // the task queue its workers serve
	// Heartbeat is how long a silent worker is given before its model
	// request or tool call is taken as lost; 0: the engine's default.
	Heartbeat time.Duration
	DeclRange hcl.Range
}

var engineSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "address", Required: true},
		{Name: "task_queue", Required: true},
		{Name: "heartbeat"},
	},
}

func (l *loader) decodeEngine(items []item) {
	it, ok := l.singleItem(items)
	if !ok {
		return
	}
	b := it.block
	if b.Labels[0] != EngineTemporal {
		l.diags = append(l.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unknown engine",
			Detail:  "engine \"" + b.Labels[0] + "\" is not an engine harness knows: the only engine block is engine \"temporal\" (the local engine needs none).",
			Subject: b.LabelRanges[0].Ptr()})
		return
	}
	e := &Engine{Name: b.Labels[0], DeclRange: b.DefRange}
	a := l.attrs(it.src, l.content(b.Body, engineSchema).Attributes)
	if a.nonEmptyStr("address", &e.Address) {
		host, port, err := net.SplitHostPort(e.Address)
		if n, perr := strconv.Atoi(port); err != nil || host == "" || perr != nil || n <= 0 || n > 65535 {
			a.errorf(a.rangeOf("address"), "Invalid Temporal address",
				"address must be the Temporal server's HOST:PORT, such as \"localhost:7233\"; got %q.", e.Address)
			e.Address = ""
		}
	}
	a.nonEmptyStr("task_queue", &e.TaskQueue)
	a.duration("heartbeat", &e.Heartbeat)
	l.cfg.Engine = e
}
