"use strict";
// David & Goliath: the trick, the last trick explained, the own hand (click a card to play it), the table.

function dgCard(name, opts = {}) {
  const attrs = {class: `card ${name[0]}${opts.small ? " small" : ""}`, title: name};
  if (opts.onclick) return h("button", {...attrs, "data-card": name, disabled: opts.disabled, onclick: opts.onclick}, name);
  return h("span", attrs, name);
}

GAMES.david_goliath = {
  ownsMoves: true,
  howto: {
    goal: "the most points after three rounds: each card you take scores, and the lowest card of a trick (the Goliath) goes to another player.",
    turn: ["The leader plays any card; the others follow the colour led if they can.",
      "The highest card of the colour led takes the trick; the lowest card in it, the Goliath, goes to the player who played it.",
      "Click a highlighted card in your hand to play it."],
  },
  prompt: () => "click a card in your hand",
  render(frame, play) {
    const v = frame.view;
    const byName = new Map(frame.legal.map((a) => [a.label, a.id]));
    const hand = v.hand && v.hand.length ? h("section", {id: "hand"}, h("h2", {}, "Your hand"),
      v.hand.map((name) => dgCard(name, {disabled: !byName.has(name), onclick: () => play(byName.get(name))}))) : null;
    const trick = h("section", {id: "trick"}, h("h2", {}, `Round ${v.round}/${v.rounds}, trick ${v.trick_number}/${v.tricks}`),
      h("p", {}, "Trick: ", v.trick.length ? v.trick.map((t) => h("span", {}, `${seatName(frame, t.seat)} `, dgCard(t.card), " ")) : h("span", {class: "muted"}, "empty")),
      v.last_trick ? h("p", {class: "muted"}, "Last trick: ", v.last_trick.cards.map((t) => h("span", {}, `${seatName(frame, t.seat)} `, dgCard(t.card, {small: true}), " ")),
        `: ${seatName(frame, v.last_trick.winner)} takes it, ${seatName(frame, v.last_trick.goliath_taker)} takes the Goliath`) : null);
    const rows = v.seats.map((s) => h("tr", {class: [frame.to_move === s.seat ? "to-move" : "", s.seat === frame.seat ? "you" : ""].join(" ")},
      h("td", {}, seatLabel(frame, s.seat, s.name)), h("td", {}, s.total ?? "-"), h("td", {}, s.round_points),
      h("td", {}, s.hand_size), h("td", {}, s.taken.map((c) => dgCard(c, {small: true}))), h("td", {}, s.voids.join(", ")),
      s.hand ? h("td", {}, s.hand.map((c) => dgCard(c, {small: true}))) : null));
    const table = h("section", {}, h("h2", {}, "Table"), h("table", {},
      h("tr", {}, ["seat", "total", "this round", "cards", "taken this round", "void in", ...(v.seats[0].hand ? ["hand"] : [])].map((t) => h("th", {}, t))), rows));
    return [trick, hand, table];
  },
};
