package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"

	"github.com/harness-agent/harness/core/agent"
	"github.com/harness-agent/harness/core/approval"
	"github.com/harness-agent/harness/core/config"
	engine "github.com/harness-agent/harness/core/engine/temporal"
	"github.com/harness-agent/harness/core/event"
	"github.com/harness-agent/harness/core/runner"
	"github.com/harness-agent/harness/core/session"
	"github.com/harness-agent/harness/core/tools"
	"github.com/harness-agent/harness/sdk"
)

// Engines of `harness run --engine`.
const (
	engineLocal    = "local"
	engineTemporal = "temporal"
)

// engineChoice is where a run's loop runs: flags over the configuration's
// engine block.
type engineChoice struct {
	name, address, queue string
}

func (c *cli) chooseEngine(cfg *config.Config, f runFlags) (engineChoice, error) {
	e := engineChoice{name: f.engine, address: f.temporal, queue: f.taskQueue}
	if b := cfg.Engine; b != nil {
		if e.name == "" {
			e.name = b.Name
		}
		if e.address == "" {
			e.address = b.Address
		}
		if e.queue == "" {
			e.queue = b.TaskQueue
		}
	}
	switch e.name {
	case "", engineLocal:
		if f.detach {
			return e, exitf(exitUsage, "--detach needs --engine temporal: a local run ends with its process")
		}
		e.name = engineLocal
		return e, nil
	case engineTemporal:
		if e.address == "" || e.queue == "" {
			return e, exitf(exitUsage, "--engine temporal needs the server and the task queue: pass --temporal HOST:PORT and --task-queue Q, or set address and task_queue in an engine \"temporal\" block")
		}
		return e, nil
	}
	return e, exitf(exitUsage, "--engine %q: the engines are local and temporal", e.name)
}

// temporalMode is how the options of `harness run` apply on the Temporal
// engine (temporalOptions).
type temporalMode struct {
	// ask: approvals are asked at this terminal and answered by signal;
	// the workers leave them pending meanwhile.
	ask bool
}

// temporalOptions decides, for a run on the Temporal engine, each option
// of `harness run`: it works as on the local engine, or is refused with
// why. hasTask: a task (or, resuming, a message) was given; stdinTTY: a
// person is at the terminal.
//
//   - --resume ID / --continue: a finished or abandoned session continues
//     as a new workflow from the store's history (one still running on
//     its workers is refused: attach to it); a message is optional, as
//     locally.
//   - --yes: the workers approve what policy would ask about.
//   - --no-input: nothing is asked; approvals follow permissions.unattended.
//   - a person at the terminal (no --no-input, no --detach): approvals are
//     asked here, answered by signal.
//   - no task at a terminal (an interactive chat): refused; a Temporal
//     session gets each message from a run: harness run --resume ID CONFIG MESSAGE.
//   - --detach: nobody follows: as --no-input.
func temporalOptions(f runFlags, hasTask, stdinTTY bool) (temporalMode, error) {
	resuming := f.resume != "" || f.cont
	if !hasTask && !resuming {
		if stdinTTY && !f.noInput {
			return temporalMode{}, exitf(exitUsage, "a Temporal session gets its task when it starts: give it as an argument (harness run --engine temporal CONFIG TASK); "+
				"a next message continues it: harness run --engine temporal --resume ID CONFIG MESSAGE")
		}
		return temporalMode{}, exitf(exitUsage, "no task: give it as an argument or on standard input")
	}
	return temporalMode{ask: stdinTTY && !f.noInput && !f.detach && !f.yes}, nil
}

// leaseOwner is the lease owner of the sessions of a task queue: every
// worker of the queue holds them as the same owner, so a restarted or
// another worker takes a session over without waiting for a lease to go
// stale.
func leaseOwner(queue string) string { return "temporal:" + queue }

func dialTemporal(address string) (client.Client, error) {
	cl, err := client.Dial(client.Options{HostPort: address, Logger: tlog.NewStructuredLogger(slog.New(slog.DiscardHandler))})
	if err != nil {
		return nil, exitf(exitFailed, "connect to the Temporal server at %s: %v (is it running? harness worker and run --engine temporal need one)", address, err)
	}
	return cl, nil
}

