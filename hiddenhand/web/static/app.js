"use strict";
// hiddenhand web client: lobby, seat page (long-polling the seat's view) and replays. No build step.

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
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
const moneyText = (counts) => Object.entries(counts || {}).map(([d, k]) => `${d}×${k}`).join(" ") || "nothing";
const nCards = (n) => `${n} card${n === 1 ? "" : "s"}`;

async function api(method, url, body) {
  const response = await fetch(url, {
    method, headers: body ? {"Content-Type": "application/json"} : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const data = await response.json().catch(() => ({error: response.statusText}));
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

// ------------------------------------------------------------------ lobby
async function lobby() {
  const catalog = await api("GET", "/api/catalog");
  const gameSelect = h("select", {id: "game"}, catalog.games.map((g) => h("option", {value: g.name}, g.title)));
  const playersSelect = h("select", {id: "players"});
  const seatsBox = h("div", {id: "seats"});
  const seedInput = h("input", {id: "seed", type: "number", min: 0, placeholder: "random"});
  const message = h("p", {class: "error", id: "message"});
  const links = h("div", {id: "links"});
  const game = () => catalog.games.find((g) => g.name === gameSelect.value);

  function fillPlayers() {
    const g = game();
    playersSelect.replaceChildren(...g.player_counts.map((n) => h("option", {value: n, selected: n === g.default_players}, n)));
    fillSeats();
  }
  function fillSeats() {
    const agents = game().agents[playersSelect.value];
    seatsBox.replaceChildren(...Array.from({length: Number(playersSelect.value)}, (_, i) => {
      const spec = h("input", {class: "spec", id: `spec-${i}`, placeholder: catalog.search_example, hidden: true});
      const select = h("select", {class: "seat", id: `seat-${i}`, onchange: () => { spec.hidden = select.value !== "custom"; }},
        ["human", ...agents].map((name) => h("option", {value: name, selected: i === 0 ? name === "human" : name === "heuristic"}, name)),
        h("option", {value: "custom"}, "search agent with options…"));
      return h("div", {}, h("label", {}, `player_${i}: `), select, " ", spec);
    }));
  }
  gameSelect.addEventListener("change", fillPlayers);
  playersSelect.addEventListener("change", fillSeats);

  async function start() {
    message.textContent = "";
    const seats = [...seatsBox.querySelectorAll("select.seat")].map((s, i) => s.value === "custom" ? document.getElementById(`spec-${i}`).value.trim() : s.value);
    const body = {game: gameSelect.value, players: Number(playersSelect.value), seats};
    if (seedInput.value !== "") body.seed = Number(seedInput.value);
    try {
      const created = await api("POST", "/api/games", body);
      links.replaceChildren(h("h2", {}, "Seat links (each is secret: send one per person)"),
        h("ul", {class: "links"}, created.seats.filter((s) => s.url).map((s) =>
          h("li", {}, h("a", {href: s.url, id: `link-${s.seat}`}, `Play as player_${s.seat}`), " ",
            h("code", {}, location.origin + s.url)))));
    } catch (error) { message.textContent = error.message; }
  }
  $main().replaceChildren(h("section", {},
    h("h2", {}, "New game"),
    h("p", {}, h("label", {}, "Game: "), gameSelect, " ", h("label", {}, "Players: "), playersSelect),
    seatsBox,
    h("p", {class: "muted"}, `Search agents take options, e.g. ${catalog.search_example}: choose "search agent with options…".`),
    h("p", {}, h("label", {}, "Seed: "), seedInput),
    h("button", {class: "primary", id: "start", onclick: start}, "Start game"), message), links);
  fillPlayers();
}

// ------------------------------------------------------------------ table views
const seatLabel = (frame, seat, name) => name + (seat === frame.seat ? " (you)" : frame.seats[seat] ? ` (${frame.seats[seat].player})` : "");
const seatName = (frame, seat) => (seat === null || seat === undefined) ? "-" :
  (frame.seats[seat] ? frame.seats[seat].name : (seat === frame.num_players ? "dummy" : `seat ${seat}`));

function card(name, opts = {}) {
  const attrs = {class: `card ${name[0]}${opts.small ? " small" : ""}`, title: name};
  if (opts.onclick) return h("button", {...attrs, "data-card": name, disabled: opts.disabled, onclick: opts.onclick}, name);
  return h("span", attrs, name);
}

function moneyList(counts) {
  const entries = Object.entries(counts || {});
  if (!entries.length) return h("span", {class: "muted"}, "none");
  return h("span", {}, entries.map(([d, k]) => h("span", {class: "money"}, `${d}×${k}`)));
}

function dgView(frame, play) {
  const v = frame.view;
  const byName = new Map(frame.legal.map((a) => [a.label, a.id]));
  const hand = v.hand ? h("section", {id: "hand"}, h("h2", {}, "Your hand"),
    v.hand.map((name) => card(name, {disabled: !byName.has(name), onclick: () => play(byName.get(name))}))) : null;
  const trick = h("section", {id: "trick"}, h("h2", {}, `Round ${v.round}/${v.rounds}, trick ${v.trick_number}/${v.tricks}`),
    h("p", {}, "Trick: ", v.trick.length ? v.trick.map((t) => h("span", {}, `${seatName(frame, t.seat)} `, card(t.card), " ")) : h("span", {class: "muted"}, "empty")),
    v.last_trick ? h("p", {class: "muted"}, "Last trick: ", v.last_trick.cards.map((t) => h("span", {}, `${seatName(frame, t.seat)} `, card(t.card, {small: true}), " ")),
      `→ ${seatName(frame, v.last_trick.winner)} takes it, ${seatName(frame, v.last_trick.goliath_taker)} takes the Goliath`) : null);
  const rows = v.seats.map((s) => h("tr", {class: [frame.to_move === s.seat ? "to-move" : "", s.seat === frame.seat ? "you" : ""].join(" ")},
    h("td", {}, seatLabel(frame, s.seat, s.name)), h("td", {}, s.total ?? "-"), h("td", {}, s.round_points),
    h("td", {}, s.hand_size), h("td", {}, s.taken.map((c) => card(c, {small: true}))), h("td", {}, s.voids.join(", ")),
    s.hand ? h("td", {}, s.hand.map((c) => card(c, {small: true}))) : null));
  const table = h("section", {}, h("h2", {}, "Table"), h("table", {},
    h("tr", {}, ["seat", "total", "this round", "cards", "taken this round", "void in", ...(v.seats[0].hand ? ["hand"] : [])].map((t) => h("th", {}, t))), rows));
  return [trick, hand, table];
}

function khView(frame) {
  const v = frame.view;
  const out = [];
  const mine = v.hand ? h("section", {id: "money"}, h("h2", {}, "Your money"), moneyList(v.hand), ` cash ${v.cash}`,
    v.selection ? h("p", {}, "Selected so far: ", moneyList(v.selection), v.target !== null && v.target !== undefined ? ` (target ${v.target})` : "") : null,
    v.pending_raise ? h("p", {}, `Your raise so far: +${v.pending_raise}`) : null,
    v.looked_card ? h("p", {}, `You look at: ${v.looked_card}`) : null) : null;
  out.push(h("section", {}, h("h2", {}, `Turn ${v.turn} (${v.phase}), deck ${v.deck_size} cards, donkeys ${v.donkeys}`),
    h("p", {}, `On turn: ${seatName(frame, v.turn_player)}`, v.decision ? ` — decision: ${v.decision} by ${seatName(frame, frame.to_move)}` : "")));
  if (mine) out.push(mine);
  if (v.auction) {
    const a = v.auction;
    out.push(h("section", {id: "auction"}, h("h2", {}, `Auction of ${a.card} by ${seatName(frame, a.auctioneer)}`),
      h("p", {}, `High bid ${a.high}`, a.high_bidder !== null ? ` by ${seatName(frame, a.high_bidder)}` : "", `, passes ${a.passes}`),
      a.pedigree ? h("p", {}, `Pedigree: your commitment ${a.pedigree.own_commitment ?? "-"}`, a.pedigree.count ? `, ${a.pedigree.count} cards, won by ${seatName(frame, a.pedigree.winner)}` : "") : null,
      a.rat_pot ? h("p", {}, "Rat pot, cards laid: ", a.rat_pot.cards_per_seat.map((k, i) => `${seatName(frame, i)} ${k}`).join(", "), a.rat_pot.own ? [" — yours: ", moneyList(a.rat_pot.own)] : null) : null));
  }
  if (v.trade) {
    const t = v.trade;
    out.push(h("section", {id: "trade"}, h("h2", {}, `Cow trade: ${seatName(frame, t.challenger)} challenges ${seatName(frame, t.challenged)} for ${t.species} (stake ${t.stake}, round ${t.round})`),
      t.offer_face_down ? h("p", {}, "Offer: ", h("span", {class: "facedown", id: "offer-facedown"}, `${nCards(t.offer_face_down.cards)} face down`),
        t.offer_face_down.money ? [" (yours: ", moneyList(t.offer_face_down.money), ")"] : null) : h("p", {class: "muted"}, "No offer on the table yet"),
      t.rounds.map((r, i) => h("p", {class: "muted"}, `Round ${i + 1}: ${r.response || ""} ${r.result ? `→ ${r.result} (${r.offer_cards} vs ${nCards(r.counter_cards)})` : ""}`))));
  }
  const rows = v.seats.map((s) => h("tr", {class: [frame.to_move === s.seat ? "to-move" : "", s.seat === frame.seat ? "you" : ""].join(" ")},
    h("td", {}, seatLabel(frame, s.seat, s.name)), h("td", {}, s.money_cards),
    h("td", {}, Object.entries(s.animals).map(([sp, k]) => `${sp}×${k}`).join(", ") || "-"),
    h("td", {}, s.pedigrees.join(", ") || "-"), h("td", {}, s.highest_bid || ""),
    s.hand ? h("td", {}, moneyList(s.hand), ` = ${s.cash}`) : null));
  out.push(h("section", {}, h("h2", {}, "Table"), h("table", {},
    h("tr", {}, ["seat", "money cards", "animals", "pedigrees", "bid on this card", ...(v.seats[0].hand ? ["hand"] : [])].map((t) => h("th", {}, t))), rows)));
  out.push(h("section", {id: "events"}, h("h2", {}, "Recent events"), v.events.length ? h("ul", {}, v.events.map((e) => h("li", {}, describeEvent(frame, e)))) : h("p", {class: "muted"}, "none yet")));
  return out;
}

function describeEvent(frame, e) {
  const who = (s) => seatName(frame, s);
  if (e.kind === "auction" || e.kind === "pedigree")
    return `Turn ${e.turn}: ${e.card} auctioned by ${who(e.auctioneer)} → ${who(e.owner)}` +
      (e.winner !== null ? ` (${e.kind === "auction" ? `price ${e.price}` : nCards(e.count)}, ${e.decision}; paid with ${nCards(e.payment_cards)}${e.payment ? ": " + moneyText(e.payment) : ""})` : "");
  if (e.kind === "rat") return `Turn ${e.turn}: rat auction by ${who(e.auctioneer)}, pot taken by ${who(e.taker)}`;
  if (e.kind === "trade")
    return `Turn ${e.turn}: cow trade ${who(e.challenger)} vs ${who(e.challenged)} for ${e.species} ×${e.stake}: ${who(e.winner)} wins; ` +
      e.rounds.map((r) => `${r.response} (${r.offer_cards} vs ${nCards(r.counter_cards)}${r.offer ? `: ${moneyText(r.offer)} vs ${moneyText(r.counter)}` : ""})`).join(", then ");
  if (e.kind === "distribution") return `Turn ${e.turn}: ${who(e.distributor)} ${e.decision}s ${e.x} (→ ${who(e.x_to)})` + (e.y ? `, ${e.y} → ${who(e.y_to)}` : "");
  return JSON.stringify(e);
}

function textView(frame) {
  const v = frame.view;
  return [h("section", {}, h("h2", {}, "Table"), h("pre", {id: "state-text"}, v.text)),
    ...(v.seats || []).map((text, i) => h("section", {}, h("h2", {}, `As player_${i} sees it`), h("pre", {}, text)))];
}

function renderFrame(frame, play, extra) {
  const views = {david_goliath: dgView, koehandel: khView, text: textView};
  const finished = frame.status === "finished";
  const you = frame.seat !== null && frame.seat !== undefined ? ` — you are ${seatName(frame, frame.seat)}` : "";
  let status = finished ? "Game over. " + Object.entries(frame.result.scores).map(([p, s]) => `${p} ${s}`).join(", ") +
    ` — winners: ${frame.result.winners.join(", ") || "none"}` : frame.your_turn ? "Your move" : `Waiting for ${seatName(frame, frame.to_move)}`;
  const actions = frame.legal.length ? h("section", {id: "actions"}, h("h2", {}, "Your move"),
    frame.legal.map((a) => h("button", {"data-action": a.id, onclick: () => play(a.id)}, a.label))) : null;
  const log = h("section", {}, h("h2", {}, "Moves seen at the table"), h("div", {class: "log"},
    frame.log.slice().reverse().map((e) => h("div", {}, `${e.step}. ${seatName(frame, e.seat)}: ${e.text}`))));
  document.getElementById("subtitle").textContent = `${frame.title}, ${frame.num_players} players${you}`;
  $main().replaceChildren(...(extra || []),
    h("section", {}, h("span", {class: "status", id: "status", "data-status": frame.status, "data-step": frame.step}, status),
      frame.error ? h("p", {class: "error"}, frame.error) : null, h("p", {class: "error", id: "move-error"})),
    h("div", {class: "grid"}, h("div", {}, ...(views[frame.view.kind] || textView)(frame, play), actions), h("div", {}, log)));
}

// ------------------------------------------------------------------ seat page
async function seatPage(token) {
  let frame = null;
  let busy = false;
  async function play(action) {
    if (busy) return;
    busy = true;
    try { frame = await api("POST", `/api/seat/${token}/move`, {action}); draw(); }
    catch (error) { document.getElementById("move-error").textContent = error.message; }
    finally { busy = false; }
  }
  function draw() {
    const extra = frame.status === "finished" ? [h("section", {}, h("a", {href: `/replay?token=${encodeURIComponent(token)}`, id: "replay-link"}, "Replay this game step by step"))] : [];
    renderFrame(frame, play, extra);
  }
  for (;;) {
    try {
      const query = frame ? `?after=${frame.version}&wait=20` : "";
      const next = await api("GET", `/api/seat/${token}${query}`);
      if (!frame || next.version !== frame.version || next.status !== frame.status || next.error !== frame.error) { frame = next; draw(); }
      if (frame.status === "finished" || frame.error) return;
    } catch (error) {
      $main().replaceChildren(h("section", {}, h("p", {class: "error"}, error.message)));
      return;
    }
  }
}

// ------------------------------------------------------------------ replays
async function replayPage(params) {
  let step = Number(params.get("step") || 0);
  let spectator = params.get("spectator") === "1";
  const token = params.get("token");
  async function load() {
    const url = token ? `/api/seat/${token}/replay?step=${step}&spectator=${spectator}`
      : `/api/records/${encodeURIComponent(params.get("file"))}/${Number(params.get("game") || 0)}?step=${step}` + (spectator ? "" : `&seat=${Number(params.get("seat") || 0)}`);
    const frame = await api("GET", url);
    const steps = frame.replay.steps;
    const go = (k) => { step = Math.max(0, Math.min(steps, k)); load(); };
    const controls = h("section", {id: "replay-controls"}, h("h2", {}, `Replay: step ${step} of ${steps}`),
      h("button", {onclick: () => go(0)}, "⏮ start"), h("button", {onclick: () => go(step - 1), id: "prev"}, "◀ back"),
      h("button", {onclick: () => go(step + 1), id: "next"}, "next ▶"), h("button", {onclick: () => go(steps), id: "end"}, "end ⏭"),
      h("input", {type: "range", min: 0, max: steps, value: step, onchange: (e) => go(Number(e.target.value))}),
      h("label", {}, h("input", {type: "checkbox", id: "spectator", checked: spectator, onchange: (e) => { spectator = e.target.checked; load(); }}), " show all hands"));
    renderFrame(frame, () => {}, [controls]);
    document.getElementById("status").textContent = frame.status === "finished" ? document.getElementById("status").textContent : `Step ${step}: ${seatName(frame, frame.to_move)} to move`;
  }
  try { await load(); } catch (error) { $main().replaceChildren(h("section", {}, h("p", {class: "error"}, error.message))); }
}

async function recordsPage() {
  const data = await api("GET", "/api/records");
  $main().replaceChildren(h("section", {}, h("h2", {}, "Recorded games"), h("ul", {}, data.files.map((f) =>
    h("li", {}, `${f.file}: ${f.game}, ${f.num_players} players, `, ...Array.from({length: Math.min(f.games, 50)}, (_, i) =>
      h("a", {href: `/replay?file=${encodeURIComponent(f.file)}&game=${i}&spectator=1`}, ` #${i}`)))))));
}

const path = location.pathname;
const params = new URLSearchParams(location.search);
if (path.startsWith("/play/")) seatPage(decodeURIComponent(path.slice(6)));
else if (path === "/replay" && (params.has("token") || params.has("file"))) replayPage(params);
else if (path === "/replay") recordsPage();
else lobby();
