// cite's chat page: POST /v1/ask with Accept: text/event-stream, render the
// events as they come. The server renders citations; the page only turns
// "[n]" into superscript links to its reference list.
"use strict";
const $ = (id) => document.getElementById(id);
const history = [];

// api is fetch for the API. The login cookie goes along by itself; a 401
// means it is gone (the server restarted with another token): the page
// reloads, and the server shows its login form.
async function api(url, opts) {
  const r = await fetch(url, opts);
  if (r.status === 401) { location.assign("/"); throw new Error("not logged in"); }
  return r;
}

// The conversation is a server session: its history and its uploaded
// documents outlive a reload (the id is kept for this tab).
let sessionId = sessionStorage.getItem("cite-session") || "";

async function ensureSession() {
  if (sessionId) return sessionId;
  const r = await api("/v1/sessions", { method: "POST" });
  if (!r.ok) return "";
  sessionId = (await r.json()).id;
  sessionStorage.setItem("cite-session", sessionId);
  return sessionId;
}

async function restoreSession() {
  if (!sessionId) return;
  const r = await api(`/v1/sessions/${sessionId}`);
  if (!r.ok) { sessionId = ""; sessionStorage.removeItem("cite-session"); return; }
  const s = await r.json();
  // Each turn as it was answered: live citations and its reference list.
  for (const t of s.turns) {
    const turn = newTurn(t.question);
    turn.refs.add(t.references || []);
    turn.text(t.answer);
    turn.warn(stopNote({ text: t.answer, stop_reason: t.stop_reason }));
    turn.el.dataset.done = "true";
    history.push({ question: t.question, answer: t.answer });
  }
  for (const d of s.documents) listUpload({ name: d.title, outcome: "added" });
}

function listUpload(f) {
  const li = document.createElement("li");
  li.dataset.outcome = f.outcome;
  li.textContent = f.outcome === "added" || f.outcome === "updated" || f.outcome === "unchanged"
    ? `${f.name}: ready` : `${f.name}: ${f.outcome}${f.reason ? " (" + f.reason + ")" : ""}`;
  if (f.notes && f.notes.length) li.textContent += ` (${f.notes.join("; ")})`;
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
    const r = await api(`/v1/sessions/${id}/documents`, { method: "POST", body });
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
  const r = await api("/v1/sources");
  if (!r.ok) return;
  const { sources } = await r.json();
  for (const s of sources) {
    const o = document.createElement("option");
    o.value = s.name; o.textContent = s.name;
    $("sources").append(o);
  }
}

