/* pokerlab viewer: one page, no build step, no external code. Every text from the server is put
   in the page with textContent (never as HTML). Routes live in the URL hash:
     #/                                   file list
     #/file?path=P[&line=L]               a file (tree browser, table, grids, curves)
     #/play?path=P&seat=S                 play against the solution
     #/play?path=P&seat=S&search=1        ... a no-limit blueprint that searches in play          */
"use strict";

const RANKS = "AKQJT98765432";
const $ = (sel, root) => (root || document).querySelector(sel);

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (k === "style") node.setAttribute("style", v);
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
  if (!message) { box.hidden = true; box.textContent = ""; return; }
  box.hidden = false;
  box.textContent = message;
}

async function api(url, body) {
  const opts = body === undefined ? {} : {
    method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)};
  let response;
  try {
    response = await fetch(url, opts);
  } catch (e) {
    throw new Error("the server cannot be reached (" + e.message + ")");
  }
  let data = null;
  try { data = await response.json(); } catch (e) { data = null; }
  if (!response.ok) {
    throw new Error((data && data.error) || ("HTTP " + response.status));
  }
  return data;
}

function q(params) {
  return Object.entries(params).filter(([, v]) => v !== undefined && v !== null)
    .map(([k, v]) => encodeURIComponent(k) + "=" + encodeURIComponent(v)).join("&");
}

function fmt(x, digits) {
  if (x === null || x === undefined || Number.isNaN(x)) return "–";
  return Number(x).toFixed(digits === undefined ? 3 : digits);
}
function pct(x, digits) {
  if (x === null || x === undefined) return "–";
  return (100 * x).toFixed(digits === undefined ? 1 : digits) + "%";
}
function count(x) {
  return x === null || x === undefined ? "–" : Number(x).toLocaleString("en-US");
}
function sci(x) {
  if (x === null || x === undefined) return "–";
  const a = Math.abs(x);
  return (a !== 0 && (a < 1e-3 || a >= 1e5)) ? Number(x).toExponential(3) : Number(x).toPrecision(4);
}

function cardEl(name, extra) {
  return el("span", {class: "card " + (name && name.length === 2 ? name[1] : "") + (extra ? " " + extra : ""),
                     text: name || "?"});
}

/* ---- hand-class grid helpers ---------------------------------------------------------------- */

function className(row, col) {
  if (row === col) return RANKS[row] + RANKS[col];
  return row < col ? RANKS[row] + RANKS[col] + "s" : RANKS[col] + RANKS[row] + "o";
}
function classCombos(row, col) { return row === col ? 6 : (row < col ? 4 : 12); }

const FOLD_COLOR = "#4f83cc", CHECK_COLOR = "#46a35a";
const BET_COLORS = ["#f2a65a", "#e8743b", "#d64531", "#b0202e", "#7d0f23", "#4c0519"];

function actionColors(labels) {
  const bets = labels.map((l, i) => [l, i]).filter(([l]) => /^(bet|raise|allin|r|b|s)/i.test(l) && !/^(check|call|c$|f$)/i.test(l));
  const amount = (l) => { const m = /(\d+)/.exec(l); return m ? Number(m[1]) : (/allin/i.test(l) ? 1e9 : 0); };
  bets.sort((a, b) => amount(a[0]) - amount(b[0]));
  const colors = labels.map((l) => (/^(fold|f)$/i.test(l) ? FOLD_COLOR : CHECK_COLOR));
  bets.forEach(([l, i], k) => {
    const shade = bets.length === 1 ? 2 : Math.round(k * (BET_COLORS.length - 1) / (bets.length - 1));
    colors[i] = /allin/i.test(l) ? BET_COLORS[BET_COLORS.length - 1] : BET_COLORS[shade];
  });
  return colors;
}

function mixGradient(mix, colors) {
  let at = 0;
  const stops = [];
  mix.forEach((m, i) => {
    const w = Math.max(0, m || 0) * 100;
    if (w <= 0) return;
    stops.push(colors[i] + " " + at.toFixed(2) + "% " + (at + w).toFixed(2) + "%");
    at += w;
  });
  if (!stops.length) return "transparent";
  return "linear-gradient(to right, " + stops.join(", ") + ")";
}

/* Text colour that reads on a background colour ("#rrggbb" or "rgba(r,g,b,a)" over white). */
function inkOn(color) {
  let r = 255, g = 255, b = 255, a = 1;
  const hex = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(color || "");
  const rgba = /^rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)$/.exec(color || "");
  if (hex) [r, g, b] = hex.slice(1).map((h) => parseInt(h, 16));
  else if (rgba) { [r, g, b] = rgba.slice(1, 4).map(Number); a = rgba[4] === undefined ? 1 : Number(rgba[4]); }
  else return "";
  const lin = (v) => { v = (a * v + (1 - a) * 255) / 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  const lum = 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  return lum < 0.28 ? "light" : "";
}

/* The colour of the first and last action with a positive share of a mix (what lies under the
   hand's name at the top left and under its value at the bottom right). */
function mixEnds(mix, colors) {
  const on = mix.map((m, i) => [m, i]).filter(([m]) => m > 0.02);
  return on.length ? [colors[on[0][1]], colors[on[on.length - 1][1]]] : ["", ""];
}

/* A 13x13 grid. cellFor(row, col, id) returns {fill (0..1 height), background, label, title,
   data (attributes), ink / valInk ("light": light text on a dark fill)}; onClick(hand, cell)
   when given. ranks: draw only the top ranks' rows and columns (a small deck; default 13). */
function handGrid(cellFor, onClick, small, ranks) {
  const n = ranks || 13;
  const grid = el("div", {class: "grid" + (small ? " small" : "") + (onClick ? " clickable" : ""),
                          style: n === 13 ? null : "--n:" + n});
  for (let row = 0; row < n; row++) {
    for (let col = 0; col < n; col++) {
      const id = 13 * row + col;
      const hand = className(row, col);
      const c = cellFor(row, col, id, hand) || {};
      const attrs = {class: "cell", "data-hand": hand, title: c.title || hand};
      for (const [k, v] of Object.entries(c.data || {})) attrs["data-" + k] = v;
      const cell = el("div", attrs);
      const fill = el("div", {class: "fill"});
      fill.style.height = (100 * Math.max(0, Math.min(1, c.fill === undefined ? 1 : c.fill))).toFixed(1) + "%";
      fill.style.background = c.background || "transparent";
      cell.appendChild(fill);
      const fill01 = c.fill === undefined ? 1 : c.fill;
      cell.appendChild(el("span", {class: "name" + (c.ink && fill01 > 0.75 ? " " + c.ink : ""), text: hand}));
      if (c.label && !small) cell.appendChild(el("span", {class: "val" + (c.valInk ? " " + c.valInk : ""), text: c.label}));
      if (onClick) {
        // click: pin the hand (again: unpin); hover, while nothing is pinned: show it
        cell.addEventListener("click", () => {
          const pinned = cell.classList.contains("selected");
          document.querySelectorAll(".cell.selected").forEach((x) => x.classList.remove("selected"));
          if (pinned) return;
          cell.classList.add("selected");
          onClick(hand, cell, false);
        });
        let timer = null;
        cell.addEventListener("mouseenter", () => {
          timer = setTimeout(() => {
            if (!document.querySelector(".cell.selected")) onClick(hand, cell, true);
          }, 150);
        });
        cell.addEventListener("mouseleave", () => clearTimeout(timer));
      }
      grid.appendChild(cell);
    }
  }
  return grid;
}

function legend(labels, colors) {
  return el("div", {class: "legend"}, labels.map((l, i) =>
    el("span", {}, el("i", {class: "swatch", style: "background:" + colors[i]}), l)));
}

/* ---- routing ---------------------------------------------------------------------------------- */