// runTemporal starts the session here (its first events, the task) or
// reopens it (--resume, --continue), hands its loop to a workflow on the
// task queue and shows its events as a local run would, from the session
// store, until it ends.
func (c *cli) runTemporal(ctx context.Context, cfg *config.Config, f runFlags, e engineChoice, task string, view *renderer, storePath string, asker *ttyAsker) error {
	mode, err := temporalOptions(f, strings.TrimSpace(task) != "", asker != nil)
	if err != nil {
		return err
	}
	opts := runner.Options{Config: cfg, Agent: f.agent, StorePath: storePath, StateDir: c.locator.StateFolder(), Builtins: builtinCatalog(), Secrets: c.secrets,
		Logger: c.logger, LeaseOwner: leaseOwner(e.queue), Yes: f.yes, AcceptConfigChange: f.acceptConfig,
		Engine: &event.Engine{Name: engineTemporal, Address: e.address, TaskQueue: e.queue, Ask: mode.ask, Yes: f.yes}}
	r, err := runner.Open(ctx, opts)
	if err != nil {
		return c.openError(cfg, err)
	}
	cl, err := dialTemporal(e.address)
	if err != nil {
		_ = r.Close()
		return err
	}
	defer cl.Close()
	var after int64 // the events shown are those after it
	if f.resume != "" || f.cont {
		if after, err = c.resumeTemporal(ctx, r, cfg, cl, f, task, view); err != nil {
			_ = r.Close()
			return err
		}
	} else if err := r.Start(ctx, task); err != nil {
		_ = r.End(ctx, agent.StatusError)
		_ = r.Close()
		return exitf(exitFailed, "%v", err)
	}
	in, err := workflowInput(ctx, r, cfg)
	if err != nil {
		_ = r.End(ctx, agent.StatusError)
		_ = r.Close()
		return exitf(exitFailed, "%v", err)
	}
	id := r.SessionID()
	// The run's plugins and lease go: the workers of the queue hold the
	// session from now on.
	_ = r.Close()
	if _, err := cl.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: e.queue}, engine.WorkflowName, in); err != nil {
		return exitf(exitFailed, "start session %s on Temporal at %s: %v", id, e.address, err)
	}
	if f.detach {
		fmt.Fprintf(c.stdout, "session %s runs on task queue %s; follow it: harness sessions attach %s\n", id, e.queue, id)
		return nil
	}
	var ask func(context.Context, session.Event) error
	if mode.ask {
		ask = c.askBySignal(storePath, cl, asker)
	}
	return c.followAsking(ctx, storePath, id, view, after, ask)
}

// resumeTemporal reopens the session --resume or --continue names, for a
// new workflow: refused while its workflow still runs. It returns the seq
// of its last event before this run.
func (c *cli) resumeTemporal(ctx context.Context, r *runner.Runner, cfg *config.Config, cl client.Client, f runFlags, task string, view *renderer) (int64, error) {
	id := f.resume
	if f.cont {
		var err error
		if id, err = c.latestSession(ctx, r, cfg); err != nil {
			return 0, err
		}
	}
	info, err := sessionByID(ctx, r.Store(), id)
	if err != nil {
		return 0, err
	}
	if d, err := cl.DescribeWorkflowExecution(ctx, info.ID, ""); err == nil &&
		d.WorkflowExecutionInfo.GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		running := info.Status == session.StatusRunning || info.Status == session.StatusAbandoned
		if !running {
			// Its session.ended is recorded: the workflow is returning.
			wctx, cancel := context.WithTimeout(ctx, time.Minute)
			running = cl.GetWorkflow(wctx, info.ID, "").Get(wctx, nil) != nil && wctx.Err() != nil
			cancel()
		}
		if running {
			return 0, exitf(exitUsage, "session %s still runs on Temporal (task queue %s): follow it with harness sessions attach %s, or resume it once it ended",
				info.ID, d.WorkflowExecutionInfo.GetTaskQueue(), info.ID)
		}
	}
	before, err := r.Store().Events(ctx, info.ID, 0)
	if err != nil {
		return 0, err
	}
	if err := r.Resume(ctx, info.ID); err != nil {
		var changed *runner.ConfigChangedError
		if errors.As(err, &changed) {
			return 0, exitf(exitUsage, "%v", err)
		}
		_ = r.End(ctx, agent.StatusError)
		return 0, exitf(exitFailed, "resume: %v", err)
	}
	for _, ev := range before {
		view.absorb(ev)
	}
	view.banner(r.SessionID(), r.Totals())
	if strings.TrimSpace(task) != "" {
		if err := r.Say(ctx, task); err != nil {
			_ = r.End(ctx, agent.StatusError)
			return 0, exitf(exitFailed, "%v", err)
		}
	} else if r.NeedsInput() {
		_ = r.End(ctx, agent.StatusCompleted)
		return 0, exitf(exitUsage, "session %s has nothing left to do: give a message to continue it", r.SessionID())
	}
	if len(before) == 0 {
		return 0, nil
	}
	return before[len(before)-1].Seq, nil
}

