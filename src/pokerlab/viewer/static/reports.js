/* pokerlab viewer: the report page (pokerlab report folders). No build step, no external code;
   every text from the server goes into the page with textContent. Routes in the URL hash:
     #/                 the reports under the served folder
     #/report?path=P    one report: filters, stacked bars of the root strategy, the table     */
"use strict";

const $ = (sel, root) => (root || document).querySelector(sel);
const GROUPS = ["check", "small", "large", "allin"];
const COLORS = {check: "#7ba05b", small: "#e8a33d", large: "#d5602f", allin: "#a1232b"};
const TEXTURE = ["high", "pairing", "suits", "connectedness"];

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    node.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
  return node;
}

function showError(message) {
  const box = $("#error");
  box.hidden = !message;
  box.textContent = message || "";
}

async function api(url, options) {
  const r = await fetch(url, options);
  const body = await r.json().catch(() => ({error: `HTTP ${r.status}`}));
  if (!r.ok) throw new Error(body.error || `HTTP ${r.status}`);
  return {status: r.status, body};
}

const pct = (x) => (x === null || x === undefined || !isFinite(x)) ? "" : (100 * x).toFixed(1) + "%";
const num = (x, d) => (x === null || x === undefined || !isFinite(x)) ? "" : Number(x).toFixed(d === undefined ? 2 : d);

/* ---- one row's values, by column ------------------------------------------------------------ */

const COLUMNS = [
  {key: "board", label: "flop", get: (r) => r.board},
  {key: "weight", label: "weight", get: (r) => r.weight, fmt: (x) => String(x), num: true},
  ...TEXTURE.map((k) => ({key: k, label: k, get: (r) => r[k]})),
  {key: "ev_oop", label: "EV oop", get: (r) => r.ev.oop, fmt: (x) => num(x), num: true},
  {key: "ev_ip", label: "EV ip", get: (r) => r.ev.ip, fmt: (x) => num(x), num: true},
  {key: "eq_oop", label: "equity oop", get: (r) => r.equity.oop, fmt: pct, num: true},
  {key: "eqr_oop", label: "EQR oop", get: (r) => r.eqr.oop, fmt: (x) => num(x, 3), num: true},
  {key: "eqr_ip", label: "EQR ip", get: (r) => r.eqr.ip, fmt: (x) => num(x, 3), num: true},
  ...GROUPS.map((g) => ({key: "oop_" + g, label: "oop " + g, get: (r) => r.groups.root[g], fmt: pct, num: true})),
  {key: "ip_bet", label: "ip bets vs check", num: true, fmt: pct,
   get: (r) => Object.keys(r.groups.ip_vs_check).length ? 1 - (r.groups.ip_vs_check.check || 0) : null},
  {key: "expl", label: "expl %", get: (r) => r.exploitability_pct, fmt: (x) => num(x, 3), num: true},
];

/* the weighted overall row of the rows shown (EQR of the averages, as the report's own) */
function overall(rows) {
  const w = rows.reduce((s, r) => s + r.weight, 0);
  const mean = (get) => {
    let a = 0, b = 0;
    for (const r of rows) { const v = get(r); if (v !== null && isFinite(v)) { a += r.weight * v; b += r.weight; } }
    return b > 0 ? a / b : null;
  };
  const pot = mean((r) => r.pot);
  const ev = {oop: mean((r) => r.ev.oop), ip: mean((r) => r.ev.ip)};
  const equity = {oop: mean((r) => r.equity.oop), ip: mean((r) => r.equity.ip)};
  const eqr = {};
  for (const p of ["oop", "ip"]) eqr[p] = ev[p] !== null && equity[p] ? ev[p] / (equity[p] * pot) : null;
  const groups = {root: {}, ip_vs_check: {}};
  for (const side of ["root", "ip_vs_check"]) for (const g of GROUPS) groups[side][g] = mean((r) => r.groups[side][g] ?? null);
  return {board: `overall (${rows.length})`, weight: w, high: "", pairing: "", suits: "", connectedness: "",
          pot, ev, equity, eqr, groups, exploitability_pct: mean((r) => r.exploitability_pct)};
}

/* ---- routing -------------------------------------------------------------------------------- */

