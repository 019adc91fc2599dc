// cite's chat page: POST /v1/ask with Accept: text/event-stream, render the
// events as they come. The server renders citations; the page only turns
// "[n]" into superscript links to its reference list.
"use strict";
const $ = (id) => document.getElementById(id);
const history = [];

// The conversation is a server session: its history and its uploaded
// documents outlive a reload (the id is kept for this tab).
let sessionId = sessionStorage.getItem("cite-session") || "";

async function ensureSession() {
  if (sessionId) return sessionId;
  const r = await fetch("/v1/sessions", { method: "POST" });
  if (!r.ok) return "";
  sessionId = (await r.json()).id;
  sessionStorage.setItem("cite-session", sessionId);
  return sessionId;
}

async function restoreSession() {
  if (!sessionId) return;
  const r = await fetch(`/v1/sessions/${sessionId}`);
  if (!r.ok) { sessionId = ""; sessionStorage.removeItem("cite-session"); return; }
  const s = await r.json();
  for (const t of s.turns) {
    const turn = document.createElement("article");
    turn.className = "turn"; turn.dataset.done = "true";
    turn.innerHTML = `<p class="q"></p><p class="a"></p>`;
    turn.querySelector(".q").textContent = t.question;
    turn.querySelector(".a").textContent = t.answer;
    $("history").append(turn);
    history.push({ question: t.question, answer: t.answer });
  }
  for (const d of s.documents) listUpload({ name: d.title, outcome: "added" });
}

function listUpload(f) {
  const li = document.createElement("li");
  li.dataset.outcome = f.outcome;
  li.textContent = f.outcome === "added" || f.outcome === "updated" || f.outcome === "unchanged"
    ? `${f.name}: ready` : `${f.name}: ${f.outcome}${f.reason ? " (" + f.reason + ")" : ""}`;
  $("uploads").append(li);
}

$("upload").addEventListener("submit", async (e) => {
  e.preventDefault();
  const files = $("file").files;
  if (!files.length) return;
  $("upload-send").disabled = true;
  try {
    const id = await ensureSession();
    const body = new FormData();
    for (const f of files) body.append("file", f, f.name);
    const r = await fetch(`/v1/sessions/${id}/documents`, { method: "POST", body });
    const out = await r.json().catch(() => ({}));
    if (out.files) out.files.forEach(listUpload);
    else listUpload({ name: [...files].map((f) => f.name).join(", "), outcome: "failed", reason: out.error ? out.error.message : r.statusText });
    $("file").value = "";
  } finally { $("upload-send").disabled = false; }
});

$("new-session").addEventListener("click", () => {
  sessionId = ""; sessionStorage.removeItem("cite-session");
  $("history").textContent = ""; $("uploads").textContent = ""; history.length = 0;
  $("question").focus();
});

async function loadSources() {
  const r = await fetch("/v1/sources");
  if (!r.ok) return;
  const { sources } = await r.json();
  for (const s of sources) {
    const o = document.createElement("option");
    o.value = s.name; o.textContent = s.name;
    $("sources").append(o);
  }
}