// workflowInput is the workflow's Input from a started or resumed run.
func workflowInput(ctx context.Context, r *runner.Runner, cfg *config.Config) (engine.Input, error) {
	lc := r.LoopConfig()
	in := engine.Input{Session: r.SessionID(), Agent: lc.Agent, MaxTurns: lc.MaxTurns, MaxTokens: lc.MaxTokens, MaxUSD: lc.MaxUSD,
		Messages: r.Messages(), ApprovalTimeout: r.Agent().Permissions.ApprovalTimeout}
	for _, b := range lc.Bindings {
		in.Models = append(in.Models, b.Name)
	}
	for _, d := range r.ToolDefinitions() {
		if lc.ReadOnly != nil && lc.ReadOnly(d.Name) {
			in.ReadOnly = append(in.ReadOnly, d.Name)
		}
	}
	if comp := lc.Compactor; comp != nil {
		in.Compaction = &engine.Compaction{ContextWindow: comp.ContextWindow, Threshold: comp.Threshold, KeepRecent: comp.KeepRecent,
			Timeout: comp.Timeout, MaxIneffective: comp.MaxIneffective}
		for _, b := range comp.Bindings {
			in.Compaction.Summarizer = append(in.Compaction.Summarizer, b.Name)
		}
	}
	if b := cfg.Engine; b != nil {
		in.Timeouts.Heartbeat = b.Heartbeat
	}
	if t := r.Totals(); t.Turns > 0 || t.Tokens > 0 || t.Pending > 0 { // resumed
		in.Restore = &engine.Restore{Turns: t.Turns, Tokens: t.Tokens, CostUSD: t.CostUSD}
		pending, err := r.Store().Actions(ctx, r.SessionID(), session.ActionStatusPending)
		if err != nil {
			return in, err
		}
		for _, a := range pending {
			in.Restore.Pending = append(in.Restore.Pending, engine.Pending{ID: a.ID, Since: a.CreatedAt})
		}
	}
	return in, nil
}

// follow shows the events of session id after seq as they are recorded,
// until session.ended; its exit status is the session's.
func (c *cli) follow(ctx context.Context, storePath, id string, view *renderer, after int64) error {
	return c.followAsking(ctx, storePath, id, view, after, nil)
}

// askBySignal asks the person at the terminal about each action the
// workers left pending for them (action.decided deferred) and signals the
// answer to the session's workflow.
func (c *cli) askBySignal(storePath string, cl client.Client, asker *ttyAsker) func(context.Context, session.Event) error {
	return func(ctx context.Context, ev session.Event) error {
		d, err := event.As[event.ActionDecided](ev)
		if err != nil || d.Decision != approval.Deferred {
			return err
		}
		store, err := session.Open(storePath)
		if err != nil {
			return err
		}
		a, err := store.Action(ctx, d.ActionID)
		var info session.SessionInfo
		if err == nil {
			info, err = store.Session(ctx, a.Session)
		}
		_ = store.Close()
		if err != nil || a.Status != session.ActionStatusPending {
			return err
		}
		// The same question as a local run: every simple command in full,
		// a write's diff against the file now.
		answer, err := asker.Ask(ctx, approval.Question(info.Workspace, a))
		if err != nil {
			if ctx.Err() != nil {
				return nil // stopped following: the action stays pending
			}
			return err
		}
		dec := engine.Decision{ActionID: a.ID, Approve: answer.Choice == approval.ChoiceYes, Reason: answer.Reason}
		if err := cl.SignalWorkflow(ctx, a.Session, "", engine.SignalDecision, dec); err != nil {
			return exitf(exitFailed, "signal session %s: %v (decide it with harness actions approve|deny %s)", a.Session, err, a.ID)
		}
		return nil
	}
}

