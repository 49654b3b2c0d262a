// The start page: choose the game, the players, each seat's agent and a seed, then play; or open a replay.
"use strict";

const $ = (id) => document.getElementById(id);

async function api(method, url, body, type) {
  const options = {method, headers: {}};
  if (body !== undefined) {
    options.body = type === "text" ? body : JSON.stringify(body);
    options.headers["Content-Type"] = type === "text" ? "text/plain" : "application/json";
  }
  const response = await fetch(url, options);
  const doc = await response.json().catch(() => ({error: `the server answered ${response.status}`}));
  if (!response.ok) throw new Error(doc.error || `the server answered ${response.status}`);
  return doc;
}

function fillPlayers() {
  const option = $("game").selectedOptions[0];
  const low = Number(option.dataset.min), high = Number(option.dataset.max), chosen = Number(option.dataset.default);
  $("players").innerHTML = "";
  for (let n = low; n <= high; n++) {
    $("players").add(new Option(String(n), String(n), n === chosen, n === chosen));
  }
}

let asked = 0;  // the latest table asked for: an older answer arriving late is dropped

async function fillSeats() {
  const game = $("game").value, players = Number($("players").value), mode = $("mode").value;
  const mine = ++asked;
  const {agents} = await api("GET", `/api/agents?game=${game}&num_players=${players}&mode=${mode}`);
  if (mine !== asked) return;
  const seats = $("seats");
  seats.querySelectorAll(".seat-row").forEach((row) => row.remove());
  for (let seat = 0; seat < players; seat++) {
    const row = document.createElement("p");
    row.className = "seat-row";
    const select = document.createElement("select");
    select.id = `agent-${seat}`;
    select.name = `agent-${seat}`;
    for (const agent of agents) select.add(new Option(agent.label, agent.spec));
    select.value = seat === 0 ? "human" : "heuristic";
    const option = document.createElement("input");  // the heuristic's tolerance or the search's simulations
    Object.assign(option, {type: "number", id: `option-${seat}`});
    const label = document.createElement("label");
    label.textContent = `player_${seat} `;
    label.append(select);
    row.append(label, " ", option);
    const sync = () => {
      const settings = OPTIONS[select.value];
      option.hidden = !settings;
      if (settings) Object.assign(option, settings, {value: ""});
    };
    select.addEventListener("change", sync);
    sync();
    seats.append(row);
  }
}

const OPTIONS = {
  heuristic: {min: "0", max: "1", step: "0.1", placeholder: "tolerance 0-1", name: "tolerance",
    title: "the heuristic's tolerance of corruption: 0 avoids it, 1 ignores it (empty: the game's default)"},
  ismcts: {min: "1", max: "2000", step: "1", placeholder: "simulations", name: "simulations",
    title: "simulations a decision, 1 to 2000 (empty: the game's search settings)"},
};

function specs() {
  const players = Number($("players").value), out = [];
  for (let seat = 0; seat < players; seat++) {
    let spec = $(`agent-${seat}`).value;
    const option = $(`option-${seat}`);
    if (OPTIONS[spec] && option.value !== "") spec = `${spec}:${OPTIONS[spec].name}=${option.value}`;
    out.push(spec);
  }
  return out;
}

async function play(event) {
  event.preventDefault();
  $("start-error").textContent = "";
  const doc = {game: $("game").value, num_players: Number($("players").value), agents: specs(), mode: $("mode").value};
  if ($("seed").value !== "") doc.seed = Number($("seed").value);
  $("play").disabled = true;
  try {
    const {id, tokens} = await api("POST", "/api/games", doc);
    const pairs = Object.entries(tokens).map(([seat, token]) => `${seat}:${token}`);
    if ($("screen").value === "shared" || pairs.length === 1) {
      window.location.href = `/play/${id}?seats=${pairs.join(",")}`;
      return;
    }
    const list = $("link-list");
    list.innerHTML = "";
    for (const [seat, token] of Object.entries(tokens)) {
      const url = `${window.location.origin}/play/${id}?seat=${seat}&token=${token}`;
      const item = document.createElement("li");
      const link = Object.assign(document.createElement("a"), {href: url, target: "_blank", textContent: url});
      item.append(`player_${seat}: `, link);
      list.append(item);
    }
    $("links").hidden = false;
  } catch (error) {
    $("start-error").textContent = error.message;
  } finally {
    $("play").disabled = false;
  }
}

async function openReplay(body, type) {
  $("replay-error").textContent = "";
  try {
    const {id} = await api("POST", "/api/replays", body, type);
    window.location.href = `/replay/${id}?step=0&seat=full`;
  } catch (error) {
    $("replay-error").textContent = error.message;
  }
}

document.addEventListener("DOMContentLoaded", () => {
  fillPlayers();
  fillSeats();
  $("game").addEventListener("change", () => { fillPlayers(); fillSeats(); });
  $("players").addEventListener("change", fillSeats);
  $("mode").addEventListener("change", fillSeats);
  $("start").addEventListener("submit", play);
  $("replay-file").addEventListener("change", async () => {
    const file = $("replay-file").files[0];
    if (file) openReplay(await file.text(), "text");
  });
  if ($("open-path")) $("open-path").addEventListener("click", () => openReplay({path: $("replay-path").value}));
});
