"use strict";
// Rattus Cartus: the building row as cards (actions, entrants, committed cards face down until revealed),
// the nun row, the players' rats, hands, influence; the decision on the table as a question in words.

const RC_CLASSES = ["peasantry", "bourgeoisie", "church", "knighthood", "magic", "royalty"];
const rcCap = (word) => word[0].toUpperCase() + word.slice(1);

function rcCardName(card) {
  return card.nuns === null ? rcCap(card.type) : `${rcCap(card.type)} ${card.nuns} nun${card.nuns === 1 ? "" : "s"}`;
}
function rcCard(card, extra = {}) {
  const count = card.count > 1 ? ` x${card.count}` : "";
  const attrs = {class: `rc-card ${card.type}`, title: rcCardName(card)};
  if (extra.move) return h("button", {...attrs, "data-action": extra.move.id, title: extra.move.label, onclick: extra.onclick}, rcCardName(card) + count);
  return h("span", attrs, rcCardName(card) + count);
}
const rcBack = (n, label) => h("span", {class: "rc-back", title: label || "face down"}, n > 1 ? `${n} face down` : "face down");

function rcBuilding(frame, play, b) {
  const v = frame.view;
  const move = frame.legal.find((a) => a.move.kind === "slot" && a.move.slot === b.slot);
  const entrants = b.entrants.length ? h("ul", {class: "entrants"}, b.entrants.map((e, i) => h("li", {},
    `${i + 1}. `, swatch(e.seat), ` ${seatLabel(frame, e.seat)}: `,
    e.cards ? (e.cards.length ? e.cards.map((c) => rcCard(c)) : h("span", {class: "muted"}, "no cards"))
      : e.committed ? rcBack(e.committed, `${nCards(e.committed)} face down`) : h("span", {class: "muted"}, "no cards yet"),
    e.cards && e.seat === frame.seat && e.committed && !e.done ? " (yours, face down to the others)" : ""))) : h("p", {class: "muted"}, "nobody entered yet");
  const body = [h("h3", {}, `${b.slot + 1}. ${b.title}`, h("span", {class: "muted"}, ` (${b.class}, copy ${b.copy})`)),
    h("p", {}, h("strong", {}, "Supply: "), b.supply, b.supplied.length ? h("span", {class: "muted"}, ` (used by ${b.supplied.map((s) => seatName(frame, s)).join(", ")})`) : ""),
    h("p", {}, h("strong", {}, "Most cards: "), b.special), h("p", {}, h("strong", {}, "Others: "), b.normal),
    entrants, move ? h("p", {class: "effect"}, `Click: ${move.label}`) : null];
  const attrs = {class: `building ${b.class}${move ? " target" : ""}${b.resolving ? " resolving" : ""}`, "data-slot": b.slot, "aria-label": `${b.title}${move ? `: ${move.label}` : ""}`};
  return h("div", move ? pressable(attrs, () => play(move.id)) : attrs, ...body);
}

function rcNunRow(frame, play) {
  const v = frame.view;
  return h("section", {id: "nuns"}, h("h2", {}, "Nun row (face down; the plague kills whoever holds more rats than its nuns)"),
    h("div", {class: "nun-row"}, v.nun_row.map((nun) => {
      const move = frame.legal.find((a) => a.move.kind === "position" && a.move.position === nun.position);
      const looks = nun.looks.map((k, s) => [k, s]).filter(([k]) => k).map(([k, s]) => `${seatName(frame, s)} ${k}x`).join(", ");
      const attrs = {class: `nun${move ? " target" : ""}`, "data-position": nun.position, "aria-label": `nun card ${nun.position + 1}${move ? `: ${move.label}` : ""}`};
      const body = [h("strong", {}, `${nun.position + 1}`), nun.card ? rcCard(nun.card) : rcBack(1),
        h("span", {class: "muted"}, looks ? `looked at: ${looks}` : "nobody looked")];
      return h("div", move ? pressable(attrs, () => play(move.id)) : attrs, ...body);
    })));
}

function rcYou(frame, play) {
  const you = frame.view.you;
  if (!you) return null;
  const cardMoves = frame.legal.filter((a) => a.move.kind === "card");
  const moveFor = (c) => cardMoves.find((a) => a.move.type === c.type && (a.move.nuns === null || a.move.nuns === c.nuns));
  const hand = you.hand.length ? you.hand.map((c) => { const move = moveFor(c); return rcCard(c, move ? {move, onclick: () => play(move.id)} : {}); })
    : h("span", {class: "muted"}, "no cards");
  return h("section", {id: "hand"}, h("h2", {}, "Your cards"), h("div", {}, hand),
    you.pending.length ? h("p", {}, "Pending (join your hand when this building is done): ", you.pending.map((c) => rcCard(c))) : null,
    you.committed.length ? h("p", {}, "Committed face down: ", you.committed.map((c) => rcCard(c))) : null,
    you.token_values ? h("p", {}, `Your point tokens: ${you.token_values.join(", ") || "none"}`) : null);
}

