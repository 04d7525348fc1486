"use strict";
// Rattus: the map (SVG, drawn from the game's map data), the class cards, supplies and palace; moves by
// clicking regions, tokens and cards, the abilities as short guided sequences (source, target, count).

const RT_ABILITIES = {  // guided ability uses: the move kind and the choices it asks for, in order
  merchant: {card: "Merchant", fields: ["from", "to", "count"],
    ask: {from: "choose the region to move your cubes from", to: "choose the neighbouring region they go to", count: "how many cubes?"}},
  monk: {card: "Monk", fields: ["from", "slot", "to"],
    ask: {from: "choose the region whose rat token moves", slot: "choose the token (click it on the map)", to: "choose the neighbouring region it goes to"}},
  witch_peek: {card: "Witch", fields: ["region", "slot"], ask: {slot: "click a face-down token to look at it"}},
  king: {card: "King", fields: ["region"], ask: {region: "choose a region without tokens: one of your cubes there goes to the palace"}},
};
const RT_CLICKED = ["place", "place_peasant", "move_plague", "spread"];  // what a click on a region does outside a guided use

function rtRegionName(frame, r) { return frame.view.regions[r].name; }

// The legal moves a guided use may still lead to, given the choices made so far.
function rtCandidates(frame, ui) {
  const kind = ui.guide;
  return frame.legal.filter((a) => a.move.kind === kind &&
    Object.entries(ui.picks || {}).every(([field, value]) => a.move[field] === value));
}
function rtNextField(ui) { return RT_ABILITIES[ui.guide].fields.find((f) => !(f in (ui.picks || {}))); }

function rtPick(frame, play, ui, values) {
  ui.picks = Object.assign({}, ui.picks, values);
  const left = rtCandidates(frame, ui);
  if (left.length === 1 && !rtNextField(ui)) { play(left[0].id); return; }
  ui.redraw();
}

// What clicking region r does now: a list of legal moves (one: it is played; several: a choice is shown).
function rtRegionMoves(frame, ui, r) {
  if (ui.guide) {
    const field = rtNextField(ui);
    if (!["from", "to", "region"].includes(field) || ui.guide === "witch_peek") return [];
    return rtCandidates(frame, ui).filter((a) => a.move[field] === r);
  }
  return frame.legal.filter((a) => RT_CLICKED.includes(a.move.kind) && a.move.region === r);
}
function rtTokenMoves(frame, ui, r, slot) {
  if (ui.guide === "monk" && rtNextField(ui) === "slot") return r === ui.picks.from ? rtCandidates(frame, ui).filter((a) => a.move.slot === slot) : [];
  const peeking = ui.guide === "witch_peek" || frame.legal.every((a) => a.move.kind === "witch_peek");
  return peeking ? frame.legal.filter((a) => a.move.kind === "witch_peek" && a.move.region === r && a.move.slot === slot) : [];
}

function rtClickRegion(frame, play, ui, r) {
  const moves = rtRegionMoves(frame, ui, r);
  if (!moves.length) return;
  if (ui.guide) {
    rtPick(frame, play, ui, {[rtNextField(ui)]: r});
    return;
  }
  if (moves.length === 1) play(moves[0].id);
  else { ui.choice = moves.map((a) => a.id); ui.redraw(); }
}
function rtClickToken(frame, play, ui, r, slot, event) {
  event.stopPropagation();  // the region around it is not clicked too
  if (ui.guide === "monk") { rtPick(frame, play, ui, {slot}); return; }
  const moves = rtTokenMoves(frame, ui, r, slot);
  if (moves.length === 1) play(moves[0].id);
}

function rtToken(frame, play, ui, r, slot, token) {
  const x = -5.4 + slot * 3.7, y = -2.2;
  const moves = rtTokenMoves(frame, ui, r, slot);
  const facts = [token.starting === null ? "face-down token" : token.starting ? "face-down token with the starting mark" : "face-down token"];
  if (token.face) facts.push(`you know its face: ${token.face.text}`);
  if (token.known_by.length) facts.push(`looked at by ${token.known_by.map((s) => seatName(frame, s)).join(", ")}`);
  if (token.swapped_by !== null) facts.push(`swapped here by ${seatName(frame, token.swapped_by)}`);
  const title = `${rtRegionName(frame, r)}, slot ${slot + 1}: ${facts.join("; ")}` + (moves.length ? `. Click: ${moves[0].label}` : "");
  const attrs = {class: `token${token.face ? " known" : ""}${moves.length ? " target" : ""}`, "data-region": r, "data-slot": slot, "aria-label": title};
  const body = [h("title", {}, title), h("rect", {x, y, width: 3.3, height: 3.3, rx: 0.5}),
    h("text", {x: x + 1.65, y: y + 2.4, class: "token-text"}, token.face ? String(token.face.limit) : token.starting ? "S" : "")];
  if (token.known_by.length) body.push(h("circle", {cx: x + 3.1, cy: y + 0.2, r: 0.55, class: "peeked"}));
  return h("g", moves.length ? pressable(attrs, (e) => rtClickToken(frame, play, ui, r, slot, e)) : attrs, ...body);
}

