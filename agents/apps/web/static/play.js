// A game's page: send the seat's choices, swap in the table the server draws, hand the screen over between
// people sharing it, look back at the others' moves step by step, and wait (polling) while others move.
"use strict";

const page = document.getElementById("game-page");
const gameId = page.dataset.game;
const tokens = new Map(page.dataset.seats.split(",").map((pair) => {
  const [seat, token] = pair.split(":");
  return [Number(seat), token];
}));
let shown = Number(page.dataset.shown);
let timer = null;

function tableUrl(move) {
  const extra = move === undefined || move === "" ? "" : `&move=${move}`;
  return `/play/${gameId}/table?seat=${shown}&token=${encodeURIComponent(tokens.get(shown))}${extra}`;
}

function say(message) {
  document.getElementById("play-error").textContent = message || "";
}

async function load(move) {
  clearTimeout(timer);
  const response = await fetch(tableUrl(move));
  if (!response.ok) {
    say((await response.text()).replace(/<[^>]*>/g, " ").replace(/\s+/g, " ").trim());
    return;
  }
  document.getElementById("table").innerHTML = await response.text();
  document.getElementById("table").hidden = false;
  after();
}

function after() {
  const game = document.querySelector(".game");
  if (!game) return;
  const current = Number(game.dataset.current), over = game.dataset.over === "true";
  if (over || game.dataset.looking !== "") return;
  if (tokens.has(current) && current !== shown) {
    handOver(current);
  } else if (!tokens.has(current) || game.dataset.thinking === "true") {
    timer = setTimeout(() => load(), 1000);  // the others are moving: look again in a second
  }
}

function handOver(seat) {
  document.getElementById("table").hidden = true;
  document.getElementById("handover-title").textContent = `Pass the screen to player_${seat}`;
  document.getElementById("handover-seat").textContent = `player_${seat}`;
  document.getElementById("handover").hidden = false;
  document.getElementById("handover").dataset.seat = String(seat);
}

async function act(action) {
  say("");
  document.body.classList.add("busy");
  try {
    const response = await fetch(`/api/games/${gameId}/actions`, {
      method: "POST",
      headers: {"Content-Type": "application/json", "Authorization": `Bearer ${tokens.get(shown)}`},
      body: JSON.stringify({seat: shown, action: Number(action)}),
    });
    if (!response.ok) {
      const doc = await response.json().catch(() => ({}));
      say(doc.error || `the server answered ${response.status}`);
    }
    await load();
  } finally {
    document.body.classList.remove("busy");
  }
}

function step(where) {
  const game = document.querySelector(".game");
  const count = Number(game.dataset.moves);
  if (!count) return;
  const looking = game.dataset.looking === "" ? count : Number(game.dataset.looking);
  const target = {first: 0, prev: Math.max(0, looking - 1), next: looking + 1, now: count}[where];
  load(target >= count ? "" : target);
}

document.addEventListener("click", (event) => {
  const target = event.target.closest("[data-action], .look, #handover-ready, #open-replay, .steps button");
  if (!target || document.body.classList.contains("busy")) return;
  if (target.id === "handover-ready") {
    shown = Number(document.getElementById("handover").dataset.seat);
    document.getElementById("handover").hidden = true;
    load();
  } else if (target.id === "open-replay") {
    fetch("/api/replays", {method: "POST", headers: {"Content-Type": "application/json"},
      body: JSON.stringify({game: target.dataset.game})})
      .then((r) => r.json()).then((doc) => {
        if (doc.id) window.location.href = `/replay/${doc.id}?step=0&seat=${shown}`; else say(doc.error);
      });
  } else if (target.classList.contains("look")) {
    load(target.dataset.move);
  } else if (target.id && target.id.startsWith("step-")) {
    step(target.id.slice(5));
  } else if (target.dataset.action !== undefined) {
    act(target.dataset.action);
  }
});

document.addEventListener("keydown", (event) => {
  const target = event.target.closest && event.target.closest("[data-action][role=button]");
  if (target && (event.key === "Enter" || event.key === " ")) {
    event.preventDefault();
    act(target.dataset.action);
  }
});

after();
