// Package view renders a recorded session as one self-contained HTML page:
// the timeline of `harness sessions view` (task and user messages, turns
// with their text and collapsed reasoning, tool calls as cards with their
// arguments and person-facing view, approvals, errors, compactions, the
// end), a chart of tokens per request and cumulative cost, a filter by
// event type and deep links to an event (#seq-42).
//
// A session's content is untrusted: it holds tool output and model text.
// The page therefore carries no session string in its markup. The events
// travel as JSON in a <script type="application/json"> element with every
// '<' escaped, and the page's one inline script builds the DOM from them
// with textContent only. A Content-Security-Policy meta tag allows that
// script and that style sheet by their sha256 and nothing else (no network,
// no other script, no inline handler), so even a bug in the script could
// not run a tool result's markup.
//
// The package reads nothing: callers pass the session and its events
// (core/session). It knows nothing of files, browsers or the command line.
package view