function rtRegion(frame, play, ui, region) {
  const v = frame.view;
  const moves = rtRegionMoves(frame, ui, region.index);
  const cubes = region.cubes.map((k, seat) => [k, seat]).filter(([k]) => k);
  const summary = `${region.name}: ${region.tokens.length ? plural(region.tokens.length, "rat token") : "no rat tokens"}` +
    (cubes.length ? `, cubes ${cubes.map(([k, s]) => `${seatName(frame, s)} ${k}`).join(", ")}` : ", no cubes") +
    (v.plague === region.index ? ", the plague is here" : "");
  const title = summary + (moves.length ? `. Click: ${moves.length === 1 ? moves[0].label : moves.map((a) => a.label).join(" or ")}` : "");
  const attrs = {class: `region${moves.length ? " target" : ""}${v.plague === region.index ? " plague" : ""}${region.in_play ? "" : " out"}`,
    transform: `translate(${region.x} ${region.y})`, "data-region": region.index, "aria-label": title};
  const body = [h("title", {}, title), h("circle", {r: 7.2, class: "land"}), h("text", {y: -8.3, class: "region-name"}, region.name)];
  if (v.plague === region.index) body.push(h("circle", {r: 8.2, class: "plague-ring"}), h("text", {x: 6.8, y: -6.5, class: "plague-mark"}, "plague"));
  region.tokens.forEach((token, slot) => body.push(rtToken(frame, play, ui, region.index, slot, token)));
  cubes.forEach(([k, seat], i) => body.push(h("g", {transform: `translate(${-5.2 + i * 3.5} 2.6)`},
    h("rect", {width: 2.8, height: 2.8, rx: 0.4, fill: COLOURS[seat % COLOURS.length], class: "cube"}),
    h("text", {x: 1.4, y: 2.1, class: "cube-text"}, String(k)))));
  if (!region.in_play) return h("g", attrs, ...body);
  return h("g", moves.length ? pressable(attrs, () => rtClickRegion(frame, play, ui, region.index)) : attrs, ...body);
}

function rtMap(frame, play, ui) {
  const v = frame.view;
  const edges = [];
  for (const region of v.regions) for (const other of region.neighbours) if (other > region.index) {
    const b = v.regions[other];
    edges.push(h("line", {x1: region.x, y1: region.y, x2: b.x, y2: b.y, class: region.in_play && b.in_play ? "edge" : "edge out"}));
  }
  return h("svg", {viewBox: "-3 -6 106 80", class: "map", id: "map", role: "group", "aria-label": "the map"},
    ...edges, ...v.regions.map((region) => rtRegion(frame, play, ui, region)));
}

function rtGuidePanel(frame, play, ui) {
  const buttons = [];
  if (ui.choice) {
    buttons.push(...frame.legal.filter((a) => ui.choice.includes(a.id)).map((a) => h("button", {"data-action": a.id, onclick: () => play(a.id)}, a.label)));
  } else if (ui.guide) {
    const field = rtNextField(ui);
    if (field === "count") {
      buttons.push(...rtCandidates(frame, ui).map((a) => h("button", {"data-action": a.id, onclick: () => play(a.id)}, a.label)));
    }
  } else {
    for (const [kind, ability] of Object.entries(RT_ABILITIES)) {
      if (frame.legal.some((a) => a.move.kind === kind) && !frame.legal.every((a) => a.move.kind === kind))
        buttons.push(h("button", {"data-guide": kind, onclick: () => { ui.guide = kind; ui.picks = {}; ui.redraw(); }}, `use the ${ability.card}`));
    }
    for (const a of frame.legal) if (["end", "knight_stop", "witch_swap", "witch_keep"].includes(a.move.kind))
      buttons.push(h("button", {"data-action": a.id, onclick: () => play(a.id)}, a.label));
  }
  if (ui.guide || ui.choice)
    buttons.push(h("button", {id: "cancel", onclick: () => { delete ui.guide; delete ui.picks; delete ui.choice; ui.redraw(); }}, "cancel"));
  if (!buttons.length) return null;  // the banner says what to click
  return h("section", {id: "moves"}, h("h2", {}, "Your move"), h("p", {id: "prompt"}, GAMES.rattus.prompt(frame, ui)), buttons);
}

