"use strict";

const STORAGE_KEY = "kanban-board";
const COLUMNS = ["todo", "doing", "done"];
const WIP_LIMIT = 3;
const MAX_TITLE_LENGTH = 40;
const DRAG_THRESHOLD = 5; // pixels the pointer must travel before a press becomes a drag
const KEY_STEPS = { ArrowLeft: -1, ArrowRight: 1 };

const MESSAGES = {
  empty: "Title must not be empty.",
  tooLong: `Title must be at most ${MAX_TITLE_LENGTH} characters.`,
  duplicate: (title) => `A card named "${title}" already exists.`,
  full: `In progress is full (limit ${WIP_LIMIT}).`,
};

const form = document.querySelector(".new-card");
const input = document.querySelector("[data-testid='new-card-input']");
const message = document.querySelector("[data-testid='message']");
const boardElement = document.querySelector(".board");

const board = loadBoard();
let selected = null; // title of the selected card
let drag = null; // the card being pressed or dragged

// ---------------------------------------------------------------------------------------
// State and storage

function emptyBoard() {
  return { todo: [], doing: [], done: [] };
}

function isBoard(value) {
  return (
    value !== null &&
    typeof value === "object" &&
    COLUMNS.every(
      (column) =>
        Array.isArray(value[column]) && value[column].every((title) => typeof title === "string")
    )
  );
}

function loadBoard() {
  try {
    const stored = JSON.parse(localStorage.getItem(STORAGE_KEY));
    if (isBoard(stored)) {
      return { todo: [...stored.todo], doing: [...stored.doing], done: [...stored.done] };
    }
  } catch (error) {
    // Not valid JSON: start with an empty board.
  }
  return emptyBoard();
}

function saveBoard() {
  localStorage.setItem(STORAGE_KEY, JSON.stringify(board));
}

function columnOf(title) {
  return COLUMNS.find((column) => board[column].includes(title));
}

function validateTitle(title) {
  if (title === "") {
    return MESSAGES.empty;
  }
  if (title.length > MAX_TITLE_LENGTH) {
    return MESSAGES.tooLong;
  }
  const key = title.toLowerCase();
  const taken = COLUMNS.some((column) => board[column].some((t) => t.toLowerCase() === key));
  return taken ? MESSAGES.duplicate(title) : "";
}

// ---------------------------------------------------------------------------------------
// Actions

function addCard(text) {
  const title = text.trim();
  const error = validateTitle(title);
  if (error) {
    showMessage(error);
    return false;
  }
  board.todo.push(title);
  commit();
  return true;
}

function moveCard(title, target) {
  const source = columnOf(title);
  if (source === undefined || source === target) {
    return;
  }
  if (target === "doing" && board.doing.length >= WIP_LIMIT) {
    showMessage(MESSAGES.full);
    return;
  }
  board[source].splice(board[source].indexOf(title), 1);
  board[target].push(title);
  commit();
}

function deleteCard(title) {
  const column = columnOf(title);
  board[column].splice(board[column].indexOf(title), 1);
  if (selected === title) {
    selected = null;
  }
  commit();
}

function select(title) {
  selected = title;
  for (const card of boardElement.querySelectorAll(".card")) {
    card.classList.toggle("selected", card.dataset.title === title);
  }
}

function commit() {
  showMessage("");
  saveBoard();
  render();
}

function showMessage(text) {
  message.textContent = text;
}

// ---------------------------------------------------------------------------------------
// Rendering

function listElement(column) {
  return document.querySelector(`[data-testid='list-${column}']`);
}

function cardElement(title) {
  return [...boardElement.querySelectorAll(".card")].find((c) => c.dataset.title === title);
}

function createCard(title) {
  const card = document.createElement("li");
  card.className = "card";
  card.dataset.testid = "card";
  card.dataset.title = title;
  card.tabIndex = 0;
  card.textContent = title;
  card.classList.toggle("selected", title === selected);
  return card;
}

function renderCounts() {
  for (const column of COLUMNS) {
    const count = board[column].length;
    const text = column === "doing" ? `${count}/${WIP_LIMIT}` : String(count);
    document.querySelector(`[data-testid='count-${column}']`).textContent = text;
  }
}

function render() {
  for (const column of COLUMNS) {
    listElement(column).replaceChildren(...board[column].map(createCard));
  }
  renderCounts();
}

// ---------------------------------------------------------------------------------------
// Dragging with pointer events

function columnAt(x, y) {
  const element = document.elementFromPoint(x, y);
  const column = element && element.closest("[data-column]");
  return column ? column.dataset.column : null;
}

function highlight(column) {
  for (const section of boardElement.querySelectorAll("[data-column]")) {
    section.classList.toggle("drop-target", section.dataset.column === column);
  }
}

function endDrag() {
  drag.card.classList.remove("dragging");
  drag.card.style.transform = "";
  highlight(null);
  drag = null;
}

function onPointerDown(event) {
  const card = event.target.closest(".card");
  if (card === null || event.button !== 0) {
    return;
  }
  drag = { card, title: card.dataset.title, x: event.clientX, y: event.clientY, active: false };
}

function onPointerMove(event) {
  if (drag === null) {
    return;
  }
  const dx = event.clientX - drag.x;
  const dy = event.clientY - drag.y;
  if (!drag.active) {
    if (Math.hypot(dx, dy) < DRAG_THRESHOLD) {
      return;
    }
    drag.active = true;
    drag.card.classList.add("dragging");
  }
  drag.card.style.transform = `translate(${dx}px, ${dy}px)`;
  highlight(columnAt(event.clientX, event.clientY));
}

function onPointerUp(event) {
  if (drag === null) {
    return;
  }
  const { title, active } = drag;
  endDrag();
  if (active) {
    const target = columnAt(event.clientX, event.clientY);
    if (target !== null) {
      moveCard(title, target);
    }
  }
}

// ---------------------------------------------------------------------------------------
// Keyboard

function onKeyDown(event) {
  const card = event.target.closest(".card");
  if (card === null) {
    return;
  }
  const title = card.dataset.title;
  if (event.key === "Delete") {
    deleteCard(title);
  } else if (event.key in KEY_STEPS) {
    const index = COLUMNS.indexOf(columnOf(title)) + KEY_STEPS[event.key];
    if (index >= 0 && index < COLUMNS.length) {
      moveCard(title, COLUMNS[index]);
    }
    cardElement(title).focus();
  } else {
    return;
  }
  event.preventDefault();
}

// ---------------------------------------------------------------------------------------
// Wiring

form.addEventListener("submit", (event) => {
  event.preventDefault();
  if (addCard(input.value)) {
    input.value = "";
  }
});

boardElement.addEventListener("focusin", (event) => {
  const card = event.target.closest(".card");
  if (card !== null) {
    select(card.dataset.title);
  }
});

boardElement.addEventListener("keydown", onKeyDown);
boardElement.addEventListener("pointerdown", onPointerDown);
document.addEventListener("pointermove", onPointerMove);
document.addEventListener("pointerup", onPointerUp);
document.addEventListener("pointercancel", () => drag && endDrag());

render();
