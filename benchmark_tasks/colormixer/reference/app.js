"use strict";

(function () {
  const STORAGE_KEY = "colormixer.palette";
  const PALETTE_MAX = 8;
  const AA_THRESHOLD = 4.5;
  const INITIAL_COLOUR = { r: 51, g: 102, b: 153 };
  const CHANNELS = ["r", "g", "b"];
  const HEX_PATTERN = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i;
  const STORED_PATTERN = /^#[0-9a-f]{6}$/i;
  const INVALID_HEX_MESSAGE = "Invalid hex code. Use #RRGGBB or #RGB.";

  const byTestId = (id) => document.querySelector(`[data-testid="${id}"]`);

  const ui = {
    sliders: {},
    labels: {},
    swatch: byTestId("swatch"),
    hexCode: byTestId("hex-code"),
    hexForm: document.querySelector('[data-role="hex-form"]'),
    hexInput: byTestId("hex-input"),
    hexError: byTestId("hex-error"),
    contrastWhite: byTestId("contrast-white"),
    ratingWhite: byTestId("rating-white"),
    contrastBlack: byTestId("contrast-black"),
    ratingBlack: byTestId("rating-black"),
    saveButton: byTestId("save-button"),
    paletteCount: byTestId("palette-count"),
    paletteMessage: byTestId("palette-message"),
    palette: byTestId("palette"),
  };
  CHANNELS.forEach((channel) => {
    ui.sliders[channel] = byTestId(`slider-${channel}`);
    ui.labels[channel] = byTestId(`value-${channel}`);
  });

  let colour = { ...INITIAL_COLOUR };
  let palette = [];

  // ------------------------------------------------------------------ colour maths

  function toHex({ r, g, b }) {
    const pair = (v) => v.toString(16).padStart(2, "0");
    return `#${pair(r)}${pair(g)}${pair(b)}`.toUpperCase();
  }

  /** A colour from "#RRGGBB", "RRGGBB", "#RGB" or "RGB" (any case), or null. */
  function parseHex(text) {
    const match = HEX_PATTERN.exec(text.trim());
    if (!match) {
      return null;
    }
    let digits = match[1];
    if (digits.length === 3) {
      digits = digits.split("").map((d) => d + d).join("");
    }
    return {
      r: parseInt(digits.slice(0, 2), 16),
      g: parseInt(digits.slice(2, 4), 16),
      b: parseInt(digits.slice(4, 6), 16),
    };
  }

  function linearise(value) {
    const c = value / 255;
    return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
  }

  function luminance({ r, g, b }) {
    return 0.2126 * linearise(r) + 0.7152 * linearise(g) + 0.0722 * linearise(b);
  }

  function contrastRatio(l1, l2) {
    const lighter = Math.max(l1, l2);
    const darker = Math.min(l1, l2);
    return (lighter + 0.05) / (darker + 0.05);
  }

  function invert({ r, g, b }) {
    return { r: 255 - r, g: 255 - g, b: 255 - b };
  }

  // ------------------------------------------------------------------ rendering

  function showContrast(ratio, valueEl, ratingEl) {
    valueEl.textContent = ratio.toFixed(2);
    const passes = ratio >= AA_THRESHOLD;
    ratingEl.textContent = passes ? "AA" : "fail";
    ratingEl.classList.toggle("pass", passes);
  }

  function renderColour() {
    const hex = toHex(colour);
    CHANNELS.forEach((channel) => {
      ui.sliders[channel].value = String(colour[channel]);
      ui.labels[channel].textContent = String(colour[channel]);
    });
    ui.hexCode.textContent = hex;
    ui.swatch.style.backgroundColor = `rgb(${colour.r}, ${colour.g}, ${colour.b})`;

    const lum = luminance(colour);
    showContrast(contrastRatio(lum, 1), ui.contrastWhite, ui.ratingWhite);
    showContrast(contrastRatio(lum, 0), ui.contrastBlack, ui.ratingBlack);
  }

  function setColour(next) {
    colour = { r: next.r, g: next.g, b: next.b };
    renderColour();
  }

  function renderPalette() {
    const items = palette.map((hex) => {
      const item = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.className = "palette-swatch";
      button.dataset.testid = "palette-swatch";
      button.dataset.hex = hex;
      button.textContent = hex;
      button.title = `Use ${hex}`;
      button.style.backgroundColor = hex;
      button.classList.toggle("light", luminance(parseHex(hex)) > 0.18);
      item.appendChild(button);
      return item;
    });
    ui.palette.replaceChildren(...items);
    ui.paletteCount.textContent = `${palette.length} / ${PALETTE_MAX}`;
  }

  // ------------------------------------------------------------------ palette storage

  function loadPalette() {
    let stored;
    try {
      stored = JSON.parse(localStorage.getItem(STORAGE_KEY));
    } catch (error) {
      return [];
    }
    if (!Array.isArray(stored)) {
      return [];
    }
    const loaded = [];
    stored.forEach((entry) => {
      if (typeof entry !== "string" || !STORED_PATTERN.test(entry)) {
        return;
      }
      const hex = entry.toUpperCase();
      if (!loaded.includes(hex)) {
        loaded.push(hex);
      }
    });
    return loaded.slice(0, PALETTE_MAX);
  }

  function storePalette() {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(palette));
  }

  // ------------------------------------------------------------------ actions

  function saveCurrentColour() {
    const hex = toHex(colour);
    if (palette.includes(hex)) {
      ui.paletteMessage.textContent = `${hex} is already in the palette`;
      return;
    }
    if (palette.length >= PALETTE_MAX) {
      ui.paletteMessage.textContent = `Palette is full (max ${PALETTE_MAX} colours)`;
      return;
    }
    palette.push(hex);
    storePalette();
    renderPalette();
    ui.paletteMessage.textContent = `Saved ${hex}`;
  }

  function applyHexInput() {
    const parsed = parseHex(ui.hexInput.value);
    if (!parsed) {
      ui.hexError.textContent = INVALID_HEX_MESSAGE;
      return;
    }
    ui.hexError.textContent = "";
    setColour(parsed);
    ui.hexInput.value = toHex(colour);
  }

  function onSliderInput(channel) {
    colour = { ...colour, [channel]: Number(ui.sliders[channel].value) };
    renderColour();
  }

  function onKeyDown(event) {
    if (event.key !== "i" && event.key !== "I") {
      return;
    }
    if (event.ctrlKey || event.altKey || event.metaKey || event.target === ui.hexInput) {
      return;
    }
    event.preventDefault();
    setColour(invert(colour));
  }

  // ------------------------------------------------------------------ wiring

  CHANNELS.forEach((channel) => {
    const slider = ui.sliders[channel];
    slider.addEventListener("input", () => onSliderInput(channel));
    slider.addEventListener("change", () => onSliderInput(channel));
  });

  ui.hexForm.addEventListener("submit", (event) => {
    event.preventDefault();
    applyHexInput();
  });

  ui.saveButton.addEventListener("click", saveCurrentColour);

  ui.palette.addEventListener("click", (event) => {
    const swatch = event.target.closest('[data-testid="palette-swatch"]');
    if (swatch) {
      setColour(parseHex(swatch.dataset.hex));
    }
  });

  document.addEventListener("keydown", onKeyDown);

  palette = loadPalette();
  renderPalette();
  renderColour();
})();
