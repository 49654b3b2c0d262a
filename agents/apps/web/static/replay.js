// A replay's page: step forwards and backwards, from any seat's view or the full view.
"use strict";

const page = document.getElementById("replay-page");
const replayId = page.dataset.replay;
const steps = Number(page.dataset.steps);

async function show(step, seat) {
  step = Math.max(0, Math.min(steps, step));
  const response = await fetch(`/replay/${replayId}/table?step=${step}&seat=${seat}`);
  if (response.ok) {
    document.getElementById("replay").innerHTML = await response.text();
    history.replaceState(null, "", `/replay/${replayId}?step=${step}&seat=${seat}`);
  }
}

function current() {
  const view = document.querySelector(".replay");
  return [Number(view.dataset.step), document.getElementById("r-seat").value];
}

document.addEventListener("click", (event) => {
  const [step, seat] = current();
  const moves = {"r-first": 0, "r-prev": step - 1, "r-next": step + 1, "r-last": steps};
  if (event.target.id in moves) show(moves[event.target.id], seat);
});

document.addEventListener("change", (event) => {
  const [step, seat] = current();
  if (event.target.id === "r-seat") show(step, seat);
  if (event.target.id === "r-step") show(Number(event.target.value), seat);
});

document.addEventListener("keydown", (event) => {
  if (event.target.tagName === "INPUT" || event.target.tagName === "SELECT") return;
  const [step, seat] = current();
  if (event.key === "ArrowRight") show(step + 1, seat);
  if (event.key === "ArrowLeft") show(step - 1, seat);
});
