"use strict";
// Koehandel Master: money, the auction (with the bid being built), the cow trade with its face-down offer,
// the table and the settled events as this seat saw them.

const moneyText = (counts) => Object.entries(counts || {}).map(([d, k]) => `${k} x ${d}`).join(", ") || "nothing";

function moneyList(counts) {
  const entries = Object.entries(counts || {});
  if (!entries.length) return h("span", {class: "muted"}, "none");
  return h("span", {}, entries.map(([d, k]) => h("span", {class: "money"}, `${k} x ${d}`)));
}

function khBidPanel(frame) {
  const v = frame.view, a = v.auction;
  if (!a || v.pending_raise === undefined || !frame.your_turn || v.decision !== "bid") return null;
  const high = a.high_bidder !== null ? `${a.high} by ${seatName(frame, a.high_bidder)}` : "none yet";
  if (!v.pending_raise) return h("p", {id: "bid-state"}, `High bid: ${high}. Raise it (each button adds to your bid) or pass.`);
  const more = frame.legal.some((m) => m.label.startsWith("raise")) ? "raise further or place it" : "your money allows no higher bid: place it";
  return h("p", {id: "bid-state"}, `Your bid so far: ${a.high + v.pending_raise} (high bid: ${high}, you add ${v.pending_raise}); ${more}.`);
}

function describeEvent(frame, e) {
  const who = (s) => seatName(frame, s);
  if (e.kind === "auction" || e.kind === "pedigree")
    return `Turn ${e.turn}: ${e.card} auctioned by ${who(e.auctioneer)}, goes to ${who(e.owner)}` +
      (e.winner !== null ? ` (${e.kind === "auction" ? `price ${e.price}` : nCards(e.count)}, ${e.decision}; paid with ${nCards(e.payment_cards)}${e.payment ? ": " + moneyText(e.payment) : ""})` : "");
  if (e.kind === "rat") return `Turn ${e.turn}: rat auction by ${who(e.auctioneer)}, pot taken by ${who(e.taker)}`;
  if (e.kind === "trade")
    return `Turn ${e.turn}: cow trade ${who(e.challenger)} against ${who(e.challenged)} for ${plural(e.stake, e.species)}: ${who(e.winner)} wins; ` +
      e.rounds.map((r) => `${r.response} (${nCards(r.offer_cards)} against ${nCards(r.counter_cards)}${r.offer ? `: ${moneyText(r.offer)} against ${moneyText(r.counter)}` : ""})`).join(", then ");
  if (e.kind === "distribution") return `Turn ${e.turn}: ${who(e.distributor)} ${e.decision === "keep" ? "keeps" : "gives away"} ${e.x} (to ${who(e.x_to)})` + (e.y ? `, ${e.y} to ${who(e.y_to)}` : "");
  return e.kind;
}

GAMES.koehandel = {
  howto: {
    goal: "the highest score: each complete set of four animals scores its value times the number of sets you own.",
    turn: ["On your turn, auction the top card of the deck or challenge a player to a cow trade for an animal you both have.",
      "In an auction the others bid; you may sell to the highest bidder or buy the card yourself for that price.",
      "In a cow trade both lay money face down; the higher offer takes the animals, and the money changes hands."],
  },
  render(frame) {
    const v = frame.view;
    const out = [];
    out.push(h("section", {}, h("h2", {}, `Turn ${v.turn} (${v.phase}), deck ${nCards(v.deck_size)}, donkeys ${v.donkeys}`),
      h("p", {}, `On turn: ${seatName(frame, v.turn_player)}`, v.decision ? `; now: ${v.decision} by ${seatName(frame, frame.to_move)}` : "")));
    if (v.hand) out.push(h("section", {id: "money"}, h("h2", {}, "Your money"), moneyList(v.hand), ` (${v.cash} in all)`,
      v.selection ? h("p", {}, "Chosen so far: ", moneyList(v.selection), v.target !== null && v.target !== undefined ? ` (to reach ${v.target})` : "") : null,
      khBidPanel(frame), v.looked_card ? h("p", {}, `You look at: ${v.looked_card}`) : null));
    if (v.auction) {
      const a = v.auction;
      out.push(h("section", {id: "auction"}, h("h2", {}, `Auction of ${a.card} by ${seatName(frame, a.auctioneer)}`),
        h("p", {}, `High bid ${a.high}`, a.high_bidder !== null ? ` by ${seatName(frame, a.high_bidder)}` : " (none yet)", `, ${plural(a.passes, "pass")}`),
        a.pedigree ? h("p", {}, `Pedigree: your commitment ${a.pedigree.own_commitment ?? "-"}`, a.pedigree.count ? `, ${nCards(a.pedigree.count)}, won by ${seatName(frame, a.pedigree.winner)}` : "") : null,
        a.rat_pot ? h("p", {}, "Rat pot, cards laid: ", a.rat_pot.cards_per_seat.map((k, i) => `${seatName(frame, i)} ${k}`).join(", "), a.rat_pot.own ? [" (yours: ", moneyList(a.rat_pot.own), ")"] : null) : null));
    }
    if (v.trade) {
      const t = v.trade;
      out.push(h("section", {id: "trade"}, h("h2", {}, `Cow trade: ${seatName(frame, t.challenger)} challenges ${seatName(frame, t.challenged)} for ${t.species} (${t.stake} at stake, round ${t.round})`),
        t.offer_face_down ? h("p", {}, "Offer: ", h("span", {class: "facedown", id: "offer-facedown"}, `${nCards(t.offer_face_down.cards)} face down`),
          t.offer_face_down.money ? [" (yours: ", moneyList(t.offer_face_down.money), ")"] : null) : h("p", {class: "muted"}, "No offer on the table yet"),
        t.rounds.map((r, i) => h("p", {class: "muted"}, `Round ${i + 1}: ${r.response || ""} ${r.result ? `: ${r.result} (${nCards(r.offer_cards)} against ${nCards(r.counter_cards)})` : ""}`))));
    }
    const rows = v.seats.map((s) => h("tr", {class: [frame.to_move === s.seat ? "to-move" : "", s.seat === frame.seat ? "you" : ""].join(" ")},
      h("td", {}, seatLabel(frame, s.seat, s.name)), h("td", {}, s.money_cards),
      h("td", {}, Object.entries(s.animals).map(([sp, k]) => `${k} ${sp}`).join(", ") || "-"),
      h("td", {}, s.pedigrees.join(", ") || "-"), h("td", {}, s.highest_bid || ""),
      s.hand ? h("td", {}, moneyList(s.hand), ` = ${s.cash}`) : null));
    out.push(h("section", {}, h("h2", {}, "Table"), h("table", {},
      h("tr", {}, ["seat", "money cards", "animals", "pedigrees", "bid on this card", ...(v.seats[0].hand ? ["money"] : [])].map((t) => h("th", {}, t))), rows)));
    out.push(h("section", {id: "events"}, h("h2", {}, "Recent events"), v.events.length ? h("ul", {}, v.events.map((e) => h("li", {}, describeEvent(frame, e)))) : h("p", {class: "muted"}, "none yet")));
    return out;
  },
};