// followAsking is follow with ask (when not nil) given every event once
// shown.
func (c *cli) followAsking(ctx context.Context, storePath, id string, view *renderer, after int64, ask func(context.Context, session.Event) error) error {
	store, err := session.Open(storePath)
	if err != nil {
		return err
	}
	defer store.Close()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		evs, err := store.Events(ctx, id, after)
		if err != nil && ctx.Err() == nil {
			return exitf(exitFailed, "follow session %s: %v", id, err)
		}
		for _, ev := range evs {
			view.event(ev)
			after = ev.Seq
			if ask != nil && ev.Type == event.TypeActionDecided {
				if err := ask(ctx, ev); err != nil {
					return err
				}
			}
			if ev.Type == event.TypeSessionEnded {
				d, _ := event.As[event.SessionEnded](ev)
				out := agent.Outcome{Status: d.Status}
				view.closing(id, out, agent.Totals{Turns: d.Turns, Tokens: d.Tokens, CostUSD: d.CostUSD, Pending: d.PendingActions})
				return silentExit(statusExit(d.Status))
			}
		}
		select {
		case <-ctx.Done():
			fmt.Fprintf(c.stderr, "harness: stopped following session %s; it goes on on its workers: harness sessions attach %s\n", id, id)
			return silentExit(interruptedExit(ctx))
		case <-tick.C:
		}
	}
}

func (c *cli) sessionsAttachCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "attach ID",
		Short: "Follow a session that runs on Temporal workers, from its first event, until it ends",
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, interrupt, stop := interruptContext(false)
			defer stop()
			storePath, err := c.storePath()
			if err != nil {
				return err
			}
			s, err := session.Open(storePath)
			if err != nil {
				return err
			}
			info, err := sessionByID(ctx, s, args[0])
			_ = s.Close()
			if err != nil {
				return err
			}
			stdout := watchOutput(c.stdout, interrupt)
			human, humanFile := stdout, c.stdout
			if asJSON {
				human, humanFile = c.stderr, c.stderr
			}
			view := newRenderer(human, stdout, asJSON, c.displayFor(humanFile))
			return c.follow(ctx, storePath, info.ID, view, 0)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print events as JSON Lines on stdout; human text goes to stderr")
	return cmd
}

func (c *cli) workerCommand() *cobra.Command {
	var address, queue string
	cmd := &cobra.Command{
		Use:   "worker --temporal HOST:PORT --task-queue Q",
		Short: "Run the model requests and tool calls of the sessions started on a Temporal task queue",
		Long: "Polls task queue Q of the Temporal server for the sessions `harness run --engine temporal`\n" +
			"started there, and runs their model requests and tool calls with the plugins, sandbox and\n" +
			"approval pipeline of a local run, from the configuration file each session recorded. Every\n" +
			"worker of Q must reach that file, the session store and the session's workspace.",
		Args: usageArgs(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error {
			if address == "" || queue == "" {
				return exitf(exitUsage, "harness worker needs --temporal HOST:PORT and --task-queue Q")
			}
			return c.worker(address, queue)
		},
	}
	cmd.Flags().StringVar(&address, "temporal", "", "the Temporal server (HOST:PORT)")
	cmd.Flags().StringVar(&queue, "task-queue", "", "the task queue to serve")
	return cmd
}

func (c *cli) worker(address, queue string) error {
	ctx, _, stop := interruptContext(false)
	defer stop()
	storePath, err := c.storePath()
	if err != nil {
		return err
	}
	cl, err := dialTemporal(address)
	if err != nil {
		return err
	}
	defer cl.Close()
	ws := &workerSessions{c: c, storePath: storePath, queue: queue, open: map[string]*workerSession{}}
	defer ws.closeAll()
	// The workflows and the placing of sessions are on the shared queue;
	// the activities of the sessions placed here on a queue of this
	// worker's own, so a session's plugins start on one worker only.
	a := &engine.Activities{Sessions: ws, Queue: ownQueue(queue)}
	w := worker.New(cl, queue, worker.Options{})
	engine.Register(w, a)
	own := worker.New(cl, a.Queue, worker.Options{DisableWorkflowWorker: true})
	engine.RegisterActivities(own, a)
	for _, wk := range []worker.Worker{w, own} {
		if err := wk.Start(); err != nil {
			return exitf(exitFailed, "worker for task queue %s on %s: %v", queue, address, err)
		}
		defer wk.Stop()
	}
	fmt.Fprintf(c.stderr, "harness worker: serving task queue %s on %s\n", queue, address)
	<-ctx.Done()
	return nil
}

// ownQueue names the task queue of this worker process alone: the shared
// queue, the host, the process and a random part (a restarted worker is
// another one).
func ownQueue(queue string) string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s@%s-%d-%s", queue, host, os.Getpid(), rand.Text()[:8])
}