// cite renders text; the page shows it with [n] as superscript links, but
// for code (fenced blocks, inline spans), where [n] is code ("$a[1]"), and
// for what cite leaves alone as the model wrote it and never renders as a
// citation: an index after a letter, a digit, "_" after one, or "]"
// ("arr[2]", "[text][1]"), and link text ("[1](./x)").
const citationRun = /^(?:\[\d+\])+$/;
function renderText(el, text, refs, turnId) {
  el.textContent = "";
  const parts = text.split(/(\\`|```[\s\S]*?(?:```|$)|`[^`\n]+`|(?<![A-Za-z0-9\]]|[A-Za-z0-9]_)(?:\[\d+\])+(?!\())/);
  for (const p of parts) {
    if (p === undefined) continue;
    if (!citationRun.test(p)) {
      el.append(document.createTextNode(p));
      continue;
    }
    for (const [g, n] of p.matchAll(/\[(\d+)\]/g)) {
      if (!refs.has(Number(n))) {
        el.append(document.createTextNode(g));
        continue;
      }
      const sup = document.createElement("sup");
      const a = document.createElement("a");
      a.href = `#${turnId}-ref-${n}`; a.textContent = `[${n}]`;
      a.className = "cite"; a.setAttribute("aria-label", `reference ${n}`);
      a.addEventListener("click", (e) => { e.preventDefault(); openPassage(refs.get(Number(n))); });
      sup.append(a); el.append(sup);
    }
  }
}

// The passage view shows the passage given to the model, with the cited
// sentence highlighted; "Open the source" shows the whole document from
// the server, scrolled to the cited place.
let openRef = null;

// sourceURL is where ref's document is served: its text (extracted text for
// PDFs, office documents and pictures), or with original the file itself, a
// PDF opened at the cited page, a picture as the picture.
function sourceURL(ref, original) {
  if (!ref.document_id) return "";
  const q = new URLSearchParams();
  if (sessionId) q.set("session", sessionId);
  const paged = ref.page || ref.slide;
  // A picture read by OCR is shown as itself: the browser shows it inline.
  const picture = /\.(png|jpe?g|gif|webp|bmp|tiff?)$/i.test(ref.source || "");
  if (original && (paged || picture)) q.set("original", "1");
  const qs = q.toString() ? "?" + q.toString() : "";
  const frag = original && ref.page ? "#page=" + ref.page : original && ref.slide ? "#slide=" + ref.slide : "";
  return `/v1/documents/${encodeURIComponent(ref.document_id)}/source${qs}${frag}`;
}

function openPassage(ref) {
  openRef = ref;
  $("passage-title").textContent = `${ref.number}. ${ref.title}`;
  const url = sourceURL(ref);
  $("passage-open").hidden = !url;
  $("passage-link").hidden = !url;
  $("passage-link").href = sourceURL(ref, true) || "#";
  $("passage-note").textContent = "";
  $("source-view").hidden = true;
  $("source-view").textContent = "";
  const box = $("passage-text");
  box.hidden = false;
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

// showSource shows ref's document with the cited passage marked: by its
// byte span in the original file, or by its text in the indexed text the
// server sends when the file changed since it was indexed.
async function showSource() {
  const ref = openRef;
  if (!ref) return;
  const note = $("passage-note"), view = $("source-view");
  note.textContent = "Loading the source…";
  const r = await api(sourceURL(ref));
  if (!r.ok) {
    const e = await r.json().catch(() => ({ error: { message: r.statusText } }));
    note.textContent = `The source cannot be shown: ${e.error.message}`;
    return;
  }
  const bytes = new Uint8Array(await r.arrayBuffer());
  // A text file may be UTF-16 or windows-1252, as the server says: its
  // spans are bytes of it as it is, decoded as cite read it.
  const cs = /;\s*charset=([^;\s]+)/i.exec(r.headers.get("Content-Type") || "");
  let label = "utf-8";
  try { if (cs) label = new TextDecoder(cs[1]).encoding; } catch { /* unknown: UTF-8 */ }
  const dec = (b) => new TextDecoder(label).decode(b);
  let before, cited, after;
  const from = r.headers.get("X-Cite-Source");
  if (from === "original" || from === "extracted-text") {
    // The span is a byte range of what was served: the file, or the text
    // extracted from a PDF or office document.
    const s = Math.max(0, Math.min(ref.span.start, bytes.length)), e = Math.max(s, Math.min(ref.span.end, bytes.length));
    before = dec(bytes.subarray(0, s)); cited = dec(bytes.subarray(s, e)); after = dec(bytes.subarray(e));
    const loc = ref.page ? `page ${ref.page}` : ref.slide ? `slide ${ref.slide}` : "";
    note.textContent = from === "original" ? "" : `The text cite extracted from the file${loc ? "; the passage is on " + loc : ""}.`;
  } else {
    const text = dec(bytes), at = text.indexOf(ref.passage);
    [before, cited, after] = at >= 0 ? [text.slice(0, at), ref.passage, text.slice(at + ref.passage.length)] : [text, "", ""];
    note.textContent = "The file changed or is gone since it was indexed: this is the text that was indexed.";
  }
  view.textContent = "";
  view.append(before);
  const mk = document.createElement("mark");
  mk.id = "source-cited";
  const quote = ref.quote || "", q = quote ? cited.indexOf(quote) : -1;
  if (q >= 0) {
    // The cited sentence stands out within the passage.
    mk.append(cited.slice(0, q));
    const strong = document.createElement("strong"); strong.textContent = quote; mk.append(strong);
    mk.append(cited.slice(q + quote.length));
  } else {
    mk.textContent = cited;
  }
  view.append(mk, after);
  $("passage-text").hidden = true;
  view.hidden = false;
  mk.scrollIntoView({ block: "center" });
}
$("passage-open").addEventListener("click", () => { showSource().catch((e) => { $("passage-note").textContent = `The source cannot be shown: ${e.message}`; }); });

// stopNote says why an answer is cut short, may be, or is missing, from
// its stop_reason ("" when the model finished it), as cite ask says it.
function stopNote(answer) {
  const none = !(answer.text || "").trim();
  switch (answer.stop_reason) {
    case "length": return "The answer is cut short: the model reached its output limit.";
    case "content_filter": return "The answer is cut short: the provider's content filter stopped it.";
    case "other": return "The answer may be cut short: the model stopped for a reason it did not name.";
    case "tool_calls": return none
      ? "The model gave no answer: it asked for more tool calls when it could make no more."
      : "The answer may be unfinished: the model asked for more tool calls when it could make no more.";
  }
  return "";
}

// newTurn adds a turn to the conversation: its question, tool status,
// answer and reference list; text renders the answer, refs.add its
// references.
function newTurn(question) {
  const turnId = `t${history.length + 1}`;
  const el = document.createElement("article");
  el.className = "turn"; el.id = turnId;
  el.innerHTML = `<p class="q"></p><ul class="status" aria-label="Tool calls"></ul><p class="a"></p><p class="warn" role="status" hidden></p><ol class="refs" aria-label="References"></ol>`;
  el.querySelector(".q").textContent = question;
  $("history").append(el);
  const answerEl = el.querySelector(".a"), refsEl = el.querySelector(".refs");
  const refs = new Map();
  let text = "";
  const turn = {
    el, status: el.querySelector(".status"), answerEl,
    text(t) { text = t; renderText(answerEl, text, refs, turnId); },
    warn(note) {
      const w = el.querySelector(".warn");
      w.textContent = note; w.hidden = !note;
    },
    refs: {
      add(list) {
        for (const r of list) {
          refs.set(r.number, r);
          const li = document.createElement("li");
          li.id = `${turnId}-ref-${r.number}`; li.value = r.number;
          const a = document.createElement("a");
          a.href = `#${turnId}-ref-${r.number}`; a.textContent = r.title;
          a.addEventListener("click", (e) => { e.preventDefault(); openPassage(r); });
          li.append(a); refsEl.append(li);
        }
        renderText(answerEl, text, refs, turnId);
      },
    },
  };
  return turn;
}

async function ask(question) {
  const turn = newTurn(question);
  let text = "";
  const sources = [...$("sources").selectedOptions].map((o) => o.value);
  const session_id = await ensureSession();
  const resp = await api("/v1/ask", {
    method: "POST",
    headers: { "Content-Type": "application/json", "Accept": "text/event-stream" },
    body: JSON.stringify(session_id ? { question, sources, session_id } : { question, sources }),
  });
  if (!resp.ok) {
    const e = await resp.json().catch(() => ({ error: { message: resp.statusText } }));
    turn.answerEl.textContent = `Error: ${e.error.message}`;
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
      if (ev === "text") { text += msg.text; turn.text(text); }
      else if (ev === "references") turn.refs.add(msg.references);
      else if (ev.startsWith("tool_")) {
        const li = document.createElement("li");
        li.textContent = `${msg.tool.name}: ${ev === "tool_started" ? "running…" : msg.tool.status}`;
        li.dataset.status = msg.tool.status;
        turn.status.append(li);
      } else if (ev === "error") {
        turn.answerEl.textContent += `\nError: ${msg.error.message}`;
      } else if (ev === "answer") {
        turn.warn(stopNote(msg.answer));
        turn.el.dataset.done = "true";
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