// cite renders text; the page shows it with [n] as superscript links, but
// for code (fenced blocks, inline spans), where [n] is code ("$a[1]").
function renderText(el, text, refs, turnId) {
  el.textContent = "";
  const parts = text.split(/(\\`|```[\s\S]*?(?:```|$)|`[^`\n]+`|\[\d+\])/);
  for (const p of parts) {
    if (p === undefined) continue;
    const m = /^\[(\d+)\]$/.exec(p);
    if (m && refs.has(Number(m[1]))) {
      const sup = document.createElement("sup");
      const a = document.createElement("a");
      a.href = `#${turnId}-ref-${m[1]}`; a.textContent = `[${m[1]}]`;
      a.className = "cite"; a.setAttribute("aria-label", `reference ${m[1]}`);
      a.addEventListener("click", (e) => { e.preventDefault(); openPassage(refs.get(Number(m[1]))); });
      sup.append(a); el.append(sup);
    } else {
      el.append(document.createTextNode(p));
    }
  }
}

function openPassage(ref) {
  $("passage-title").textContent = `${ref.number}. ${ref.title}`;
  $("passage-link").href = ref.link || "#";
  const box = $("passage-text");
  box.textContent = "";
  const quote = ref.quote || "";
  const at = quote ? ref.passage.indexOf(quote) : -1;
  if (at >= 0) {
    box.append(ref.passage.slice(0, at));
    const mk = document.createElement("mark"); mk.textContent = quote; box.append(mk);
    box.append(ref.passage.slice(at + quote.length));
  } else {
    box.textContent = ref.passage;
  }
  $("passage").showModal();
}

async function ask(question) {
  const turnId = `t${history.length + 1}`;
  const turn = document.createElement("article");
  turn.className = "turn"; turn.id = turnId;
  turn.innerHTML = `<p class="q"></p><ul class="status" aria-label="Tool calls"></ul><p class="a"></p><ol class="refs" aria-label="References"></ol>`;
  turn.querySelector(".q").textContent = question;
  $("history").append(turn);
  const answerEl = turn.querySelector(".a"), statusEl = turn.querySelector(".status"), refsEl = turn.querySelector(".refs");
  const refs = new Map();
  let text = "";
  const sources = [...$("sources").selectedOptions].map((o) => o.value);
  const session_id = await ensureSession();
  const resp = await fetch("/v1/ask", {
    method: "POST",
    headers: { "Content-Type": "application/json", "Accept": "text/event-stream" },
    body: JSON.stringify(session_id ? { question, sources, session_id } : { question, sources }),
  });
  if (!resp.ok) {
    const e = await resp.json().catch(() => ({ error: { message: resp.statusText } }));
    answerEl.textContent = `Error: ${e.error.message}`;
    return;
  }
  const reader = resp.body.getReader();
  const dec = new TextDecoder();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += dec.decode(value, { stream: true });
    let i;
    while ((i = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, i); buf = buf.slice(i + 2);
      let ev = "", data = "";
      for (const line of block.split("\n")) {
        if (line.startsWith("event: ")) ev = line.slice(7);
        if (line.startsWith("data: ")) data += line.slice(6);
      }
      if (!data) continue;
      const msg = JSON.parse(data);
      if (ev === "text") { text += msg.text; renderText(answerEl, text, refs, turnId); }
      else if (ev === "references") {
        for (const r of msg.references) {
          refs.set(r.number, r);
          const li = document.createElement("li");
          li.id = `${turnId}-ref-${r.number}`; li.value = r.number;
          const a = document.createElement("a");
          a.href = r.link || "#"; a.textContent = r.title;
          a.addEventListener("click", (e) => { e.preventDefault(); openPassage(r); });
          li.append(a); refsEl.append(li);
        }
        renderText(answerEl, text, refs, turnId);
      } else if (ev.startsWith("tool_")) {
        const li = document.createElement("li");
        li.textContent = `${msg.tool.name}: ${ev === "tool_started" ? "running…" : msg.tool.status}`;
        li.dataset.status = msg.tool.status;
        statusEl.append(li);
      } else if (ev === "error") {
        answerEl.textContent += `\nError: ${msg.error.message}`;
      } else if (ev === "answer") {
        turn.dataset.done = "true";
      }
    }
  }
  history.push({ question, answer: text });
}

$("ask").addEventListener("submit", async (e) => {
  e.preventDefault();
  const q = $("question").value.trim();
  if (!q) return;
  $("send").disabled = true;
  try { await ask(q); } finally { $("send").disabled = false; $("question").value = ""; $("question").focus(); }
});
$("question").addEventListener("keydown", (e) => {
  if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); $("ask").requestSubmit(); }
});
loadSources();
restoreSession();
