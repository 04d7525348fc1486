"use strict";
// The pages: lobby (/), a seat (/play/<token>), replays (/replay?token=… or ?file=…&game=…) and the records list.

async function lobby() {
  const catalog = await api("GET", "/api/catalog");
  const gameSelect = h("select", {id: "game"}, catalog.games.map((g) => h("option", {value: g.name}, g.title)));
  const playersSelect = h("select", {id: "players"});
  const seatsBox = h("div", {id: "seats"});
  const seedInput = h("input", {id: "seed", type: "number", min: 0, placeholder: "random"});
  const message = h("p", {class: "error", id: "message", role: "alert"});
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
      const spec = h("input", {class: "spec", id: `spec-${i}`, placeholder: catalog.search_example, hidden: true, "aria-label": `player_${i} search agent`});
      const select = h("select", {class: "seat", id: `seat-${i}`, onchange: () => { spec.hidden = select.value !== "custom"; }},
        ["human", ...agents].map((name) => h("option", {value: name, selected: i === 0 ? name === "human" : name === "heuristic"}, name)),
        h("option", {value: "custom"}, "search agent with options..."));
      return h("div", {}, h("label", {for: `seat-${i}`}, `player_${i}: `), select, " ", spec);
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
      links.replaceChildren(h("section", {}, h("h2", {}, "Seat links (each is secret: send one per person)"),
        h("ul", {class: "links"}, created.seats.filter((s) => s.url).map((s) =>
          h("li", {}, h("a", {href: s.url, id: `link-${s.seat}`}, `Play as player_${s.seat}`), " ",
            h("code", {}, location.origin + s.url))))));
    } catch (error) { message.textContent = error.message; }
  }
  $main().replaceChildren(h("section", {},
    h("h2", {}, "New game"),
    h("p", {}, h("label", {for: "game"}, "Game: "), gameSelect, " ", h("label", {for: "players"}, "Players: "), playersSelect),
    seatsBox,
    h("p", {class: "muted"}, `Search agents take options, e.g. ${catalog.search_example}: choose "search agent with options...".`),
    h("p", {}, h("label", {for: "seed"}, "Seed: "), seedInput),
    h("button", {class: "primary", id: "start", onclick: start}, "Start game"), message), links,
    h("section", {}, h("a", {href: "/replay"}, "Finished games and saved records")));
  fillPlayers();
}

// A seat: long-polls its frame; survives a server restart (it keeps asking until the server answers again).
async function seatPage(token) {
  let frame = null;
  let busy = false;
  const ui = {};  // the view's own state between redraws (a guided move in progress)
  async function play(action) {
    if (busy) return;
    busy = true;
    try { frame = await api("POST", `/api/seat/${token}/move`, {action}); draw(); }
    catch (error) { document.getElementById("move-error").textContent = error.message; }
    finally { busy = false; }
  }
  function draw() {
    if (ui.step !== frame.step) { for (const key of Object.keys(ui)) delete ui[key]; ui.step = frame.step; }
    const extra = frame.status === "finished" ? [h("section", {}, h("a", {href: `/replay?token=${encodeURIComponent(token)}`, id: "replay-link"}, "Replay this game step by step"))] : [];
    renderFrame(frame, play, extra, Object.assign(ui, {redraw: draw}));
  }
  for (;;) {
    try {
      const query = frame ? `?after=${frame.version}&wait=20` : "";
      const next = await api("GET", `/api/seat/${token}${query}`);
      document.body.classList.remove("offline");
      if (!frame || next.version !== frame.version || next.status !== frame.status || next.error !== frame.error) { frame = next; draw(); }
      if (frame.status === "finished" || frame.error) return;
    } catch (error) {
      if (error.status && error.status < 500) {
        $main().replaceChildren(h("section", {}, h("p", {class: "error"}, error.message)));
        return;
      }
      document.body.classList.add("offline");  // the server restarts: ask again in a moment
      const status = document.getElementById("status");
      if (status) status.textContent = "Connection to the server lost; reconnecting...";
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

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
      h("button", {onclick: () => go(0), id: "first"}, "|< start"), h("button", {onclick: () => go(step - 1), id: "prev"}, "< back"),
      h("button", {onclick: () => go(step + 1), id: "next"}, "next >"), h("button", {onclick: () => go(steps), id: "end"}, "end >|"),
      h("input", {type: "range", min: 0, max: steps, value: step, "aria-label": "step", onchange: (e) => go(Number(e.target.value))}),
      h("label", {}, h("input", {type: "checkbox", id: "spectator", checked: spectator, onchange: (e) => { spectator = e.target.checked; load(); }}), " show all hands"));
    renderFrame(frame, () => {}, [controls]);
    if (frame.status !== "finished") document.getElementById("status").textContent = `Step ${step}: ${seatName(frame, frame.to_move)} to move`;
  }
  try { await load(); } catch (error) { $main().replaceChildren(h("section", {}, h("p", {class: "error"}, error.message))); }
}

async function recordsPage() {
  const data = await api("GET", "/api/records");
  $main().replaceChildren(h("section", {}, h("h2", {}, "Finished and recorded games"), data.files.length ? h("ul", {}, data.files.map((f) =>
    h("li", {}, `${f.file}: ${f.game}, ${f.num_players} players, `, ...Array.from({length: Math.min(f.games, 50)}, (_, i) =>
      h("a", {href: `/replay?file=${encodeURIComponent(f.file)}&game=${i}&spectator=1`}, ` #${i}`))))) : h("p", {class: "muted"}, "none yet")));
}

const path = location.pathname;
const params = new URLSearchParams(location.search);
if (path.startsWith("/play/")) seatPage(decodeURIComponent(path.slice(6)));
else if (path === "/replay" && (params.has("token") || params.has("file"))) replayPage(params);
else if (path === "/replay") recordsPage();
else lobby();
