"use strict";

(function () {
  const STORAGE_KEY = "todolist.items.v1";
  const MAX_LENGTH = 80;
  const MESSAGES = {
    empty: "Please enter a todo.",
    tooLong: `A todo can be at most ${MAX_LENGTH} characters.`,
  };
  const FILTERS = {
    all: () => true,
    active: (todo) => !todo.completed,
    completed: (todo) => todo.completed,
  };

  const els = {
    form: document.getElementById("new-todo-form"),
    input: document.querySelector("[data-testid='new-todo']"),
    error: document.querySelector("[data-testid='error']"),
    list: document.querySelector("[data-testid='todo-list']"),
    filter: document.querySelector("[data-testid='filter']"),
    counter: document.querySelector("[data-testid='counter']"),
    clearCompleted: document.querySelector("[data-testid='clear-completed']"),
    template: document.getElementById("todo-item-template"),
  };

  const state = {
    todos: [],
    filter: "all",
    editingId: null,
    nextId: 1,
  };

  // ---------------------------------------------------------------------------
  // Storage

  function isStoredTodo(value) {
    return (
      value !== null &&
      typeof value === "object" &&
      typeof value.text === "string" &&
      typeof value.completed === "boolean"
    );
  }

  function loadTodos() {
    let raw;
    try {
      raw = window.localStorage.getItem(STORAGE_KEY);
    } catch (err) {
      return [];
    }
    if (!raw) {
      return [];
    }
    try {
      const parsed = JSON.parse(raw);
      return Array.isArray(parsed) ? parsed.filter(isStoredTodo) : [];
    } catch (err) {
      return [];
    }
  }

  function saveTodos() {
    const data = state.todos.map(({ text, completed }) => ({ text, completed }));
    try {
      window.localStorage.setItem(STORAGE_KEY, JSON.stringify(data));
    } catch (err) {
      // Storage full or unavailable: the list still works for this page view.
    }
  }

  // ---------------------------------------------------------------------------
  // Model

  function validate(rawText) {
    const text = rawText.trim();
    if (text === "") {
      return { ok: false, message: MESSAGES.empty };
    }
    if (text.length > MAX_LENGTH) {
      return { ok: false, message: MESSAGES.tooLong };
    }
    return { ok: true, text };
  }

  function createTodo(text, completed) {
    const todo = { id: state.nextId, text, completed };
    state.nextId += 1;
    return todo;
  }

  function findTodo(id) {
    return state.todos.find((todo) => todo.id === id);
  }

  function activeCount() {
    return state.todos.filter(FILTERS.active).length;
  }

  function commit() {
    saveTodos();
    render();
  }

  // ---------------------------------------------------------------------------
  // Messages and formatting

  function showError(message) {
    els.error.textContent = message;
  }

  function clearError() {
    els.error.textContent = "";
  }

  function counterText(count) {
    const noun = count === 1 ? "item" : "items";
    return `${count} ${noun} left`;
  }

  // ---------------------------------------------------------------------------
  // Rendering

  function renderItem(todo) {
    const item = els.template.content.firstElementChild.cloneNode(true);
    const toggle = item.querySelector("[data-testid='todo-toggle']");
    const label = item.querySelector("[data-testid='todo-text']");

    item.dataset.id = String(todo.id);
    item.classList.toggle("completed", todo.completed);
    toggle.checked = todo.completed;
    toggle.setAttribute("aria-label", `Mark "${todo.text}" as completed`);
    label.textContent = todo.text;

    if (todo.id === state.editingId) {
      item.classList.add("editing");
      label.hidden = true;
      item.appendChild(renderEditor(todo));
    }
    return item;
  }

  function renderEditor(todo) {
    const editor = document.createElement("input");
    editor.type = "text";
    editor.className = "edit-input";
    editor.dataset.testid = "edit-input";
    editor.value = todo.text;
    editor.setAttribute("aria-label", "Edit todo");
    return editor;
  }

  function render() {
    const visible = state.todos.filter(FILTERS[state.filter]);
    els.list.replaceChildren(...visible.map(renderItem));

    els.counter.textContent = counterText(activeCount());
    els.clearCompleted.disabled = !state.todos.some(FILTERS.completed);
    els.filter.value = state.filter;

    const editor = els.list.querySelector("[data-testid='edit-input']");
    if (editor) {
      editor.focus();
      editor.setSelectionRange(editor.value.length, editor.value.length);
    }
  }

  // ---------------------------------------------------------------------------
  // Actions

  function addTodo() {
    const result = validate(els.input.value);
    if (!result.ok) {
      showError(result.message);
      return;
    }
    state.todos.push(createTodo(result.text, false));
    els.input.value = "";
    clearError();
    commit();
  }

  function toggleTodo(id) {
    const todo = findTodo(id);
    if (todo) {
      todo.completed = !todo.completed;
      commit();
    }
  }

  function startEditing(id) {
    if (!findTodo(id)) {
      return;
    }
    state.editingId = id;
    render();
  }

  function saveEdit(id, value) {
    const todo = findTodo(id);
    if (!todo) {
      return;
    }
    const result = validate(value);
    if (!result.ok) {
      showError(result.message);
      return;
    }
    todo.text = result.text;
    state.editingId = null;
    clearError();
    commit();
  }

  function cancelEdit() {
    if (state.editingId === null) {
      return;
    }
    state.editingId = null;
    clearError();
    render();
  }

  function clearCompleted() {
    state.todos = state.todos.filter(FILTERS.active);
    commit();
  }

  function setFilter(value) {
    state.filter = Object.prototype.hasOwnProperty.call(FILTERS, value) ? value : "all";
    render();
  }

  // ---------------------------------------------------------------------------
  // Events

  function itemId(target) {
    const item = target.closest("[data-testid='todo-item']");
    return item ? Number(item.dataset.id) : null;
  }

  els.form.addEventListener("submit", (event) => {
    event.preventDefault();
    addTodo();
  });

  els.list.addEventListener("change", (event) => {
    if (event.target.matches("[data-testid='todo-toggle']")) {
      toggleTodo(itemId(event.target));
    }
  });

  els.list.addEventListener("dblclick", (event) => {
    if (event.target.matches("[data-testid='todo-text']")) {
      startEditing(itemId(event.target));
    }
  });

  els.list.addEventListener("keydown", (event) => {
    if (!event.target.matches("[data-testid='edit-input']")) {
      return;
    }
    if (event.key === "Enter") {
      event.preventDefault();
      saveEdit(itemId(event.target), event.target.value);
    } else if (event.key === "Escape") {
      event.preventDefault();
      cancelEdit();
    }
  });

  els.list.addEventListener("focusout", (event) => {
    const id = itemId(event.target);
    if (event.target.matches("[data-testid='edit-input']") && id === state.editingId) {
      cancelEdit();
    }
  });

  els.filter.addEventListener("change", () => setFilter(els.filter.value));
  els.clearCompleted.addEventListener("click", clearCompleted);

  // ---------------------------------------------------------------------------
  // Start

  state.todos = loadTodos().map((todo) => createTodo(todo.text, todo.completed));
  render();
})();