function rcQuestion(frame, play) {
  const d = frame.view.decision;
  if (!d) return null;
  if (!frame.your_turn) return h("section", {id: "question", class: "question"}, h("p", {}, `${seatName(frame, d.seat)} decides: ${d.question}`, d.context ? ` (${d.context})` : ""));
  return h("section", {id: "question", class: "question mine"}, h("h2", {}, d.question), d.context ? h("p", {class: "muted"}, d.context) : null,
    h("div", {id: "choices"}, frame.legal.map((a) => h("button", {"data-action": a.id, onclick: () => play(a.id)}, a.label))));
}

function rcPlayers(frame) {
  const v = frame.view;
  const order = v.influence.filter((c) => c.order.length);
  const head = h("tr", {}, ["player", "rats", "hand", "pending", "point tokens", "Pass played", "in building"].map((t) => h("th", {}, t)),
    RC_CLASSES.map((c) => h("th", {title: `influence in ${c}`}, rcCap(c).slice(0, 4) + ".")));
  const rows = v.players.map((p) => h("tr", {class: [frame.to_move === p.seat ? "to-move" : "", p.seat === frame.seat ? "you" : ""].join(" ")},
    h("td", {}, swatch(p.seat), " ", seatLabel(frame, p.seat), v.start === p.seat ? " (starts)" : "", v.special_player === p.seat ? " (special action)" : ""),
    h("td", {}, p.rats ?? "?"), h("td", {}, p.hand), h("td", {}, p.pending), h("td", {}, p.tokens), h("td", {}, p.passes),
    h("td", {}, p.entered !== null ? v.row[p.entered].title : "-"), p.influence.map((k) => h("td", {}, k || ""))));
  return h("section", {id: "players"}, h("h2", {}, "Players"), h("div", {class: "wide"}, h("table", {}, head, rows)),
    order.length ? h("p", {class: "muted"}, "Influence order per class (ties: who got there first): " +
      order.map((c) => `${rcCap(c.class)}: ${c.order.map((s) => seatName(frame, s)).join(" > ")}`).join("; ")) : null);
}

function rcSupplies(frame) {
  const v = frame.view, s = v.supplies;
  const stock = s ? `jokers ${s.jokers}, Swords ${s.swords}, Flutes ${s.flutes}, Pass ${s.passes}, Gold ${s.gold}, point tokens ${s.point_tokens}` : "jokers, specials and point tokens unlimited";
  return h("section", {id: "supplies"}, h("h2", {}, "Supplies"),
    h("p", {}, `Population deck ${nCards(v.deck)}, discard pile ${nCards(v.discard)}, buildings still to come ${v.building_deck}. ${stock}.`),
    v.hands ? h("div", {}, v.hands.map((hand, seat) => h("p", {}, `${seatName(frame, seat)}'s hand: `, hand.map((c) => rcCard(c))))) : null);
}

function rcResult(frame) {
  const r = frame.view.result;
  if (!r) return null;
  return h("section", {id: "final"}, h("h2", {}, `The plague: the nun row shows ${r.nuns} nuns`), h("ul", {}, r.vp.map((vp, seat) =>
    h("li", {}, `${seatName(frame, seat)}: ${vp} points, ${plural(r.rats[seat], "rat")}, ${r.survived[seat] ? "survived" : "died of the plague"} (${r.outcome[seat].replace("_", " ")})`))));
}

GAMES.rattus_cartus = {
  ownsMoves: true,
  howto: {
    goal: "the most points from influence majorities in the six classes, without holding more rats than the nuns on the five face-down nun cards.",
    turn: ["Each round: use the supply action of one building card (draw cards, lose rats, look at a nun card).",
      "Then enter one building and add cards face down: cards of its class raise your influence, other classes bring rats.",
      "The buildings act in order: most cards gets the strong action, the others the weak one; Swords and Flutes fight there."],
  },
  prompt: (frame) => frame.view.decision ? frame.view.decision.question : "",
  render(frame, play) {
    const v = frame.view;
    const title = v.result ? "Game over" : `Round ${v.round} of ${v.rounds}${v.round === v.rounds ? " (the last: no building actions)" : ""}: ${v.phase}`;
    return [rcQuestion(frame, play), rcResult(frame),
      h("section", {id: "row"}, h("h2", {}, title), v.row.length ? h("div", {class: "buildings"}, v.row.map((b) => rcBuilding(frame, play, b))) : null),
      rcYou(frame, play), rcNunRow(frame, play), rcPlayers(frame), rcSupplies(frame)];
  },
};