function rtPrompt(frame, ui) {
  if (ui.choice) return "choose one:";
  if (ui.guide) {
    const ability = RT_ABILITIES[ui.guide], field = rtNextField(ui), picks = ui.picks || {};
    const done = [picks.from !== undefined ? `from ${rtRegionName(frame, picks.from)}` : "",
      picks.slot !== undefined && ui.guide === "monk" ? `token in slot ${picks.slot + 1}` : "",
      picks.to !== undefined ? `to ${rtRegionName(frame, picks.to)}` : ""].filter(Boolean).join(", ");
    return `${ability.card}${done ? ` (${done})` : ""}: ${ability.ask[field] || "click a highlighted place"}`;
  }
  const kinds = new Set(frame.legal.map((a) => a.move.kind));
  const parts = [];
  if (kinds.has("place") || kinds.has("place_peasant")) parts.push("click a region to place cubes");
  if (kinds.has("take")) parts.push("click a class card to take it");
  if (kinds.has("move_plague")) parts.push("click a neighbouring region to move the plague there");
  if (kinds.has("spread")) parts.push(`click a neighbouring region for the drawn rat token${frame.view.spread ? ` (${plural(frame.view.spread.due, "token")} to place)` : ""}`);
  if (kinds.size === 1 && kinds.has("witch_peek")) parts.push("click a face-down token in another region to look at it");
  if (kinds.has("witch_swap")) parts.push("swap the two tokens you looked at, or leave them");
  if (kinds.has("end") || kinds.has("knight_stop") || [...kinds].some((k) => RT_ABILITIES[k])) parts.push("or use the buttons below the map");
  return parts.join("; ") || "choose below";
}

function rtCards(frame, play, ui) {
  const v = frame.view;
  const takes = new Map(frame.legal.filter((a) => a.move.kind === "take" && !ui.guide).map((a) => [a.move.card, a]));
  return h("section", {id: "cards"}, h("h2", {}, "Class cards"), h("ul", {class: "cards"}, v.cards.map((c, k) => {
    const take = takes.get(k);
    const holder = c.holder === null ? "in the pool" : `held by ${seatLabel(frame, c.holder)}`;
    const line = [h("strong", {}, c.name), ` (${holder}${c.used ? ", used this turn" : ""}): ${c.power.split(": ")[1]}`];
    return h("li", {}, take ? h("button", {"data-card": c.name, "data-action": take.id, title: take.label, onclick: () => play(take.id)}, `take the ${c.name}`) : null, " ", ...line);
  })));
}

function rtPlayers(frame) {
  const v = frame.view;
  const board = (seat) => v.regions.reduce((sum, r) => sum + r.cubes[seat], 0);
  return h("section", {id: "players"}, h("h2", {}, "Players"), h("table", {},
    h("tr", {}, ["player", "cubes in supply", "on the map", "in the palace", "cards"].map((t) => h("th", {}, t))),
    v.supply.map((supply, seat) => h("tr", {class: [v.active === seat ? "to-move" : "", seat === frame.seat ? "you" : ""].join(" ")},
      h("td", {}, swatch(seat), " ", seatLabel(frame, seat)), h("td", {}, supply), h("td", {}, board(seat)), h("td", {}, v.palace[seat]),
      h("td", {}, v.cards.filter((c) => c.holder === seat).map((c) => c.name).join(", ") || "-")))));
}

function rtTokens(frame) {
  const v = frame.view;
  const starting = v.rat_supply_starting !== null ? ` (${v.rat_supply_starting} with the starting mark)` : "";
  return h("section", {id: "tokens"}, h("h2", {}, "Rat tokens"),
    h("p", {}, `${v.rat_supply} in the rat supply${starting}, ${v.removed} removed unseen, ${v.revealed.length} revealed.`),
    v.spread ? h("p", {}, `A rat token was drawn${v.spread.starting ? " (starting mark)" : ""}: ${plural(v.spread.due, "token")} still to place.`) : null,
    v.revealed.length ? h("details", {}, h("summary", {}, "Revealed faces, newest first"),
      h("ul", {}, v.revealed.slice(0, 20).map((f) => h("li", {}, f.text)))) : null);
}

GAMES.rattus = {
  ownsMoves: true,
  howto: {
    goal: "the most cubes (people) on the map and in the palace when the game ends; the plague's rat tokens kill them.",
    turn: ["Take a class card if you like (its power works at once, and so does its risk), then place cubes: click a region to add as many cubes as it has rat tokens.",
      "Use the powers of your cards with the buttons below the map (Merchant, Monk, Witch, King).",
      "End your turn: move the plague to a neighbouring region; new rat tokens spread, then the tokens there are revealed and may kill cubes."],
  },
  prompt: rtPrompt,
  render(frame, play, ui) {
    const v = frame.view;
    const title = v.end ? `Game over: ${v.end.reason}` : `Turn ${v.turn} (up to ${v.max_turns}): ${v.phase}` +
      (v.active !== null ? `, ${seatName(frame, v.active)} on turn` : "");
    const legend = h("p", {class: "muted legend"}, "Rat tokens lie face down in their slots: S = the starting mark, a number = a face you know " +
      "(the cubes it takes to strike), a white dot = someone looked at it. Cubes show each player's count. Hover or focus a region or token for details.");
    const out = [h("section", {id: "board"}, h("h2", {}, title), rtMap(frame, play, ui), legend)];
    if (frame.your_turn) out.splice(1, 0, rtGuidePanel(frame, play, ui));
    out.push(rtCards(frame, play, ui), rtPlayers(frame), rtTokens(frame));
    return out;
  },
};