// workerSessions are the sessions a worker has run activities of, each
// with its plugins started once.
type workerSessions struct {
	c         *cli
	storePath string
	queue     string
	mu        sync.Mutex
	open      map[string]*workerSession
}

type workerSession struct {
	ready chan struct{} // closed once r, rt and err are set
	r     *runner.Runner
	rt    *engine.Runtime
	err   error
}

// Runtime returns session id's runtime, opening it at its first activity
// on this worker. Only the opening of one session waits for it: the
// activities of the others go on meanwhile.
func (ws *workerSessions) Runtime(ctx context.Context, id string) (*engine.Runtime, error) {
	ws.mu.Lock()
	s, ok := ws.open[id]
	if !ok {
		s = &workerSession{ready: make(chan struct{})}
		ws.open[id] = s
	}
	ws.mu.Unlock()
	if !ok {
		s.r, s.rt, s.err = ws.openSession(id)
		if s.err != nil {
			ws.mu.Lock()
			delete(ws.open, id) // the next activity tries again
			ws.mu.Unlock()
		}
		close(s.ready)
	}
	select {
	case <-s.ready:
		return s.rt, s.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (ws *workerSessions) openSession(id string) (*runner.Runner, *engine.Runtime, error) {
	// The session's plugins outlive one activity: they are started with a
	// context of their own and stopped when the session ends.
	ctx := context.Background()
	store, err := session.Open(ws.storePath)
	if err != nil {
		return nil, nil, err
	}
	info, err := store.Session(ctx, id)
	var events []session.Event
	if err == nil {
		events, err = store.Events(ctx, id, 0)
	}
	_ = store.Close()
	if err != nil {
		return nil, nil, err
	}
	if info.ConfigPath == "" {
		return nil, nil, fmt.Errorf("session %s recorded no configuration file", id)
	}
	cfg, err := ws.c.loadConfig(info.ConfigPath, false)
	if err != nil {
		return nil, nil, fmt.Errorf("configuration %s of session %s: %w", info.ConfigPath, id, err)
	}
	eng, err := sessionEngine(events)
	if err != nil {
		return nil, nil, fmt.Errorf("session %s: %w", id, err)
	}
	yes := eng != nil && eng.Yes
	if eng != nil && eng.Ask {
		// The run that started it asks its person at the terminal: what
		// policy would ask about waits for them, pending (never denied
		// for want of an answer).
		if ag := cfg.Agent(info.Agent); ag != nil {
			ag.Permissions.Unattended = config.UnattendedDefer
		}
	}
	r, err := runner.Open(ctx, runner.Options{Config: cfg, Agent: info.Agent, StorePath: ws.storePath, StateDir: ws.c.locator.StateFolder(),
		Builtins: builtinCatalog(), Secrets: ws.c.secrets, Logger: ws.c.logger, LeaseOwner: leaseOwner(ws.queue), Yes: yes})
	if err != nil {
		return nil, nil, err
	}
	ex, err := r.Executor(ctx, id)
	if err != nil {
		_ = r.Close()
		return nil, nil, err
	}
	if rebuilt, err := agent.Rebuild(events); err == nil {
		ex.CountPrior(rebuilt.Calls...) // the repeated-call guard counts from the session's start
	}
	lc := r.LoopConfig()
	rt := &engine.Runtime{Model: r.Client(), Bindings: lc.Bindings, Tools: ex, Recorder: r.Recorder(), Meter: r.Store(),
		Decide: func(ctx context.Context, d engine.Decision) (tools.ResultEvent, error) {
			switch {
			case !d.Approve && d.TimedOut > 0: // nobody decided in time
				out, err := approval.ApplyVerdict(ctx, r.Store(), ex, d.ActionID, approval.TimeoutVerdict(d.TimedOut))
				return out.ResultEvent(), err
			case !d.Approve && d.Reason != "": // a no with the person's reason, at the run's terminal
				out, err := approval.ApplyVerdict(ctx, r.Store(), ex, d.ActionID, approval.DenyBecause(d.Reason))
				return out.ResultEvent(), err
			}
			out, err := approval.Apply(ctx, r.Store(), ex, d.ActionID, d.Approve)
			return out.ResultEvent(), err
		},
		End: func(ctx context.Context, res engine.Result) error {
			var err error
			// A retry of the activity that ended it (its worker was lost
			// after the end was committed) ends it once.
			if info, ierr := r.Store().Session(ctx, id); ierr != nil || info.Status == session.StatusRunning {
				err = r.EndWith(ctx, res.Status, res.Totals)
			}
			ws.mu.Lock()
			delete(ws.open, id)
			ws.mu.Unlock()
			return errors.Join(err, r.Close())
		},
	}
	if comp := lc.Compactor; comp != nil && comp.Model != nil {
		rt.SummarizerModel, rt.Summarizer = comp.Model, comp.Bindings
	}
	return r, rt, nil
}

func (ws *workerSessions) closeAll() {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	for id, s := range ws.open {
		select {
		case <-s.ready:
			if s.r != nil {
				_ = s.r.Close()
			}
			delete(ws.open, id)
		default: // still opening: its activity was stopped with the worker
		}
	}
}

// Fail ends session id as an error when its workflow stopped on one (it
// implements engine.Failer): from the store alone, since opening the
// session's runtime may be what failed. A session already ended is left
// as it is.
func (ws *workerSessions) Fail(ctx context.Context, id, message string) error {
	ws.mu.Lock()
	s, ok := ws.open[id]
	delete(ws.open, id)
	ws.mu.Unlock()
	if ok {
		<-s.ready
		if s.r != nil {
			_ = s.r.Close()
		}
	}
	store, err := session.Open(ws.storePath)
	if err != nil {
		return err
	}
	defer store.Close()
	info, err := store.Session(ctx, id)
	if err != nil || !info.EndedAt.IsZero() {
		return err
	}
	msg := "the session's workflow stopped: " + message
	_, err = store.EndSessionWith(ctx, id, session.StatusError, info.Turns, []session.Entry{
		{Type: event.TypeError, Data: event.Error{Kind: sdk.KindInternal, Message: msg}},
		{Type: event.TypeSessionEnded, Data: event.SessionEnded{Status: session.StatusError, Turns: info.Turns, Tokens: info.Tokens, CostUSD: info.CostUSD}},
	})
	return err
}

// sessionEngine is where session id runs from its latest start or resume
// on (session.started, session.resumed); nil: the local engine.
func sessionEngine(evs []session.Event) (*event.Engine, error) {
	var eng *event.Engine
	for _, ev := range evs {
		switch ev.Type {
		case event.TypeSessionStarted:
			d, err := event.As[event.SessionStarted](ev)
			if err != nil {
				return nil, err
			}
			eng = d.Engine
		case event.TypeSessionResumed:
			d, err := event.As[event.SessionResumed](ev)
			if err != nil {
				return nil, err
			}
			eng = d.Engine
		}
	}
	return eng, nil
}

// temporalSession returns where session id runs when it runs on Temporal
// (its latest session.started or session.resumed says so), else ok is
// false.
func temporalSession(ctx context.Context, store *session.Store, id string) (address string, ok bool, err error) {
	evs, err := store.Events(ctx, id, 0)
	if err != nil {
		return "", false, err
	}
	eng, err := sessionEngine(evs)
	if err != nil || eng == nil {
		return "", false, err
	}
	return eng.Address, eng.Name == engineTemporal, nil
}

// signalDecision hands a person's decision on action id to the workflow of
// its session, which applies it on a worker.
func (c *cli) signalDecision(ctx context.Context, address string, a session.Action, approve bool) error {
	cl, err := dialTemporal(address)
	if err != nil {
		return err
	}
	defer cl.Close()
	d := engine.Decision{ActionID: a.ID, Approve: approve}
	if err := cl.SignalWorkflow(ctx, a.Session, "", engine.SignalDecision, d); err != nil {
		return exitf(exitFailed, "signal session %s on Temporal at %s: %v", a.Session, address, err)
	}
	what := "approved"
	if !approve {
		what = "denied"
	}
	fmt.Fprintf(c.stdout, "%s %s: %s (session %s runs on Temporal: its worker applies the decision; follow it: harness sessions attach %s)\n", what, a.ID, a.Summary, a.Session, a.Session)
	return nil
}