function route() {
  const h = location.hash.replace(/^#/, "") || "/";
  const [path, query] = h.split("?");
  const params = new URLSearchParams(query || "");
  return {path, params};
}

async function render() {
  showError(null);
  const main = $("#main");
  try {
    const {path, params} = route();
    if (path === "/report" && params.get("path")) await renderReport(main, params.get("path"));
    else await renderList(main);
  } catch (e) {
    showError(e.message);
    main.replaceChildren(el("p", {}, el("a", {href: "#/", text: "back to the reports"})));
  }
}

async function renderList(main) {
  const {body} = await api("/api/reports");
  const rows = body.map((r) => el("tr", {"data-path": r.path},
    el("td", {}, r.error ? el("span", {text: r.path}) : el("a", {href: "#/report?path=" + encodeURIComponent(r.path), text: r.path})),
    el("td", {text: r.error ? "" : r.kind}),
    el("td", {class: "num", text: r.error ? "" : `${r.done} of ${r.boards}`}),
    el("td", {text: r.error || (r.complete ? "complete" : "partial")})));
  main.replaceChildren(el("div", {class: "panel"},
    el("h2", {text: "Reports"}),
    body.length ? el("table", {id: "reports"},
      el("tr", {}, ["report", "kind", "boards done", "state"].map((t) => el("th", {text: t}))), rows)
      : el("p", {class: "muted", text: "No report.json under this folder (pokerlab report TEMPLATE --out DIR writes one)."})));
}

async function renderReport(main, path) {
  const {body: doc} = await api("/api/report?path=" + encodeURIComponent(path));
  const state = {sort: null, desc: false, filters: {}};
  const t = doc.template || {};
  const info = el("div", {class: "panel"},
    el("h2", {text: path}),
    el("p", {class: "muted", text:
      `${doc.kind}: ${doc.rows.length} of ${doc.plan.length} boards solved${doc.complete ? "" : " (partial)"}; ` +
      `pot ${t.pot}, stack ${t.stack}; target ${doc.settings.target_pct}% of the pot. ` +
      "Click a board to open it in the spot browser (solved now if not saved)."}),
    el("p", {id: "solve-status", class: "muted"}));
  const filters = el("div", {class: "filters", id: "filters"});
  for (const k of TEXTURE) {
    const values = [...new Set(doc.rows.map((r) => String(r[k])))].sort();
    const select = el("select", {"data-filter": k, onchange: (e) => { state.filters[k] = e.target.value; draw(); }},
      el("option", {value: "", text: `${k}: all`}), values.map((v) => el("option", {value: v, text: v})));
    filters.appendChild(select);
  }
  const chart = el("div", {class: "panel"}, el("h3", {text: "OOP's root strategy by board (rows shown, in table order)"}),
    el("div", {class: "legend"}, GROUPS.map((g) => el("span", {}, el("i", {class: "swatch", style: "background:" + COLORS[g]}), g))),
    el("div", {class: "bars", id: "bars"}));
  const table = el("table", {id: "report-table"});
  main.replaceChildren(info, filters, chart, el("div", {class: "panel"}, table));

  function shown() {
    let rows = doc.rows.filter((r) => TEXTURE.every((k) => !state.filters[k] || String(r[k]) === state.filters[k]));
    if (state.sort) {
      const col = COLUMNS.find((c) => c.key === state.sort);
      rows = [...rows].sort((a, b) => {
        const x = col.get(a), y = col.get(b);
        const cmp = col.num ? (x ?? -Infinity) - (y ?? -Infinity) : String(x).localeCompare(String(y));
        return state.desc ? -cmp : cmp;
      });
    }
    return rows;
  }

  function draw() {
    const rows = shown();
    const head = el("tr", {}, COLUMNS.map((c) => el("th", {
      class: "sortable" + (c.num ? " num" : ""), "data-col": c.key,
      text: c.label + (state.sort === c.key ? (state.desc ? " ▼" : " ▲") : ""),
      onclick: () => { state.desc = state.sort === c.key ? !state.desc : c.num; state.sort = c.key; draw(); }})));
    const line = (r, isOverall) => el("tr", {class: isOverall ? "overall" : "", "data-board": isOverall ? null : r.board},
      COLUMNS.map((c) => {
        const v = c.get(r);
        if (c.key === "board" && !isOverall) return el("td", {}, el("a", {class: "board", text: v, onclick: () => openBoard(path, v)}));
        return el("td", {class: c.num ? "num" : "", text: c.fmt ? c.fmt(v) : (v ?? "")});
      }));
    table.replaceChildren(...[head, rows.length ? line(overall(rows), true) : null, ...rows.map((r) => line(r, false))].filter(Boolean));
    const bars = $("#bars");
    bars.replaceChildren(...rows.map((r) => {
      const g = r.groups.root;
      const title = `${r.board}: ` + GROUPS.map((k) => `${k} ${pct(g[k])}`).join(", ");
      return el("div", {class: "bar", title, "data-board": r.board, onclick: () => openBoard(path, r.board)},
        GROUPS.map((k) => el("div", {class: "seg", style: `height:${(100 * (g[k] || 0)).toFixed(2)}%;background:${COLORS[k]}`})));
    }));
  }
  draw();
}

/* ---- a board in the spot browser ------------------------------------------------------------ */

async function openBoard(path, board) {
  const status = $("#solve-status");
  showError(null);
  try {
    let {status: code, body} = await api("/api/report/solve", {
      method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({path, board})});
    while (code === 202 || (body.state && !["done", "failed", "cancelled"].includes(body.state))) {
      status.textContent = `solving ${board}: ${body.done || 0} iterations (at most ${body.total})…`;
      await new Promise((ok) => setTimeout(ok, 500));
      ({status: code, body} = await api("/api/jobs/" + body.id));
    }
    if (body.state === "failed" || body.state === "cancelled") throw new Error(body.error || `the solve of ${board} was ${body.state}`);
    const solution = body.solution || (body.result && body.result.solution);
    status.textContent = `${board}: ${solution}`;
    location.href = "/#/file?path=" + encodeURIComponent(solution);
  } catch (e) {
    status.textContent = "";
    showError(e.message);
  }
}

window.addEventListener("hashchange", render);
window.addEventListener("DOMContentLoaded", render);