function parseHash() {
  const h = location.hash.replace(/^#/, "") || "/";
  const [route, query] = h.split("?");
  const params = {};
  for (const part of (query || "").split("&")) {
    if (!part) continue;
    const [k, v] = part.split("=");
    params[decodeURIComponent(k)] = decodeURIComponent(v || "");
  }
  return {route, params};
}

function go(route, params) {
  const target = "#" + route + (params && Object.keys(params).length ? "?" + q(params) : "");
  if (location.hash === target) render(); else location.hash = target;
}

let renderToken = 0;
async function render() {
  const token = ++renderToken;
  showError(null);
  const {route, params} = parseHash();
  const main = $("#main");
  try {
    if (route === "/file" && params.path) await renderFile(main, params, token);
    else if (route === "/play" && params.path) await renderPlay(main, params, token);
    else await renderFiles(main, token);
  } catch (e) {
    if (token !== renderToken) return;
    showError(e.message);
    if ($(".spinner", main)) {
      main.replaceChildren(el("div", {class: "panel", id: "load-failed"},
        el("p", {text: "This page could not be shown (the reason is above); the server keeps running."}),
        el("a", {href: "#/", text: "back to the files"})));
    }
  }
}

window.addEventListener("hashchange", render);
window.addEventListener("DOMContentLoaded", () => {
  api("/api/about").then((a) => { $("#root").textContent = a.root; }).catch(() => {});
  render();
});

/* ---- file list -------------------------------------------------------------------------------- */

const KIND_NAMES = {
  "table": "strategy table", "pushfold": "push/fold", "pushfold-result": "push/fold result",
  "pushfold-sweep": "push/fold sweep", "postflop": "postflop spot", "log": "run log",
  "limit": "limit hold'em strategy", "blueprint": "no-limit blueprint",
  "compare": "compare", "error": "error"};

function playable(f) {
  if (f.kind === "pushfold" || f.kind === "pushfold-result" || f.kind === "postflop") return true;
  return (f.kind === "table" || f.kind === "blueprint") && (!f.details || !f.details.game_params ||
    !f.details.game_params.players || f.details.game_params.players === 2);
}

async function renderFiles(main, token) {
  const data = await api("/api/files");
  if (token !== renderToken) return;
  $("#root").textContent = data.root;
  const body = el("tbody");
  for (const f of data.files) {
    const open = el("a", {href: "#/file?" + q({path: f.path}), class: "open", text: f.path});
    const row = el("tr", {"data-path": f.path, "data-kind": f.kind, class: f.kind === "error" ? "error-row" : ""},
      el("td", {}, f.kind === "error" ? el("span", {text: f.path}) : open),
      el("td", {text: KIND_NAMES[f.kind] || f.kind}),
      el("td", {text: f.game || ""}),
      el("td", {text: f.algorithm || ""}),
      el("td", {class: "num", text: f.iterations === null || f.iterations === undefined ? "" : Number(f.iterations).toLocaleString("en-US")}),
      el("td", {class: "num expl", title: f.measured ? "measured when the file was opened here" : null,
        text: f.exploitability === null ? (f.kind === "postflop" ? "open to measure" : "") : sci(f.exploitability) + " " + (f.unit || "") + (f.measured ? " *" : "")}),
      el("td", {}, f.kind === "error" ? el("span", {class: "err", text: f.error}) :
        playable(f) ? el("a", {href: "#/play?" + q({path: f.path, seat: 0}), class: "play-link", text: "play"}) : ""));
    body.appendChild(row);
  }
  const table = el("table", {id: "files-table"},
    el("thead", {}, el("tr", {}, ["file", "kind", "game", "algorithm", "iterations", "exploitability", ""].map(
      (h) => el("th", {class: h === "iterations" || h === "exploitability" ? "num" : "", text: h})))),
    body);
  main.replaceChildren(el("div", {class: "panel"},
    el("h2", {text: "Files"}),
    data.files.length ? table : el("p", {class: "muted", text: "No pokerlab files in this folder yet: solve something with --out, --log or --json > file.json."})));
}

/* ---- one file --------------------------------------------------------------------------------- */

async function renderFile(main, params, token) {
  main.replaceChildren(el("p", {class: "spinner", text: "Loading " + params.path + " …"}));
  const info = await api("/api/info?" + q({path: params.path}));
  if (token !== renderToken) return;
  const head = el("div", {class: "panel", id: "file-info"},
    el("h2", {}, el("a", {href: "#/", text: "files"}), " / ", params.path),
    el("div", {class: "kv"}, infoItems(info)));
  main.replaceChildren(head);
  if (info.kind === "table") return renderTable(main, info, params);
  if (info.kind === "pushfold") return renderPushFold(main, info, params);
  if (info.kind === "pushfold-sweep") return renderSweep(main, info);
  if (info.kind === "postflop") return renderPostflop(main, info, params, token);
  if (info.kind === "curve") return renderCurves(main, info);
  if (info.kind === "blueprint") return renderBlueprint(main, info, params, token);
  main.appendChild(el("p", {text: "Nothing to show for this file."}));
}

function infoItems(info) {
  const items = [];
  const add = (k, v) => { if (v !== undefined && v !== null && v !== "") items.push(el("span", {}, k + ": ", el("b", {text: String(v)}))); };
  add("game", info.game);
  if (info.game_params && Object.keys(info.game_params).length) add("parameters", JSON.stringify(info.game_params));
  add("algorithm", info.algorithm);
  if (info.iterations !== undefined && info.iterations !== null) add("iterations", Number(info.iterations).toLocaleString("en-US"));
  if (info.exploitability !== undefined) add("exploitability", info.exploitability === null ? "–" : sci(info.exploitability) + " " + (info.unit || "") +
    (info.exploitability_pct !== undefined && info.exploitability_pct !== null ? " (" + fmt(info.exploitability_pct, 3) + "% of the pot)" : ""));
  if (info.board) add("board", info.board.join(" "));
  add("pot", info.pot);
  add("stack", info.stack);
  if (info.ev) add("EV OOP / IP", fmt(info.ev[0], 2) + " / " + fmt(info.ev[1], 2));
  if (info.stacks && info.kind === "pushfold") add("stack (bb)", info.stacks.join(", "));
  if (info.kind === "blueprint") { add("bucketing", info.bucketing); add("buckets", info.buckets.join(" / ") + " (" + info.recall + " recall)"); }
  add("ante (bb)", info.ante_bb);
  if (info.kind === "curve") add(info.source === "compare" ? "compare runs" : "run log", info.curves.map((c) => c.algorithm).join(", "));
  add("information sets", info.infosets);
  return items;
}

/* small games: information sets as a table */
function renderTable(main, info, params) {
  const input = el("input", {id: "table-filter", placeholder: "filter keys, e.g. Ks:", value: params.q || ""});
  const mode = el("select", {id: "table-mode"}, ["prefix", "contains", "exact"].map((m) => el("option", {value: m, text: m})));
  const out = el("div", {id: "table-out"});
  let offset = 0, asked = 0;
  const load = async () => {
    const ask = ++asked;  // typing sends a request per key: only the latest answer is drawn
    try {
      const data = await api("/api/table?" + q({path: params.path, q: input.value, mode: mode.value, offset, limit: 200}));
      if (ask !== asked) return;
      const rows = data.rows.map((r) => {
        const colors = actionColors(r.actions.map((a) => a.label));
        return el("tr", {"data-key": r.key},
          el("td", {text: r.key}), el("td", {class: "num", text: r.player}),
          el("td", {}, el("div", {class: "bar", style: "width:160px"},
            el("div", {style: "background:" + mixGradient(r.actions.map((a) => a.p), colors)}))),
          el("td", {}, r.actions.map((a, i) => el("span", {class: "prob", "data-label": a.label, "data-p": a.p},
            el("i", {class: "swatch", style: "background:" + colors[i]}), " " + a.label + " " + pct(a.p) + "  "))));
      });
      out.replaceChildren(
        el("p", {class: "muted", text: `${data.total} information sets match; showing ${data.offset + 1}–${data.offset + data.rows.length}`}),
        el("table", {id: "infoset-table"}, el("thead", {}, el("tr", {}, ["information set", "player", "mix", "actions"].map((h) => el("th", {text: h})))),
          el("tbody", {}, rows)),
        el("div", {class: "row"},
          el("button", {disabled: offset === 0, onclick: () => { offset = Math.max(0, offset - 200); load(); }, text: "previous"}),
          el("button", {disabled: offset + 200 >= data.total, onclick: () => { offset += 200; load(); }, text: "next"})));
      showError(null);
    } catch (e) { showError(e.message); }
  };
  input.addEventListener("input", () => { offset = 0; load(); });
  mode.addEventListener("change", () => { offset = 0; load(); });
  const plays = info.players === 2 && info.playable !== false ? [
    el("a", {href: "#/play?" + q({path: params.path, seat: 0}), text: "play as player 0"}), " · ",
    el("a", {href: "#/play?" + q({path: params.path, seat: 1}), text: "play as player 1"})] : [];
  main.appendChild(el("div", {class: "panel"}, el("div", {class: "row"}, el("h3", {text: "Information sets"}), input, mode, ...plays), out));
  return load();
}

/* push/fold: shove and call grids with combos per cell */
async function renderPushFold(main, info, params) {
  const row = Number(params.row || 0);
  const data = await api("/api/pushfold?" + q({path: params.path, row}));
  const detail = el("div", {class: "panel", id: "cell-detail"}, el("p", {class: "muted", text: "Hover over a hand for its combos, EV and equity; click it to keep it here."}));
  const grid = (seat, values, title, verb) => {
    const colors = [FOLD_COLOR, BET_COLORS[3]];
    return el("div", {class: "panel"}, el("h3", {text: title}),
      legend(["fold", verb], colors),
      el("div", {id: "grid-" + seat}, handGrid((r, c, id) => ({
        background: mixGradient([1 - values[id], values[id]], colors),
        ink: inkOn(mixEnds([1 - values[id], values[id]], colors)[0]),
        valInk: inkOn(mixEnds([1 - values[id], values[id]], colors)[1]),
        label: values[id] > 0.0005 && values[id] < 0.9995 ? pct(values[id], 1) : "",
        title: data.classes[id] + ": " + verb + " " + pct(values[id], 2),
        data: {value: values[id]},
      }), (hand) => showPushFoldCell(detail, params.path, seat, hand, row))));
  };
  const stackPicker = info.stacks.length > 1 ? el("select", {onchange: (e) => go("/file", {path: params.path, row: e.target.value})},
    info.stacks.map((s, i) => el("option", {value: i, selected: i === row, text: s + " bb"}))) : null;
  const plays = el("div", {class: "row"},
    el("a", {href: "#/play?" + q({path: params.path, seat: 0}), id: "play-sb", text: "play as the small blind"}),
    el("a", {href: "#/play?" + q({path: params.path, seat: 1}), id: "play-bb", text: "play as the big blind"}));
  main.appendChild(el("div", {class: "panel"}, el("div", {class: "kv"},
    el("span", {}, "stack: ", el("b", {text: data.stack_bb + " bb"})),
    el("span", {}, "SB shoves ", el("b", {id: "sb-fraction", text: pct(data.sb_fraction)})),
    el("span", {}, "BB calls ", el("b", {id: "bb-fraction", text: pct(data.bb_fraction)})), stackPicker), plays));
  main.appendChild(el("div", {class: "row"},
    grid("sb", data.sb_shove, "Small blind: shove", "shove"),
    grid("bb", data.bb_call, "Big blind: call", "call"), detail));
}

async function showPushFoldCell(detail, path, seat, hand, row) {
  const ask = String(Math.random());  // clicks in quick succession: draw the last one
  detail.dataset.ask = ask;
  try {
    const data = await api("/api/pushfold/cell?" + q({path, seat, hand, row}));
    if (detail.dataset.ask !== ask) return;
    const act = seat === "sb" ? "shove" : "call";
    detail.replaceChildren(el("h3", {text: `${seat.toUpperCase()} ${data.hand} at ${data.stack_bb} bb`}),
      el("table", {id: "combos-table"}, el("thead", {}, el("tr", {}, ["combo", act, "fold", "EV " + act, "EV fold", "equity"].map((h) => el("th", {text: h})))),
        el("tbody", {}, data.combos.map((c) => el("tr", {"data-combo": c.combo},
          el("td", {}, c.combo), el("td", {class: "num", text: pct(c.strategy[act], 2)}), el("td", {class: "num", text: pct(c.strategy.fold, 2)}),
          el("td", {class: "num", text: fmt(c.ev[act], 4)}), el("td", {class: "num", text: fmt(c.ev.fold, 4)}),
          el("td", {class: "num", text: pct(c.equity, 2)}))))),
      el("p", {class: "muted", text: "EV in big blinds per hand, from the seat's point of view; equity: all-in against the other seat's " + (seat === "sb" ? "calling" : "shoving") + " range."}));
  } catch (e) { showError(e.message); }
}

/* push/fold sweep: largest stack each class plays */
function renderSweep(main, info) {
  const top = info.top || 1;
  const grid = (values, title) => el("div", {class: "panel"}, el("h3", {text: title}),
    handGrid((r, c, id) => {
      const background = values[id] ? "rgba(176,32,46," + (0.15 + 0.85 * Math.min(1, values[id] / top)).toFixed(3) + ")" : "transparent";
      return {background, ink: inkOn(background), valInk: inkOn(background),
      label: values[id] ? (values[id] >= top ? top + "+" : String(values[id])) : "",
      title: info.classes[id] + ": up to " + values[id] + " bb"};
    }));
  main.appendChild(el("div", {class: "row"},
    grid(info.sb_shove_max_bb, "Small blind shoves up to (bb)"),
    grid(info.bb_call_max_bb, "Big blind calls up to (bb)")));
}

/* ---- postflop tree browser -------------------------------------------------------------------- */

function lineTokens(text) { return (text || "").split(",").map((s) => s.trim()).filter((s) => s); }

async function renderPostflop(main, info, params, token) {
  const line = lineTokens(params.line);
  const node = await api("/api/node?" + q({path: params.path, line: line.join(",")}));
  if (token !== renderToken) return;
  const goLine = (tokens) => go("/file", {path: params.path, line: tokens.join(",")});
  const crumbs = el("div", {class: "crumbs", id: "breadcrumbs"},
    el("a", {href: "#", "data-depth": 0, class: line.length === 0 ? "current" : "", text: "root",
             onclick: (e) => { e.preventDefault(); goLine([]); }}),
    line.map((t, i) => [el("span", {class: "sep", text: "›"}),
      el("a", {href: "#", "data-depth": i + 1, class: i === line.length - 1 ? "current" : "", text: t,
               onclick: (e) => { e.preventDefault(); goLine(line.slice(0, i + 1)); }})]));
  const who = ["OOP", "IP"];
  const status = node.kind === "decision" ? `${who[node.player]} to act` :
    node.kind === "chance" ? `deal the ${node.chance.street}` :
    node.kind === "fold" ? `${who[node.folder]} folded` : "showdown";
  const summary = el("div", {class: "kv", id: "node-summary"},
    el("span", {}, "street: ", el("b", {text: node.street || "–"})),
    el("span", {}, "board: ", ...node.board.map((c) => cardEl(c))),
    el("span", {}, "pot: ", el("b", {id: "node-pot", text: String(node.pot)})),
    el("span", {}, "stacks OOP / IP: ", el("b", {text: node.stacks.join(" / ")})),
    el("span", {}, el("b", {id: "node-status", text: status})));
  const playLinks = el("div", {class: "row"},
    el("a", {href: "#/play?" + q({path: params.path, seat: 0}), text: "play as OOP"}),
    el("a", {href: "#/play?" + q({path: params.path, seat: 1}), text: "play as IP"}));
  main.appendChild(el("div", {class: "panel"}, crumbs, summary, playLinks));

  const detail = el("div", {class: "panel", id: "cell-detail"}, el("p", {class: "muted", text: "Hover over a hand (here or in a range below) for its combos with strategy, EV and equity; click it to keep it here."}));
  const row = el("div", {class: "row"});
  if (node.kind === "decision") {
    const labels = node.actions.map((a) => a.label);
    const colors = actionColors(labels);
    const acts = el("div", {class: "actions", id: "actions"}, el("h3", {text: who[node.player] + " actions"}),
      node.actions.map((a, i) => el("div", {class: "action", "data-label": a.label, "data-freq": a.freq,
        onclick: () => goLine([...line, a.label])},
        el("i", {class: "swatch", style: "background:" + colors[i]}), el("span", {text: a.label}),
        el("div", {class: "bar"}, el("div", {style: `width:${(100 * a.freq).toFixed(1)}%;background:${colors[i]}`})),
        el("span", {class: "freq num", text: pct(a.freq)}))));
    const g = node.grid;
    const avail = node.ranges[g.player].available;
    const gridEl = handGrid((r, c, id) => {
      const w = g.weight[id] || 0;
      const frac = avail[id] ? w * node.scale / avail[id] : 0;
      const mix = g.mix[id];
      const ends = mixEnds(mix, colors);
      return {
        fill: w > 0 ? Math.max(0.08, frac) : 0,
        background: w > 0 ? mixGradient(mix, colors) : "transparent",
        ink: inkOn(ends[0]), valInk: inkOn(ends[1]),
        title: className(r, c) + (w > 0 ? ` (${fmt(w * node.scale, 2)} combos): ` + labels.map((l, k) => l + " " + pct(mix[k])).join(", ") : ": not in range"),
        data: {weight: w, mix: JSON.stringify(mix)},
      };
    }, (hand, cell, hover) => {
      showCombos(detail, params.path, line, g.player, hand);
      const lockHands = $("#lock-hands");
      if (lockHands && !hover) {
        lockHands.value = hand;
        const mix = JSON.parse(cell.dataset.mix || "[]");
        document.querySelectorAll("#lock-panel input.freq[data-action]").forEach((x, k) => { x.value = (mix[k] || 0).toFixed(3); });
      }
    });
    gridEl.id = "grid";
    row.appendChild(el("div", {class: "panel"}, el("h3", {text: who[g.player] + " range and strategy"}), legend(labels, colors), gridEl,
      el("p", {class: "muted", text: "Colours: the hand's action mix; filled height: its weight in the range."})));
    row.appendChild(el("div", {class: "side"}, acts, detail));
  } else if (node.kind === "chance") {
    const can = new Set(node.chance.cards);  // the deck less the board (and nothing else)
    const picker = el("div", {class: "cards", id: "card-picker"});
    for (const s of "shdc") for (const r of RANKS) {
      const name = r + s;
      picker.appendChild(el("button", {class: "card " + s, "data-card": name, disabled: !can.has(name),
        text: name, onclick: () => goLine([...line, name])}));
    }
    row.appendChild(el("div", {class: "panel"}, el("h3", {text: "Pick the " + node.chance.street + " card"}), picker));
  } else {
    row.appendChild(el("div", {class: "panel"}, el("h3", {text: status}),
      el("p", {text: node.kind === "fold" ? `${who[1 - node.folder]} wins the pot of ${node.pot}.` : `Hands are compared for the pot of ${node.pot}.`})));
  }
  if (node.kind !== "decision") row.appendChild(detail);
  main.appendChild(row);

  const ranges = el("div", {class: "row", id: "ranges"}, [0, 1].map((p) => {
    const rg = node.ranges[p];
    const color = p === 0 ? "15,118,110" : "194,65,12";
    const grid = handGrid((r, c, id) => {
      const frac = rg.available[id] ? (rg.weight[id] || 0) * node.scale / rg.available[id] : 0;
      const background = frac > 0 ? `rgba(${color},${(0.12 + 0.88 * Math.min(1, frac)).toFixed(3)})` : "transparent";
      return {fill: 1, background, ink: inkOn(background),
        title: className(r, c) + (frac > 0 ? `: ${fmt(rg.weight[id] * node.scale, 2)} of ${rg.available[id]} combos, EV ${fmt(rg.ev[id], 2)}, equity ${pct(rg.equity[id])}` : ": not in range"),
        data: {weight: rg.weight[id]}};
    }, (hand) => showCombos(detail, params.path, line, p, hand), true);
    grid.id = "range-" + p;
    return el("div", {class: "panel"}, el("h3", {text: `${who[p]} range: ${fmt(rg.combos, 1)} combos, EV ${fmt(rg.range_ev, 2)}, equity ${pct(rg.range_equity)}`}),
      grid, el("p", {class: "muted", text: "Darker: more of the hand's combos in the range. Hover over or click a hand for its combos."}));
  }));
  main.appendChild(ranges);
  if (node.kind === "decision" && info.locking) main.appendChild(lockPanel(info, params.path, line, node));
}

async function showCombos(detail, path, line, player, hand) {
  const ask = String(Math.random());  // clicks in quick succession: draw the last one
  detail.dataset.ask = ask;
  try {
    const data = await api("/api/combos?" + q({path, line: line.join(","), player, hand}));
    if (detail.dataset.ask !== ask) return;
    const acts = data.actions;
    const head = ["combo", "weight", ...acts, "EV", "equity", "EQR"];
    detail.replaceChildren(el("h3", {text: `${["OOP", "IP"][player]} ${data.hand}`}),
      data.combos.length ? el("table", {id: "combos-table"}, el("thead", {}, el("tr", {}, head.map((h) => el("th", {text: h})))),
        el("tbody", {}, data.combos.map((c) => el("tr", {"data-combo": c.combo},
          el("td", {}, c.combo), el("td", {class: "num", text: fmt(c.weight, 3)}),
          acts.map((a) => el("td", {class: "num strat", "data-action": a, text: pct(c.strategy[a], 1)})),
          el("td", {class: "num ev", text: fmt(c.ev, 2)}), el("td", {class: "num equity", text: pct(c.equity, 1)}),
          el("td", {class: "num", text: fmt(c.eqr, 2)}))))) :
        el("p", {class: "muted", text: "No combos of this hand in the range here."}));
  } catch (e) { showError(e.message); }
}

/* A re-solve runs as a job in the server: follow it (poll /api/jobs/ID) with a progress bar and a
   cancel button until it ends, then call done(job) (also when cancelled: the result says so). */
const JOB_POLL_MS = 250;
async function followJob(job, out, done) {
  const bar = el("progress", {id: "job-progress", max: Math.max(job.total, 1), value: 0});
  const status = el("span", {id: "job-status"});
  const cancel = el("button", {id: "job-cancel", text: "cancel", onclick: async () => {
    cancel.disabled = true;
    try { await api(`/api/jobs/${job.id}/cancel`, {}); } catch (e) { showError(e.message); }
  }});
  out.replaceChildren(el("div", {class: "row job", "data-job": job.id, "data-state": job.state}, bar, status, cancel));
  for (;;) {
    out.firstChild.dataset.state = job.state;
    bar.value = job.done;
    status.textContent = job.state === "queued" ?
      `waiting for a free worker (${job.position} job(s) ahead)` :
      `re-solving: ${count(job.done)} of ${count(job.total)} iterations` + (job.cancel_requested ? " (stopping …)" : "");
    if (job.state === "done" || job.state === "cancelled") { done(job); return; }
    if (job.state === "failed") throw new Error(job.error || "the re-solve failed");
    await new Promise((resolve) => setTimeout(resolve, JOB_POLL_MS));
    if (!out.isConnected) return;  // the page moved on; the job finishes in the server
    job = await api(`/api/jobs/${job.id}`);
  }
}

/* node locking (shown only when the solver offers it) */
function lockPanel(info, path, line, node) {
  const labels = node.actions.map((a) => a.label);
  const inputs = labels.map((l, i) => el("input", {class: "freq", type: "number", min: 0, max: 1, step: 0.05, "data-action": l,
    value: (node.actions[i].freq || 0).toFixed(3)}));
  const hands = el("input", {id: "lock-hands", placeholder: "hands, e.g. AA,KQs (empty: all)"});
  const iters = el("input", {id: "lock-iterations", type: "number", min: 0, max: 10000, value: 100, class: "freq"});
  const out = el("div", {id: "lock-result"});
  const here = (info.locks || []).filter((k) => (k.line || "") === line.join(", ") || (k.line || "") === line.join(","));
  const show = (job) => {
    const r = job.result;
    const rowsOf = (n, v) => el("tr", {"data-when": n},
      el("td", {text: n}), el("td", {class: "num ev0", text: fmt(v.ev[0], 3)}), el("td", {class: "num ev1", text: fmt(v.ev[1], 3)}),
      el("td", {class: "num nev0", text: fmt(v.node_ev[0], 3)}), el("td", {class: "num nev1", text: fmt(v.node_ev[1], 3)}),
      el("td", {class: "num", text: sci(v.exploitability) + " (" + fmt(v.exploitability_pct, 3) + "%)"}));
    const note = r.cancelled ?
      `Cancelled after ${count(r.iterations)} of ${count(r.requested_iterations)} iterations (${count(r.total_iterations)} in all); the ${r.locks.length} lock(s) stay set. Reload the file to drop them.` :
      `${count(r.iterations)} more iterations (${count(r.total_iterations)} in all); ${r.locks.length} lock(s) set. Changes stay in memory; the file is not written.`;
    out.replaceChildren(
      el("table", {id: "lock-table"}, el("thead", {}, el("tr", {}, ["", "EV OOP (root)", "EV IP (root)", "EV OOP here", "EV IP here", "exploitability (locked game)"].map((h) => el("th", {text: h})))),
        el("tbody", {}, rowsOf("before", r.before), r.after ? rowsOf("after", r.after) : null)),
      el("p", {class: "muted", id: "lock-note", text: note}),
      el("button", {id: "lock-show", onclick: () => render(), text: "show the node again"}));
  };
  const send = async (url, body) => {
    out.replaceChildren(el("p", {class: "spinner", text: "re-solving …"}));
    try {
      await followJob(await api(url, body), out, show);
    } catch (e) { out.replaceChildren(); showError(e.message); }
  };
  return el("div", {class: "panel", id: "lock-panel"}, el("h3", {text: "Node locking: fix " + ["OOP", "IP"][node.player] + "'s strategy here"}),
    here.length ? el("p", {class: "locked", text: "Locked here: " + here.map((k) => (k.hands || "all hands") + " → " +
      Object.entries(k.strategy).map(([a, p]) => a + " " + pct(p)).join(", ")).join("; ")}) : null,
    info.modified ? el("p", {class: "muted", text: "This spot was changed in memory (locks or re-solves)."}) : null,
    el("div", {class: "row"}, hands, labels.map((l, i) => el("label", {}, l + " ", inputs[i])), el("label", {}, "iterations ", iters)),
    el("div", {class: "row"},
      el("button", {class: "primary", id: "lock-go", text: "lock and re-solve", onclick: () => {
        const strategy = {};
        inputs.forEach((x) => { strategy[x.dataset.action] = Number(x.value); });
        send("/api/lock", {path, line: line.join(","), strategy, hands: hands.value.trim() || null, iterations: Number(iters.value)});
      }}),
      el("button", {id: "unlock-go", text: "unlock this node and re-solve", disabled: !here.length, onclick: () =>
        send("/api/unlock", {path, line: line.join(","), iterations: Number(iters.value)})}),
      el("button", {id: "reset-go", text: "reload the file (drop changes)", onclick: async () => {
        try { await api("/api/reset", {path}); render(); } catch (e) { showError(e.message); }
      }})),
    out);
}

/* ---- no-limit blueprint: the chart of the seat to act at a line -------------------------------- */

async function renderBlueprint(main, info, params, token) {
  const text = params.line || "";
  const goLine = (line) => go("/file", {path: params.path, line});
  const box = el("input", {id: "bp-line", value: text, size: 40, placeholder: "e.g. r2.5bb, c / c  (empty: the root)"});
  const form = el("form", {class: "row", id: "bp-form", onsubmit: (e) => { e.preventDefault(); goLine(box.value.trim()); }},
    el("label", {}, "line ", box), el("button", {class: "primary", id: "bp-go", type: "submit", text: "show"}),
    el("span", {class: "muted", text: "r<chips> or r<N>bb (raise to), c (check or call), f (fold), a (all-in), / (street), as pokerlab blueprint show --line"}));
  const head = el("div", {class: "panel", id: "bp-head"}, form);
  if (info.game_params.players === 2) {
    head.appendChild(el("div", {class: "row", id: "bp-play"},
      info.positions.map((p, seat) => el("a", {href: "#/play?" + q({path: params.path, seat}), "data-seat": seat, text: "play as " + p})),
      info.game_params.rounds === 4 ? info.positions.map((p, seat) => el("a", {href: "#/play?" + q({path: params.path, seat, search: 1}),
        "data-seat": seat, "data-search": 1, text: `play as ${p} against it with search`})) : null));
  }
  main.appendChild(head);
  let node;
  try {
    node = await api("/api/blueprint?" + q({path: params.path, line: text}));
  } catch (e) {
    if (token !== renderToken) return;
    showError(e.message);
    head.appendChild(el("p", {id: "bp-bad", class: "err", text: "This line is not in the blueprint: fix it above or go back to the root."}));
    head.appendChild(el("a", {href: "#", onclick: (ev) => { ev.preventDefault(); goLine(""); }, text: "the root"}));
    return;
  }
  if (token !== renderToken) return;
  const toks = node.tokens;
  head.insertBefore(el("div", {class: "crumbs", id: "breadcrumbs"},
    el("a", {href: "#", "data-depth": 0, class: toks.length === 0 ? "current" : "", text: "root",
             onclick: (e) => { e.preventDefault(); goLine(""); }}),
    toks.map((t, i) => [el("span", {class: "sep", text: "›"}),
      el("a", {href: "#", "data-depth": i + 1, class: i === toks.length - 1 ? "current" : "", text: t,
               onclick: (e) => { e.preventDefault(); goLine(toks.slice(0, i + 1).join(", ")); }})])), form);
  head.appendChild(el("div", {class: "kv", id: "node-summary"},
    el("span", {}, "to act: ", el("b", {id: "bp-position", text: `${node.position} (seat ${node.seat})`})),
    el("span", {}, "street: ", el("b", {id: "bp-street", text: node.street})),
    el("span", {}, "pot: ", el("b", {id: "node-pot", text: count(node.pot)})),
    el("span", {}, "to call: ", el("b", {text: count(node.to_call)})),
    el("span", {}, "tree line: ", el("b", {text: node.history || "(root)"}))));
  const colors = actionColors(node.short.map((s) => (s === "a" ? "allin" : s)));
  const words = node.words;
  const follow = (i) => goLine([...toks, node.actions[i]].join(", "));
  const acts = el("div", {class: "actions", id: "bp-actions"}, el("h3", {text: node.position + " actions" + (node.totals ? " (share of every combo of the deck)" : "")}),
    words.map((w, i) => el("div", {class: "action" + (node.next[i] ? "" : " end"), "data-label": node.actions[i],
      "data-freq": node.totals ? node.totals[i] : null, title: node.next[i] ? "follow this action" : "this action ends the hand",
      onclick: node.next[i] ? () => follow(i) : null},
      el("i", {class: "swatch", style: "background:" + colors[i]}), el("span", {text: w}),
      node.totals ? el("div", {class: "bar"}, el("div", {style: `width:${(100 * node.totals[i]).toFixed(1)}%;background:${colors[i]}`})) : el("span"),
      el("span", {class: "freq num", text: node.totals ? pct(node.totals[i]) : (node.next[i] ? "›" : "end")}))));
  if (!node.grid) {  // after the flop: buckets, not hand classes (as the CLI prints)
    const names = Object.keys(node.states);
    const table = el("table", {id: "bp-states"}, el("thead", {}, el("tr", {}, el("th", {text: "bucket"}), words.map((w) => el("th", {class: "num", text: w})))),
      el("tbody", {}, names.map((n) => el("tr", {"data-state": n}, el("td", {class: "num", text: n}),
        node.states[n].map((p, i) => el("td", {class: "num", "data-action": node.actions[i], text: pct(p)}))))));
    main.appendChild(el("div", {class: "row"}, el("div", {class: "panel", id: "bp-postflop"},
      el("h3", {text: `After the flop the private states are card-abstraction buckets, not hand classes: ${node.position}'s action probabilities per bucket`}),
      names.length < node.states_total ? el("p", {class: "muted", text: `the first ${count(names.length)} of ${count(node.states_total)} buckets`}) : null,
      legend(words, colors), el("div", {class: "scroll"}, table)), el("div", {class: "side"}, acts)));
    return;
  }
  const detail = el("div", {class: "panel", id: "cell-detail"}, el("p", {class: "muted", text: "Hover over a hand for its action probabilities; click it to keep it here."}));
  const showHand = (hand, cell) => {
    const mix = JSON.parse(cell.dataset.mix || "null");
    detail.replaceChildren(el("h3", {text: `${node.position} ${hand}`}), mix ?
      el("table", {id: "hand-table"}, el("tbody", {}, words.map((w, i) => el("tr", {"data-action": node.actions[i]},
        el("td", {}, el("i", {class: "swatch", style: "background:" + colors[i]}), " " + w), el("td", {class: "num", text: pct(mix[i], 2)}))))) :
      el("p", {class: "muted", text: "Not in this deck (" + info.game_params.ranks + " ranks)."}));
  };
  const mixGrid = handGrid((r, c, id) => {
    const mix = node.grid[id];
    if (!mix) return {background: "transparent", title: className(r, c) + ": not in this deck", data: {mix: "null"}};
    const ends = mixEnds(mix, colors);
    return {background: mixGradient(mix, colors), ink: inkOn(ends[0]), valInk: inkOn(ends[1]),
      title: className(r, c) + ": " + words.map((w, k) => w + " " + pct(mix[k])).join(", "), data: {mix: JSON.stringify(mix)}};
  }, (hand, cell) => showHand(hand, cell), false, info.game_params.ranks);
  mixGrid.id = "bp-grid";
  main.appendChild(el("div", {class: "row"},
    el("div", {class: "panel"}, el("h3", {text: `${node.position} (seat ${node.seat}) on the ${node.street}: strategy per hand`}),
      legend(words, colors), mixGrid, el("p", {class: "muted", text: "Colours: each hand's action mix, left to right in the legend's order."})),
    el("div", {class: "side"}, acts, detail)));
  // one frequency chart per action (the numbers in the cells: blank = never, as the CLI's grids)
  main.appendChild(el("div", {class: "row", id: "bp-freqs"}, words.map((w, i) => {
    const rgb = colors[i].match(/[0-9a-f]{2}/gi).map((h) => parseInt(h, 16)).join(",");
    const g = handGrid((r, c, id) => {
      const mix = node.grid[id];
      if (!mix) return {background: "transparent", title: className(r, c) + ": not in this deck"};
      const f = mix[i];
      const background = f > 0 ? `rgba(${rgb},${(0.1 + 0.9 * f).toFixed(3)})` : "transparent";
      return {background, ink: inkOn(background), valInk: inkOn(background), label: f >= 0.005 ? pct(f, 0) : (f > 0 ? "<1%" : ""),
        title: className(r, c) + ": " + w + " " + pct(f, 2), data: {value: f}};
    }, null, false, info.game_params.ranks);
    g.id = "bp-freq-" + i;
    g.classList.add("compact");
    return el("div", {class: "panel"}, el("h3", {text: w + ": frequency"}), g);
  })));
}

/* ---- convergence curves (inline SVG) ---------------------------------------------------------- */

const CURVE_COLORS = ["#2457c5", "#d64531", "#46a35a", "#8e44ad", "#e8743b", "#0f766e", "#7d0f23"];

/* Round tick positions covering [lo, hi]: about `count` steps of 1, 2, 2.5 or 5 times a power of 10. */
function niceTicks(lo, hi, count) {
  const raw = (hi - lo) / count;
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((st) => st >= raw) || 10 * mag;
  const first = Math.floor(lo / step + 1e-9) * step, last = Math.ceil(hi / step - 1e-9) * step;
  const ticks = [];
  for (let v = first; v <= last + step / 2; v += step) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

function tickLabel(v) {
  const a = Math.abs(v);
  if (a === 0) return "0";
  if (a >= 1e6 || a < 1e-3) {
    const e = Math.floor(Math.log10(a) + 1e-9), m = v / Math.pow(10, e);
    return (Math.abs(m - 1) < 1e-9 ? "" : Number(m.toPrecision(3)) + "×") + "1e" + e;
  }
  return Number(v.toPrecision(4)).toLocaleString("en-US", {maximumFractionDigits: 6});
}

/* Exploitability (log scale) against x for each series {name, x, y}: an inline SVG.
   opts: xLabel, yLabel, logX. */
function plotSVG(series, opts) {
  const W = 660, H = 380, L = 64, R = 34, T = 14, B = 46;
  const pts = series.map((s) => s.x.map((x, i) => [x, s.y[i]]).filter(([x, y]) =>
    x !== null && x !== undefined && y !== null && y > 0 && (!opts.logX || x > 0)));
  const all = pts.flat();
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("width", W); svg.setAttribute("height", H); svg.setAttribute("class", "plot");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  const add = (tag, attrs, text) => {
    const n = document.createElementNS("http://www.w3.org/2000/svg", tag);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
    if (text !== undefined) n.textContent = text;
    svg.appendChild(n);
    return n;
  };
  add("rect", {x: 0, y: 0, width: W, height: H, fill: "#fff"});
  if (!all.length) { add("text", {x: W / 2, y: H / 2, "text-anchor": "middle"}, "no exploitability measured"); return svg; }
  // x: powers of ten (log) or round steps (linear) spanning the data
  const xs = all.map((p) => p[0]);
  let xTicks;
  if (opts.logX) {
    const e0 = Math.floor(Math.log10(Math.min(...xs))), e1 = Math.max(e0 + 1, Math.ceil(Math.log10(Math.max(...xs))));
    const every = Math.ceil((e1 - e0) / 8);
    xTicks = [];
    for (let e = e0; e <= e1; e += every) xTicks.push(Math.pow(10, e));
  } else {
    const lo = Math.min(...xs), hi = Math.max(...xs);
    xTicks = niceTicks(lo >= 0 && lo <= 0.25 * hi ? 0 : lo, hi > lo ? hi : lo + 1, 5);
  }
  const tx = (v) => opts.logX ? Math.log10(v) : v;
  const x0 = tx(xTicks[0]), x1 = tx(xTicks[xTicks.length - 1]);
  const y0 = Math.floor(Math.log10(Math.min(...all.map((p) => p[1])))),
        y1 = Math.max(y0 + 1, Math.ceil(Math.log10(Math.max(...all.map((p) => p[1])))));
  const sx = (v) => L + (tx(v) - x0) / (x1 - x0) * (W - L - R);
  const sy = (v) => T + (y1 - Math.log10(v)) / (y1 - y0) * (H - T - B);
  const yEvery = Math.ceil((y1 - y0) / 8);
  for (let e = y0; e <= y1; e += yEvery) {
    const y = sy(Math.pow(10, e));
    add("line", {x1: L, x2: W - R, y1: y, y2: y, stroke: "#e3e6eb"});
    add("text", {x: L - 6, y: y + 4, "text-anchor": "end", class: "tick"}, "1e" + e);
  }
  for (const v of xTicks) {
    const x = sx(v);
    add("line", {x1: x, x2: x, y1: T, y2: H - B, stroke: "#f0f2f5"});
    add("text", {x, y: H - B + 16, "text-anchor": "middle", class: "tick"}, opts.logX ? tickLabel(v) : tickLabel(v));
  }
  add("rect", {x: L, y: T, width: W - L - R, height: H - T - B, fill: "none", stroke: "#9aa3af"});
  add("text", {x: (L + W - R) / 2, y: H - 8, "text-anchor": "middle"}, opts.xLabel);
  add("text", {x: 14, y: (T + H - B) / 2, "text-anchor": "middle", transform: `rotate(-90 14 ${(T + H - B) / 2})`}, opts.yLabel);
  const named = [];
  pts.forEach((p, k) => {
    if (!p.length) return;
    const color = CURVE_COLORS[k % CURVE_COLORS.length];
    const d = p.map(([x, y], i) => (i ? "L" : "M") + sx(x).toFixed(1) + " " + sy(y).toFixed(1)).join(" ");
    add("path", {d, fill: "none", stroke: color, "stroke-width": 2, class: "curve", "data-name": series[k].name});
    named.push([series[k].name, color]);
  });
  // legend at the top right, inside the frame, on a white box so that curves do not cross it
  const longest = Math.max(...named.map(([n]) => n.length));
  const boxW = 30 + 6.5 * longest, boxH = 6 + 16 * named.length;
  add("rect", {x: W - R - boxW - 6, y: T + 6, width: boxW, height: boxH, fill: "#fff", stroke: "#d9dde3", class: "legend-box"});
  named.forEach(([name, color], k) => {
    const y = T + 6 + 14 + 16 * k;
    add("line", {x1: W - R - boxW, x2: W - R - boxW + 16, y1: y - 4, y2: y - 4, stroke: color, "stroke-width": 3});
    add("text", {x: W - R - boxW + 22, y, style: "fill:" + color, class: "legend-name"}, name);
  });
  return svg;
}

function renderCurves(main, info) {
  const panel = el("div", {class: "panel", id: "curves"});
  const axes = info.source === "compare" ?
    [["nodes_touched", "nodes touched", true], ["seconds", "seconds", true]] :
    [["iterations", "iterations", false], ["seconds", "seconds", false]];
  const charts = el("div", {class: "row"});
  panel.appendChild(charts);
  for (const [key, label, logX] of axes) {
    const chart = el("div", {class: "chart"}, el("h3", {text: "exploitability against " + label}));
    charts.appendChild(chart);
    chart.appendChild(plotSVG(info.curves.map((c) => ({name: c.algorithm + (c.complete ? "" : " (partial)"), x: c[key], y: c.exploitability})),
      {xLabel: label + (logX ? " (log scale)" : ""), yLabel: `exploitability (${info.unit || "chips"}, log scale)`, logX}));
  }
  const table = el("table", {id: "curve-table"}, el("thead", {}, el("tr", {}, ["algorithm", "points", "iterations", "nodes touched", "seconds", "final exploitability"].map((h) => el("th", {text: h})))),
    el("tbody", {}, info.curves.map((c) => {
      const last = (a) => a.length ? a[a.length - 1] : null;
      const ex = c.exploitability.filter((x) => x !== null);
      return el("tr", {}, el("td", {text: c.algorithm}), el("td", {class: "num", text: c.exploitability.filter((x) => x !== null).length}),
        el("td", {class: "num", text: count(last(c.iterations))}), el("td", {class: "num", text: count(last(c.nodes_touched))}),
        el("td", {class: "num", text: fmt(last(c.seconds), 3)}), el("td", {class: "num final", text: sci(ex.length ? ex[ex.length - 1] : null)}));
    })));
  panel.appendChild(table);
  main.appendChild(panel);
}

/* ---- play ------------------------------------------------------------------------------------- */

let playState = null;

async function renderPlay(main, params, token) {
  main.replaceChildren(el("p", {class: "spinner", text: "Dealing …"}));
  const seat = Number(params.seat || 0);
  const body = {path: params.path, seat};
  if (params.seed !== undefined) body.seed = Number(params.seed);
  if (params.search === "1") {  // a no-limit blueprint that searches in play
    body.search = true;
    if (params.streets) body.search_streets = params.streets;
    if (params.iterations !== undefined) body.search_iterations = Number(params.iterations);
    if (params.gadget) body.search_gadget = params.gadget;
    if (params.seconds !== undefined) body.search_seconds = Number(params.seconds);
    const opts = {};  // the agent's other settings (docs/search.md): #/play?...&depth=preflop
    if (params.depth) opts.depth = params.depth;
    if (params.continuations) opts.continuations = params.continuations === "self" ? "self" : Number(params.continuations);
    if (params.deal_sample) opts.deal_sample = params.deal_sample.split(",").map(Number);
    if (params.deal_draws !== undefined) opts.deal_draws = Number(params.deal_draws);
    if (params.preflop_far !== undefined) opts.preflop_far = Number(params.preflop_far);
    if (Object.keys(opts).length) body.search_options = opts;
  }
  const state = await api("/api/play", body);
  if (token !== renderToken) return;
  playState = state;
  drawPlay(main, state);
}

const ACTION_NAMES = {f: "fold", c: "check / call", r: "bet / raise", p: "pass", b: "bet", s: "shove"};

function drawPlay(main, s) {
  if (s.game === "nolimit-holdem") return drawNoLimit(main, s);
  const other = 1 - s.seat;
  const head = el("div", {class: "panel"},
    el("h2", {}, el("a", {href: "#/", text: "files"}), " / ", el("a", {href: "#/file?" + q({path: s.file}), text: s.file}), " / play"),
    el("div", {class: "kv"},
      el("span", {}, "you: ", el("b", {id: "play-seat", text: s.seat_name})),
      s.stack_bb !== undefined ? el("span", {}, "stacks: ", el("b", {text: s.stack_bb + " bb"})) : null,
      el("span", {}, "hands: ", el("b", {id: "play-hands", text: s.hands})),
      el("span", {}, "running result: ", el("b", {id: "play-total", text: fmt(s.total, 2) + " " + s.unit})),
      el("a", {href: "#/play?" + q({path: s.file, seat: other}), id: "switch-seat", text: "switch seat"})));
  const cards = el("div", {class: "panel big-cards"},
    el("div", {class: "row"},
      el("div", {}, el("h3", {text: "your cards"}), el("div", {id: "your-cards"}, s.your_cards.map((c) => cardEl(c)))),
      el("div", {}, el("h3", {text: "board"}), el("div", {id: "board"}, s.board.length ? s.board.map((c) => cardEl(c)) : el("span", {class: "muted", text: "—"}))),
      el("div", {}, el("h3", {text: "bot (" + s.bot_seat_name + ")"}), el("div", {id: "bot-cards"},
        s.bot_cards ? s.bot_cards.map((c) => cardEl(c)) : [cardEl("?"), s.game === "pushfold" || s.game === "postflop" ? cardEl("?") : null])),
      s.pot !== undefined ? el("div", {}, el("h3", {text: "pot"}), el("div", {class: "pot", id: "play-pot", text: String(s.pot)})) : null));
  const log = el("ol", {class: "play-log", id: "play-log"}, s.history.map((h) =>
    el("li", {text: (h.who === "dealer" ? "dealt " : h.who + ": ") + (ACTION_NAMES[h.action] && s.game !== "pushfold" && s.game !== "postflop" ? ACTION_NAMES[h.action] + " (" + h.action + ")" : h.action)})));
  const act = async (url, body) => {
    try {
      const next = await api(url, body);
      playState = next;
      drawPlay(main, next);
    } catch (e) { showError(e.message); }
  };
  const controls = el("div", {class: "panel", id: "play-controls"});
  if (s.done) {
    controls.appendChild(el("p", {id: "play-result", "data-result": s.result, "data-showdown": s.showdown ? "1" : "0",
      text: s.message + ". " + (Math.abs(s.result) < 5e-7 ? "You broke even." :
        `You ${s.result > 0 ? "won" : "lost"} ${fmt(Math.abs(s.result), 2)} ${s.unit}.`)}));
    controls.appendChild(el("button", {class: "primary", id: "play-next", text: "next hand",
      onclick: () => act(`/api/play/${s.id}/next`, {})}));
  } else {
    controls.appendChild(el("h3", {text: "your move"}));
    controls.appendChild(el("div", {class: "row", id: "play-actions"}, s.legal.map((a) =>
      el("button", {"data-action": a, text: s.game === "pushfold" || s.game === "postflop" ? a : (ACTION_NAMES[a] ? `${ACTION_NAMES[a]} (${a})` : a),
        onclick: () => act(`/api/play/${s.id}/act`, {action: a})}))));
  }
  main.replaceChildren(head, cards, controls, el("div", {class: "panel"}, el("h3", {text: "this hand"}), log));
}

/* no-limit hold'em against a blueprint: buttons for fold / check / call / all-in, a box for any
   raise-to amount (chips; 2.5bb and 75% work too, as in pokerlab blueprint play) */
const signed = (x, digits) => (x < 0 ? "-" : "+") + Math.abs(x).toLocaleString("en-US", {maximumFractionDigits: digits});

function drawNoLimit(main, s) {
  const params = parseHash().params;
  const again = (seat) => "#/play?" + q({path: s.file, seat, search: s.search ? 1 : null,
    streets: s.search ? params.streets : null, iterations: s.search ? params.iterations : null,
    gadget: s.search ? params.gadget : null, seconds: s.search ? params.seconds : null});
  const head = el("div", {class: "panel"},
    el("h2", {}, el("a", {href: "#/", text: "files"}), " / ", el("a", {href: "#/file?" + q({path: s.file}), text: s.file}), " / play"),
    el("div", {class: "kv"},
      el("span", {}, "you: ", el("b", {id: "play-seat", text: s.seat_name})),
      el("span", {}, "stacks: ", el("b", {text: `${count(s.stacks[0])} / ${count(s.stacks[1])} chips, blinds ${s.blinds.join("/")}`})),
      el("span", {}, "bot: ", el("b", {id: "play-bot", text: s.bot + (s.search ? ` (searches the ${s.search.streets.join(", ")}, ${count(s.search.iterations)} iterations${s.search.seconds ? " (" + Object.entries(s.search.seconds).map(([k, v]) => `${v} s on the ${k}`).join(", ") + " instead)" : ""}${s.search.gadget && s.search.gadget !== "unsafe" ? ", " + s.search.gadget + " gadget" : ""})` : " (blueprint)")})),
      el("span", {}, "hands: ", el("b", {id: "play-hands", text: s.hands})),
      el("span", {}, "running result: ", el("b", {id: "play-total", "data-chips": s.total, text: `${signed(s.total, 2)} chips (${signed(s.total_bb, 3)} bb)`})),
      el("span", {}, "seed: ", el("b", {id: "play-seed", text: String(s.seed)})),
      el("a", {href: again(1 - s.seat), id: "switch-seat", text: "switch seat"})));
  const cards = el("div", {class: "panel big-cards"},
    el("div", {class: "row"},
      el("div", {}, el("h3", {text: "your cards"}), el("div", {id: "your-cards"}, s.your_cards.map((c) => cardEl(c)))),
      el("div", {}, el("h3", {text: "board (" + s.street + ")"}), el("div", {id: "board"}, s.board.length ? s.board.map((c) => cardEl(c)) : el("span", {class: "muted", text: "—"}))),
      el("div", {}, el("h3", {text: "bot (" + s.bot_seat_name + ")"}), el("div", {id: "bot-cards"},
        s.bot_cards ? s.bot_cards.map((c) => cardEl(c)) : [cardEl("?"), cardEl("?")])),
      el("div", {}, el("h3", {text: "pot"}), el("div", {class: "pot", id: "play-pot", text: count(s.pot)})),
      el("div", {}, el("h3", {text: "behind"}), el("div", {class: "pot", id: "play-behind", text: `you ${count(s.behind[0])} · bot ${count(s.behind[1])}`}))));
  const log = el("ol", {class: "play-log", id: "play-log"}, s.history.map((h) =>
    el("li", {"data-who": h.who, "data-kind": h.kind || null, "data-amount": h.amount === undefined ? null : h.amount,
      "data-search": h.search ? h.search.iterations : null},
      h.who === "dealer" ? "dealt " + h.action : h.who + ": " + h.action,
      h.search ? el("span", {class: "muted think", text: ` (${h.search.text})`}) : null,
      h.note ? el("span", {class: "muted", text: ` (${h.note})`}) : null)));
  const act = async (url, body) => {
    try {
      const next = await api(url, body);
      showError(null);  // a refused amount's message goes once a move is played
      playState = next;
      drawPlay(main, next);
    } catch (e) { showError(e.message); }
  };
  const controls = el("div", {class: "panel", id: "play-controls"});
  if (s.done) {
    controls.appendChild(el("p", {id: "play-result", "data-result": s.result, "data-showdown": s.showdown ? "1" : "0",
      text: s.message + ". " + (s.result === 0 ? "You broke even." :
        `You ${s.result > 0 ? "won" : "lost"} ${count(Math.abs(s.result))} chips (${signed(s.result_bb, 3)} bb).`)}));
    controls.appendChild(el("button", {class: "primary", id: "play-next", text: "next hand",
      onclick: () => act(`/api/play/${s.id}/next`, {})}));
  } else {
    const words = {fold: "fold", check: "check", call: `call ${count(s.to_call)}`, "all-in": s.raise ? `all-in (${count(s.raise.max)})` : "all-in"};
    controls.appendChild(el("h3", {text: "your move" + (s.to_call ? ` (${count(s.to_call)} to call)` : "")}));
    const row = el("div", {class: "row", id: "play-actions"}, s.legal.map((a) =>
      el("button", {"data-action": a, text: words[a] || a, onclick: () => act(`/api/play/${s.id}/act`, {action: a})})));
    if (s.raise) {
      const box = el("input", {id: "play-amount", size: 10, value: s.raise.min, title: "raise to this many chips (the street total); 2.5bb or 75% work too"});
      row.appendChild(el("form", {class: "row", id: "play-raise", onsubmit: (e) => {
        e.preventDefault();
        act(`/api/play/${s.id}/act`, {action: (s.raise.word === "bet" ? "bet " : "raise ") + box.value.trim()});
      }}, el("label", {}, s.raise.word + " ", box, " chips"), el("button", {class: "primary", id: "play-raise-go", type: "submit", text: s.raise.word}),
        el("span", {class: "muted", text: `${count(s.raise.min)} to ${count(s.raise.max)}`})));
    }
    controls.appendChild(row);
    controls.appendChild(el("p", {class: "muted", id: "play-legal", text: "legal: " + s.legal_text}));
  }
  main.replaceChildren(head, cards, controls, el("div", {class: "panel"}, el("h3", {text: "this hand"}), log));
}
