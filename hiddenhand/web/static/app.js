"use strict";
// hiddenhand web client, shared parts: DOM helper, API calls, the frame around every game's view.
// Each game's view is in static/games/<game>.js and registers itself in GAMES; pages.js routes. No build step.

const GAMES = {};  // game name -> {render(frame, play, ui) -> nodes, ownsMoves, prompt(frame), howto}
const COLOURS = ["#c0392b", "#2e6bb5", "#27864a", "#d4a017", "#7d3c98", "#e67e22"];

function h(tag, attrs, ...children) {
  const svg = ["svg", "g", "circle", "rect", "line", "text", "title", "path", "polygon"].includes(tag);
  const el = svg ? document.createElementNS("http://www.w3.org/2000/svg", tag) : document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (value !== null && value !== undefined && value !== false) el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined && child !== false)
      el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}
const $main = () => document.getElementById("main");
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
const nCards = (n) => plural(n, "card");

async function api(method, url, body) {
  let response;
  try {
    response = await fetch(url, {
      method, headers: body ? {"Content-Type": "application/json"} : {},
      body: body ? JSON.stringify(body) : undefined,
    });
  } catch (error) {
    throw Object.assign(new Error("the server cannot be reached"), {status: 0});
  }
  const data = await response.json().catch(() => ({error: response.statusText}));
  if (!response.ok) throw Object.assign(new Error(data.error || response.statusText), {status: response.status});
  return data;
}

const seatName = (frame, seat) => (seat === null || seat === undefined) ? "-" :
  (frame.seats[seat] ? frame.seats[seat].name : (seat === frame.num_players ? "dummy" : `seat ${seat}`));
const seatLabel = (frame, seat, name) => (name || seatName(frame, seat)) +
  (seat === frame.seat ? " (you)" : frame.seats[seat] ? ` (${frame.seats[seat].player})` : "");
const swatch = (seat) => h("span", {class: "swatch", style: `background:${COLOURS[seat % COLOURS.length]}`, "aria-hidden": "true"});

// A clickable element that keyboard users reach with Tab and press with Enter or Space.
function pressable(attrs, onpress) {
  return Object.assign({}, attrs, {tabindex: 0, role: "button", onclick: onpress,
    onkeydown: (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); e.stopPropagation(); onpress(e); } }});
}

function howtoPanel(frame) {
  const game = GAMES[frame.game];
  if (!game || !game.howto) return null;
  const how = game.howto;
  return h("details", {id: "howto", class: "howto"}, h("summary", {}, `How to play ${frame.title}`),
    h("p", {}, h("strong", {}, "Goal: "), how.goal),
    h("ol", {}, how.turn.map((line) => h("li", {}, line))),
    h("p", {}, h("a", {href: `/docs/${frame.game}_rules.md`, target: "_blank"}, "The full rules as this server plays them")));
}

function resultText(frame) {
  const scores = Object.entries(frame.result.scores).map(([p, s]) => `${p} ${Math.round(s * 100) / 100}`).join(", ");
  return `Game over. Scores: ${scores}. Winner${frame.result.winners.length === 1 ? "" : "s"}: ${frame.result.winners.join(", ") || "nobody"}`;
}

function renderFrame(frame, play, extra, ui) {
  const game = GAMES[frame.game] || GAMES.text;
  const view = GAMES[frame.view.kind] || GAMES.text;
  const finished = frame.status === "finished";
  const you = frame.seat !== null && frame.seat !== undefined ? ` — you are ${seatName(frame, frame.seat)}` : "";
  const status = finished ? resultText(frame) : frame.your_turn
    ? `Your move: ${(view.prompt && view.prompt(frame, ui)) || "choose one of the moves below"}`
    : `Waiting for ${seatName(frame, frame.to_move)}`;
  const actions = !view.ownsMoves && frame.legal.length ? h("section", {id: "actions"}, h("h2", {}, "Your moves"),
    frame.legal.map((a) => h("button", {"data-action": a.id, onclick: () => play(a.id)}, a.label))) : null;
  const log = h("section", {id: "log"}, h("h2", {}, "Moves seen at the table"), h("div", {class: "log", tabindex: 0},
    frame.log.length ? frame.log.slice().reverse().map((e) => h("div", {}, `${e.step}. ${seatName(frame, e.seat)} ${e.text}`))
      : h("span", {class: "muted"}, "none yet")));
  document.getElementById("subtitle").textContent = `${frame.title}, ${frame.num_players} players${you}`;
  $main().replaceChildren(...(extra || []),
    h("section", {class: `banner${frame.your_turn ? " mine" : ""}`, "aria-live": "polite"},
      h("span", {class: "status", id: "status", "data-status": frame.status, "data-step": frame.step}, status),
      frame.error ? h("p", {class: "error"}, frame.error) : null, h("p", {class: "error", id: "move-error", role: "alert"})),
    h("div", {class: "grid"}, h("div", {}, ...view.render(frame, play, ui || {}), actions),
      h("div", {}, howtoPanel(frame), log)));
}

GAMES.text = {
  render(frame) {
    const v = frame.view;
    return [h("section", {}, h("h2", {}, "Table"), h("pre", {id: "state-text"}, v.text)),
      ...(v.seats || []).map((text, i) => h("section", {}, h("h2", {}, `As player_${i} sees it`), h("pre", {}, text)))];
  },
};
