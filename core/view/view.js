(function () {
  "use strict";
  // Everything shown comes from the session's events, which are untrusted:
  // text reaches the page through textContent only, never as markup.
  var t0 = performance.now();
  var data = JSON.parse(document.getElementById("session-data").textContent);
  var S = data.session || {};
  var events = data.events || [];
  document.title = "harness · " + (S.agent || "session") + " · " + S.id;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null && text !== "") e.textContent = String(text);
    return e;
  }
  function add(parent, tag, cls, text) { return parent.appendChild(el(tag, cls, text)); }
  function num(n) { return (Number(n) || 0).toLocaleString("en-US"); }
  function usd(n) { n = Number(n) || 0; return "$" + (n !== 0 && n < 0.01 ? n.toFixed(6) : n.toFixed(4)); }
  function str(v) { return v === undefined || v === null ? "" : typeof v === "string" ? v : JSON.stringify(v, null, 2); }
  function clock(t) {
    var d = new Date(t);
    if (isNaN(d)) return "";
    function p(n, w) { n = String(n); while (n.length < w) n = "0" + n; return n; }
    return p(d.getHours(), 2) + ":" + p(d.getMinutes(), 2) + ":" + p(d.getSeconds(), 2) + "." + p(d.getMilliseconds(), 3);
  }
  function typeClass(type) { return "t-" + String(type).replace(/[^a-z0-9_-]/gi, "-"); }
  function details(parent, summary, body, open, cls) {
    var d = add(parent, "details", cls);
    add(d, "summary", "", summary);
    if (open) d.open = true;
    add(d, "pre", "", body);
    return d;
  }
  function badge(parent, text, kind) { return add(parent, "span", "badge " + (kind || ""), text); }

  // ---- header ----------------------------------------------------------
  var root = document.body;
  var head = add(root, "header", "top");
  add(head, "h1", "", "Session " + (S.id || ""));
  var meta = add(head, "p", "meta");
  badge(meta, S.status || "unknown", "st-" + String(S.status || "").replace(/[^a-z_]/g, ""));
  add(meta, "span", "", " agent " + (S.agent || "?") + " · model " + (S.model || "?") + " · " + num(S.turns) + " turns · " +
    num(S.tokens) + " tokens · " + usd(S.cost_usd));
  var when = add(head, "p", "meta dim");
  var started = new Date(S.started_at);
  when.textContent = "started " + (isNaN(started) ? "?" : started.toLocaleString()) +
    (S.ended_at ? " · took " + ((new Date(S.ended_at) - started) / 1000).toFixed(1) + " s" : " · not ended");
  add(head, "p", "meta dim", "workspace " + (S.workspace || "?") + " · config " + (S.config || "?"));

  // ---- timeline --------------------------------------------------------
  var timeline = el("main", "timeline");
  timeline.id = "timeline";
  var byType = {}; // type -> rendered elements, for the filter
  var order = []; // types in order of first appearance
  var seqs = []; // rendered seqs, ascending, for deep links to folded events
  var cards = {}; // call_id -> card body
  var usage = [];
  var chunks = 0;
  var cur = timeline; // where turn-level events go
  var turnReq = 0;

  function item(parent, ev, title, cls) {
    var it = el("section", "ev " + typeClass(ev.type) + (cls ? " " + cls : ""));
    it.id = "seq-" + ev.seq;
    var h = add(it, "div", "h");
    add(h, "span", "title", title);
    var right = add(h, "span", "at");
    add(right, "span", "dim", clock(ev.time) + " ");
    var a = add(right, "a", "seq", "#" + ev.seq);
    a.href = "#seq-" + ev.seq;
    parent.appendChild(it);
    (byType[ev.type] || (order.push(ev.type), byType[ev.type] = [])).push(it);
    seqs.push(ev.seq);
    return it;
  }
  function text(parent, t, cls) { return add(parent, "div", "text" + (cls ? " " + cls : ""), t); }

  function cardFor(ev) {
    var d = ev.data || {};
    var c = cards[d.call_id];
    if (c) return c;
    return cur; // a result whose call is not in this session's events
  }

  var render = {
    "session.started": function (ev, d) {
      var it = item(timeline, ev, "Task", "top-level");
      text(it, d.task);
      add(it, "div", "dim small", "agent " + str(d.agent) + " · model " + str(d.model));
      cur = timeline;
    },
    "session.resumed": function (ev, d) {
      item(timeline, ev, "Resumed · " + num(d.turns) + " turns, " + num(d.messages) + " messages", "top-level");
      cur = timeline;
    },
    "user.message": function (ev, d) {
      var it = item(timeline, ev, "User", "top-level");
      text(it, d.text);
      cur = timeline;
    },
    "turn.interrupted": function (ev, d) {
      var it = item(timeline, ev, "Turn interrupted by the user" + (d.request ? " while the model answered" : " while tools ran"), "top-level warn");
      if (d.partial) text(it, d.partial);
      cur = timeline;
    },
    "llm.request": function (ev, d) {
      var sec = el("div", "turn");
      timeline.appendChild(sec);
      turnReq++;
      var it = item(sec, ev, "Turn " + str(d.turn) + " · request " + turnReq + " · " + str(d.model), "turn-head");
      add(it, "div", "dim small", num(d.messages) + " messages · ~" + num(d.prompt_tokens_est) + " tokens · " +
        num(d.shared_prefix_bytes) + " of " + num(d.prompt_bytes) + " bytes shared with the previous request");
      cur = sec;
    },
    "assistant.chunk": function () { chunks++; },
    "llm.retry": function (ev, d) {
      var it = item(cur, ev, "Retry after attempt " + str(d.attempt), "warn");
      badge(it.firstChild.firstChild, str(d.kind), "err");
      add(it, "div", "dim small", "waited " + num(d.delay_ms) + " ms; the chunks of the failed attempt are void");
    },
    "assistant.message": function (ev, d) {
      var it = item(cur, ev, "Assistant · " + str(d.model));
      if (d.reasoning) details(it, "reasoning (" + num(d.reasoning.length) + " characters)", d.reasoning, false, "reasoning");
      if (d.content) text(it, d.content);
      else if (!d.reasoning) add(it, "div", "dim small", "(no text)");
      var calls = (d.tool_calls || []).length;
      add(it, "div", "dim small", "finish " + str(d.finish_reason) + (calls ? " · " + calls + " tool call" + (calls > 1 ? "s" : "") : ""));
    },
    "llm.usage": function (ev, d) {
      usage.push(ev);
      var it = item(cur, ev, "Usage", "usage");
      add(it, "div", "small", num(d.prompt_tokens) + " in (" + num(d.cache_hit_tokens) + " cache hit, " + num(d.cache_miss_tokens) +
        " miss) · " + num(d.completion_tokens) + " out" + (d.reasoning_tokens ? " (" + num(d.reasoning_tokens) + " reasoning)" : "") +
        " · " + usd(d.cost_usd));
    },
    "tool.call": function (ev, d) {
      var it = item(cur, ev, "", "card");
      var title = it.firstChild.firstChild;
      add(title, "span", "tool", str(d.tool));
      add(title, "span", "dim", " " + str(d.call_id));
      var args = str(d.arguments);
      var cmd = d.arguments && typeof d.arguments.command === "string" ? d.arguments.command : "";
      if (cmd) add(it, "pre", "cmd", "$ " + cmd);
      details(it, "arguments", args, !cmd && args.length <= 600, "args");
      if (d.call_id !== undefined) cards[d.call_id] = it;
    },
    "tool.progress": function (ev, d) {
      var it = item(cardFor(ev), ev, "output · " + str(d.stream), "progress");
      add(it, "pre", d.stream === "stderr" ? "stderr" : "", d.text);
    },
    "action.proposed": function (ev, d) {
      var it = item(cardFor(ev), ev, "Approval needed · " + str(d.kind), "action");
      add(it, "div", "small", str(d.summary));
      add(it, "div", "dim small", "action " + str(d.action_id));
    },
    "action.decided": function (ev, d) {
      var it = item(cardFor(ev), ev, "", "action");
      var title = it.firstChild.firstChild;
      badge(title, str(d.decision), d.decision === "approved" ? "ok" : d.decision === "denied" ? "err" : "warn");
      add(title, "span", "", " by " + str(d.by) + (d.rule ? " · rule " + str(d.rule) : ""));
    },
    "tool.result": function (ev, d) {
      var it = item(cardFor(ev), ev, "", "result");
      var title = it.firstChild.firstChild;
      if (d.ok) badge(title, "ok", "ok");
      else badge(title, d.error && d.error.kind ? d.error.kind : "failed", "err");
      add(title, "span", "dim", " " + str(d.tool) + " · " + num(d.duration_ms) + " ms" + (d.action_id ? " · action " + d.action_id : ""));
      if (d.error && d.error.message) add(it, "div", "errmsg", d.error.message);
      presentation(it, d.presentation, d.content);
      details(it, "what the model was given", str(d.content), false, "content");
    },
    "artifact.note": function (ev, d) {
      var it = item(cur, ev, "Note · " + str(d.title), "artifact");
      text(it, d.body);
    },
    "artifact.decision": function (ev, d) {
      var it = item(cur, ev, "Decision · " + str(d.title), "artifact");
      var ul = add(it, "ul", "");
      (d.options || []).forEach(function (o) { add(ul, "li", o === d.chosen ? "chosen" : "", str(o)); });
      if (d.rationale) text(it, d.rationale);
    },
    "artifact.checklist": function (ev, d) {
      var it = item(cur, ev, "Checklist · " + str(d.title), "artifact");
      var ul = add(it, "ul", "check");
      (d.items || []).forEach(function (x) { add(ul, "li", x && x.done ? "done" : "", (x && x.done ? "☑ " : "☐ ") + str(x && x.text)); });
    },
    "context.compacted": function (ev, d) {
      var it = item(timeline, ev, "Context compacted", "top-level warn");
      add(it, "div", "small", num(d.tokens_before) + " → " + num(d.tokens_after) + " tokens · " + num(d.dropped_messages) +
        " messages dropped · summarizer " + str(d.summarizer));
      cur = timeline;
    },
    "toolloop.limit_reached": function (ev, d) {
      var it = item(timeline, ev, "Limit reached · " + str(d.limit), "top-level warn");
      add(it, "div", "small", num(d.turns) + " turns · " + num(d.tokens) + " tokens · " + usd(d.cost_usd));
      cur = timeline;
    },
    "agent.response": function (ev, d) {
      var it = item(timeline, ev, "Answer", "top-level answer");
      text(it, d.text);
      cur = timeline;
    },
    "error": function (ev, d) {
      var it = item(timeline, ev, "", "top-level error");
      var title = it.firstChild.firstChild;
      add(title, "span", "", "Error ");
      badge(title, str(d.kind), "err");
      add(it, "div", "errmsg", d.message);
      cur = timeline;
    },
    "session.ended": function (ev, d) {
      var it = item(timeline, ev, "", "top-level end");
      var title = it.firstChild.firstChild;
      add(title, "span", "", "Ended ");
      badge(title, str(d.status), "st-" + String(d.status || "").replace(/[^a-z_]/g, ""));
      add(it, "div", "small", num(d.turns) + " turns · " + num(d.tokens) + " tokens · " + usd(d.cost_usd) +
        (Number(d.pending_actions) > 0 ? " · " + num(d.pending_actions) + " pending approval (harness actions list)" : ""));
      cur = timeline;
    }
  };

  function presentation(parent, p, content) {
    if (!p || typeof p !== "object") return;
    var v = add(parent, "div", "view v-" + String(p.kind).replace(/[^a-z]/g, ""));
    switch (p.kind) {
      case "terminal":
        add(v, "div", "small", "exit code " + str(p.exit_code));
        add(v, "pre", "term", "$ " + str(p.command) + "\n" + str(p.output));
        break;
      case "diff":
        add(v, "div", "small path", str(p.path));
        var pre = add(v, "pre", "diff");
        String(p.unified || "").split("\n").forEach(function (line) {
          var c = line.indexOf("@@") === 0 ? "hunk" : line.indexOf("+++") === 0 || line.indexOf("---") === 0 ? "file" :
            line[0] === "+" ? "add" : line[0] === "-" ? "del" : "";
          add(pre, "span", c, line || " ");
        });
        break;
      case "search":
        add(v, "div", "small", "“" + str(p.query) + "” · " + num(p.total) + " matching lines");
        var tbl = add(v, "table", "hits");
        (p.hits || []).forEach(function (h) {
          var tr = add(tbl, "tr", "");
          add(tr, "td", "path", str(h.path) + ":" + str(h.line));
          add(tr, "td", "", str(h.text));
        });
        break;
      case "file":
        add(v, "div", "small path", str(p.path) + " · lines " + str(p.start_line) + "–" + str(p.end_line));
        add(v, "pre", "file", str(content));
        break;
      case "text":
        add(v, "pre", "", str(p.text));
        break;
      default:
        add(v, "pre", "", str(p));
    }
  }

  for (var i = 0; i < events.length; i++) {
    var ev = events[i];
    var f = render[ev.type];
    var d = ev.data && typeof ev.data === "object" ? ev.data : {};
    if (f) f(ev, d);
    else {
      var it = item(cur, ev, String(ev.type));
      add(it, "pre", "", str(ev.data));
    }
  }

  // ---- chart: tokens per request and cumulative cost ---------------------
  var chart = add(root, "figure", "chart");
  chart.id = "chart";
  add(chart, "figcaption", "", "Tokens per model request (" + usage.length + ") and cumulative cost");
  var NS = "http://www.w3.org/2000/svg";
  function svg(parent, tag, attrs) {
    var e = document.createElementNS(NS, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    parent.appendChild(e);
    return e;
  }
  var W = 1000, H = 160, maxTok = 1, cost = 0, pts = [];
  usage.forEach(function (u) {
    var d = u.data || {};
    maxTok = Math.max(maxTok, (Number(d.cache_hit_tokens) || 0) + (Number(d.cache_miss_tokens) || 0) + (Number(d.completion_tokens) || 0));
  });
  var totalCost = usage.reduce(function (s, u) { return s + (Number((u.data || {}).cost_usd) || 0); }, 0) || 1;
  var plot = svg(chart, "svg", { viewBox: "0 0 " + W + " " + H, preserveAspectRatio: "none", "class": "plot", role: "img" });
  var step = W / Math.max(usage.length, 1);
  usage.forEach(function (u, i) {
    var d = u.data || {};
    var g = svg(plot, "g", { "class": "pt", "data-seq": u.seq });
    var y = H, x = i * step + step * 0.1, w = Math.max(step * 0.8, 0.5);
    [["hit", d.cache_hit_tokens], ["miss", d.cache_miss_tokens], ["out", d.completion_tokens]].forEach(function (part) {
      var h = (Number(part[1]) || 0) / maxTok * (H - 4);
      y -= h;
      svg(g, "rect", { "class": part[0], x: x, y: y, width: w, height: h });
    });
    cost += Number(d.cost_usd) || 0;
    pts.push((i * step + step / 2) + "," + (H - cost / totalCost * (H - 4)));
    svg(g, "title", {}).textContent = "#" + u.seq + " turn " + str(d.turn) + ": " + num(d.cache_hit_tokens) + " cache hit, " +
      num(d.cache_miss_tokens) + " miss, " + num(d.completion_tokens) + " out · cumulative " + usd(cost);
    g.addEventListener("click", function () { location.hash = "seq-" + u.seq; });
  });
  svg(plot, "polyline", { "class": "cost", points: pts.join(" ") });
  var legend = add(chart, "div", "legend small");
  add(legend, "span", "k hit", "cache hit");
  add(legend, "span", "k miss", "cache miss");
  add(legend, "span", "k out", "output");
  add(legend, "span", "k cost", "cumulative cost (" + usd(cost) + ")");
  add(legend, "span", "dim", " · bar height up to " + num(maxTok) + " tokens");

  // ---- filter -----------------------------------------------------------
  var filter = add(root, "nav", "filter");
  filter.id = "filter";
  add(filter, "span", "dim", "show ");
  order.forEach(function (type) {
    var label = add(filter, "label", "");
    var box = add(label, "input", "");
    box.type = "checkbox";
    box.checked = true;
    box.value = type;
    add(label, "span", "", type + " (" + byType[type].length + ")");
    box.addEventListener("change", function () {
      var hide = !box.checked, list = byType[type];
      for (var j = 0; j < list.length; j++) list[j].hidden = hide;
    });
  });
  if (chunks) add(filter, "span", "dim", " · " + num(chunks) + " assistant.chunk events are folded into their messages");

  root.appendChild(timeline);

  // ---- deep links: #seq-N, or the nearest shown event before N -----------
  var lastTarget = null;
  function go() {
    var m = /^#seq-(\d+)$/.exec(location.hash);
    if (!m || !seqs.length) return;
    var n = Number(m[1]), lo = 0, hi = seqs.length - 1;
    if (n < seqs[0]) n = seqs[0];
    while (lo < hi) { var mid = (lo + hi + 1) >> 1; if (seqs[mid] <= n) lo = mid; else hi = mid - 1; }
    var t = document.getElementById("seq-" + seqs[lo]);
    if (!t) return;
    for (var p = t; p && p !== timeline; p = p.parentNode) {
      if (p.hidden) p.hidden = false;
      if (p.tagName === "DETAILS") p.open = true;
    }
    if (lastTarget) lastTarget.classList.remove("target");
    t.classList.add("target");
    lastTarget = t;
    t.scrollIntoView({ block: "center" });
  }
  window.addEventListener("hashchange", go);
  go();

  document.documentElement.setAttribute("data-render-ms", (performance.now() - t0).toFixed(1));
  document.documentElement.setAttribute("data-ready", "1");
})();
