// plies serve: the pages' behaviour. No framework and no build step: the server draws the
// boards (SVG) and decides what a click means; this file only sends clicks and shows answers.
"use strict";

const timings = (window.pliesTimings = []); // server answers, for the browser tests' figures

async function api(method, url, body) {
  const start = performance.now();
  const response = await fetch(url, {
    method,
    headers: { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data;
  try {
    data = await response.json();
  } catch (err) {
    data = { error: `the server answered ${response.status}` };
  }
  timings.push({ url, ms: performance.now() - start, status: response.status });
  return { ok: response.ok, status: response.status, data };
}

function $(id) {
  return document.getElementById(id);
}

function home() {
  const form = $("new-game");
  const defaults = JSON.parse(form.dataset.defaults);
  const seats = $("seats");
  function fill() {
    const game = defaults[$("game").value];
    seats.innerHTML = "";
    game.seats.forEach((spec) => addSeat(spec));
    if (game.max_seats > game.seats.length) {
      // a game that takes a range of players: seats can be added up to its maximum
      const more = document.createElement("button");
      more.type = "button";
      more.id = "add-seat";
      more.textContent = "+ seat";
      more.onclick = () => {
        if (seats.querySelectorAll("input").length < game.max_seats) addSeat(game.more);
      };
      seats.appendChild(more);
    }
  }
  function addSeat(spec) {
    const n = seats.querySelectorAll("input").length;
    const label = document.createElement("label");
    label.textContent = `Seat ${n} `;
    const input = document.createElement("input");
    input.name = `seat${n}`;
    input.id = `seat${n}`;
    input.value = spec;
    label.appendChild(input);
    const more = $("add-seat");
    seats.insertBefore(label, more);
  }
  $("game").onchange = fill;
  fill();
  form.onsubmit = async (event) => {
    event.preventDefault();
    const body = {
      game: $("game").value,
      seats: [...seats.querySelectorAll("input")].map((i) => i.value.trim()),
    };
    if ($("seed").value !== "") body.seed = parseInt($("seed").value, 10);
    const answer = await api("POST", "/api/games", body);
    if (answer.ok) window.location = answer.data.url;
    else $("error").textContent = answer.data.error;
  };
}

function play() {
  const root = $("play");
  const id = root.dataset.id;
  let view = null;
  let timer = null;
  const speed = $("speed");
  speed.value = localStorage.getItem("plies-speed") || "700";
  speed.onchange = () => localStorage.setItem("plies-speed", speed.value);

  function show(v) {
    view = v;
    root.dataset.version = v.version;
    $("board").innerHTML = v.svg;
    let status;
    if (v.over) status = `Game over: ${v.result}`;
    else if (v.human_to_move) status = v.selected === null ? "Your move" : "Your move: where to?";
    else if (v.confirm) status = "End your turn, or undo";
    else status = "Agents are playing...";
    $("status").textContent = status;
    root.dataset.state = v.over ? "over" : v.human_to_move ? "human" : v.confirm ? "confirm" : "agents";
    const log = $("log");
    log.innerHTML = "";
    v.log.forEach((line) => {
      const item = document.createElement("li");
      item.textContent = line;
      log.appendChild(item);
    });
    log.scrollTop = log.scrollHeight;
    const moves = $("moves");
    moves.innerHTML = "";
    v.legal.forEach((move) => moves.add(new Option(move.name, move.action)));
    moves.disabled = $("play-move").disabled = !v.human_to_move;
    $("undo").hidden = !v.can_undo;
    $("confirm").hidden = !v.confirm;
    $("end-turn").hidden = !(v.human_to_move && v.end_turn !== null);
    $("hint").hidden = !v.human_to_move;
    clearTimeout(timer);
    if (!v.over && !v.human_to_move && !v.confirm) {
      timer = setTimeout(() => send("step"), parseInt(speed.value, 10));
    }
  }

  async function refresh() {
    const answer = await api("GET", `/api/games/${id}`);
    if (answer.ok) show(answer.data);
    else $("error").textContent = answer.data.error;
  }

  async function send(path, extra) {
    clearTimeout(timer);
    const answer = await api("POST", `/api/games/${id}/${path}`, { version: view.version, ...extra });
    if (answer.ok) {
      $("error").textContent = answer.data.hint ? `hint: ${answer.data.hint.name}` : "";
      show(answer.data);
    } else {
      $("error").textContent = answer.data.error;
      if (answer.status === 409) await refresh();
    }
  }

  $("board").addEventListener("click", (event) => {
    const part = event.target.closest("[data-col],[data-cell],[data-point],[data-area]");
    if (!part || !view || !view.human_to_move) return;
    const d = part.dataset;
    const value = d.col ?? d.cell ?? d.point ?? d.area;
    send("click", { value: parseInt(value, 10) });
  });
  $("play-move").onclick = () => send("move", { action: parseInt($("moves").value, 10) });
  $("undo").onclick = () => send("undo");
  $("confirm").onclick = () => send("step");
  $("end-turn").onclick = () => send("move", { action: view.end_turn });
  $("hint").onclick = () => send("hint");
  refresh();
}

function replay() {
  const root = $("replay");
  const base = `/api/replays/${root.dataset.results}/${root.dataset.game}`;
  const plies = parseInt(root.dataset.plies, 10);
  let ply = 0;
  let timer = null;
  async function go(target) {
    ply = Math.max(0, Math.min(plies, target));
    const answer = await api("GET", `${base}/${ply}`);
    if (!answer.ok) return;
    $("board").innerHTML = answer.data.svg;
    $("status").textContent = `ply ${ply} of ${plies}: ${answer.data.status}`;
    $("move").textContent = answer.data.move ? `last: ${answer.data.move}` : "";
    root.dataset.ply = ply;
  }
  $("first").onclick = () => go(0);
  $("back").onclick = () => go(ply - 1);
  $("forward").onclick = () => go(ply + 1);
  $("last").onclick = () => go(plies);
  $("auto").onclick = () => {
    if (timer) {
      clearInterval(timer);
      timer = null;
      return;
    }
    timer = setInterval(() => (ply >= plies ? clearInterval(timer) : go(ply + 1)), 500);
  };
  go(0);
}

const pages = { home, play, replay };
if (pages[document.body.dataset.page]) pages[document.body.dataset.page]();
