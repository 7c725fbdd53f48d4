"use strict";

// Pomodoro focus timer: focus and break phases counted down in mm:ss.

const STORAGE_KEY = "pomodoro-durations";
const DEFAULT_DURATIONS = Object.freeze({ focus: 1500, break: 300 });
const MIN_SECONDS = 1;
const MAX_SECONDS = 3600;
const TICK_MS = 100;
const FLASH_MS = 600;
const FIELDS = ["focus", "break"];
const LABELS = { focus: "Focus", break: "Break" };

const byTestId = (id) => document.querySelector(`[data-testid="${id}"]`);

const ui = {
  timer: byTestId("timer"),
  phase: byTestId("phase"),
  display: byTestId("display"),
  start: byTestId("start"),
  pause: byTestId("pause"),
  reset: byTestId("reset"),
  error: byTestId("error"),
  sessions: byTestId("sessions"),
  inputs: {
    focus: byTestId("focus-seconds"),
    break: byTestId("break-seconds"),
  },
};

const state = {
  status: "idle", // "idle" | "running" | "paused"
  phase: "focus",
  durations: { ...DEFAULT_DURATIONS }, // last valid value of each field, in seconds
  invalid: new Set(), // fields whose current text is not a valid duration
  remainingMs: DEFAULT_DURATIONS.focus * 1000,
  endsAt: 0, // Date.now() at which the running phase ends
  sessions: 0,
  tickId: null,
  flashId: null,
};

/** A whole number of seconds in [MIN_SECONDS, MAX_SECONDS], or null. */
function parseSeconds(value) {
  const text = String(value).trim();
  if (!/^[0-9]+$/.test(text)) {
    return null;
  }
  const seconds = Number(text);
  return seconds >= MIN_SECONDS && seconds <= MAX_SECONDS ? seconds : null;
}

/** Seconds as mm:ss, both parts zero-padded to two digits. */
function formatTime(totalSeconds) {
  const minutes = Math.floor(totalSeconds / 60);
  const seconds = totalSeconds % 60;
  return `${String(minutes).padStart(2, "0")}:${String(seconds).padStart(2, "0")}`;
}

function loadDurations() {
  let stored = null;
  try {
    stored = JSON.parse(localStorage.getItem(STORAGE_KEY));
  } catch {
    stored = null; // not JSON: use the defaults
  }
  const durations = { ...DEFAULT_DURATIONS };
  if (stored !== null && typeof stored === "object" && !Array.isArray(stored)) {
    for (const field of FIELDS) {
      const value = typeof stored[field] === "number" || typeof stored[field] === "string"
        ? parseSeconds(stored[field])
        : null;
      if (value !== null) {
        durations[field] = value;
      }
    }
  }
  return durations;
}

function saveDurations() {
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(state.durations));
  } catch {
    // storage unavailable or full: the durations just are not remembered
  }
}

function canStart() {
  return state.status !== "running" && state.invalid.size === 0;
}

function errorMessage() {
  const field = FIELDS.find((name) => state.invalid.has(name));
  return field
    ? `${LABELS[field]} duration must be a whole number of seconds from ${MIN_SECONDS} to ${MAX_SECONDS}.`
    : "";
}

function render() {
  const running = state.status === "running";
  ui.timer.classList.toggle("focus", state.phase === "focus");
  ui.timer.classList.toggle("break", state.phase === "break");
  ui.timer.classList.toggle("running", running);
  ui.phase.textContent = LABELS[state.phase];
  ui.display.textContent = formatTime(Math.ceil(state.remainingMs / 1000));
  ui.start.disabled = !canStart();
  ui.pause.disabled = !running;
  ui.sessions.textContent = String(state.sessions);
  ui.error.textContent = errorMessage();
  for (const field of FIELDS) {
    ui.inputs[field].classList.toggle("invalid", state.invalid.has(field));
  }
}

function flash() {
  ui.timer.classList.add("flash");
  clearTimeout(state.flashId);
  state.flashId = setTimeout(() => ui.timer.classList.remove("flash"), FLASH_MS);
}

function endPhase() {
  if (state.phase === "focus") {
    state.sessions += 1;
  }
  state.phase = state.phase === "focus" ? "break" : "focus";
  state.endsAt += state.durations[state.phase] * 1000;
  flash();
}

function tick() {
  const now = Date.now();
  while (now >= state.endsAt) {
    endPhase();
  }
  state.remainingMs = state.endsAt - now;
  render();
}

function start() {
  if (!canStart()) {
    return;
  }
  state.status = "running";
  state.endsAt = Date.now() + state.remainingMs;
  state.tickId = setInterval(tick, TICK_MS);
  render();
}

function pause() {
  if (state.status !== "running") {
    return;
  }
  clearInterval(state.tickId);
  state.remainingMs = Math.max(0, state.endsAt - Date.now());
  state.status = "paused";
  render();
}

function reset() {
  clearInterval(state.tickId);
  state.status = "idle";
  state.phase = "focus";
  state.remainingMs = state.durations.focus * 1000;
  render();
}

function toggle() {
  if (state.status === "running") {
    pause();
  } else {
    start();
  }
}

function onDurationInput(field) {
  const value = parseSeconds(ui.inputs[field].value);
  if (value === null) {
    state.invalid.add(field);
  } else {
    state.invalid.delete(field);
    state.durations[field] = value;
    saveDurations();
    if (state.status === "idle" && field === "focus") {
      state.remainingMs = value * 1000;
    }
  }
  render();
}

function onKeyDown(event) {
  if (event.ctrlKey || event.altKey || event.metaKey) {
    return;
  }
  if (event.target instanceof Element && event.target.closest("input")) {
    return;
  }
  if (event.key === " ") {
    event.preventDefault();
    toggle();
  } else if (event.key === "r" || event.key === "R") {
    reset();
  }
}

function init() {
  state.durations = loadDurations();
  state.remainingMs = state.durations.focus * 1000;
  for (const field of FIELDS) {
    ui.inputs[field].value = String(state.durations[field]);
    ui.inputs[field].addEventListener("input", () => onDurationInput(field));
  }
  ui.start.addEventListener("click", start);
  ui.pause.addEventListener("click", pause);
  ui.reset.addEventListener("click", reset);
  document.addEventListener("keydown", onKeyDown);
  render();
}

init();
