"use strict";

(function () {
  const PRO_PRICE = 12;
  const VAT_RATES = { us: 0, ca: 0, gb: 20, de: 19, jp: 10 };
  const TEXT_FIELDS = ["username", "email", "password", "confirm-password", "age"];
  const EMAIL_PATTERN = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)*\.[A-Za-z]{2,}$/;

  const form = document.getElementById("signup-form");
  const submitButton = document.getElementById("submit");
  const meter = document.getElementById("strength-meter");
  const strengthLabel = document.getElementById("strength-label");
  const priceDisplay = document.getElementById("plan-price");
  const summary = document.getElementById("summary");

  const input = (id) => document.getElementById(id);
  const value = (id) => input(id).value;

  function selectedPlan() {
    return form.querySelector('input[name="plan"]:checked').value;
  }

  // Each validator returns the message of the first failing rule, or "" when valid.
  const validators = {
    username() {
      const name = value("username");
      if (name === "") return "Username is required";
      if (name.length < 3 || name.length > 16) return "Username must be 3-16 characters";
      if (!/^[a-z0-9_]+$/.test(name)) {
        return "Username may only contain lowercase letters, digits and underscores";
      }
      return "";
    },
    email() {
      const email = value("email").trim();
      if (email === "") return "Email is required";
      if (!EMAIL_PATTERN.test(email)) return "Enter a valid email address";
      return "";
    },
    password() {
      const password = value("password");
      if (password === "") return "Password is required";
      if (password.length < 8) return "Password must be at least 8 characters";
      if (!/[A-Za-z]/.test(password) || !/[0-9]/.test(password)) {
        return "Password must contain a letter and a digit";
      }
      return "";
    },
    "confirm-password"() {
      const confirmation = value("confirm-password");
      if (confirmation === "") return "Please confirm your password";
      if (confirmation !== value("password")) return "Passwords do not match";
      return "";
    },
    age() {
      const age = value("age").trim();
      if (age === "") return "Age is required";
      if (!/^[0-9]+$/.test(age)) return "Age must be a whole number";
      const years = parseInt(age, 10);
      if (years < 13 || years > 120) return "You must be between 13 and 120 years old";
      return "";
    },
    country() {
      return value("country") === "" ? "Please select a country" : "";
    },
    terms() {
      return input("terms").checked ? "" : "You must accept the terms";
    },
  };

  const ERROR_ELEMENTS = {
    username: "username-error",
    email: "email-error",
    password: "password-error",
    "confirm-password": "confirm-error",
    age: "age-error",
    country: "country-error",
    terms: "terms-error",
  };

  const touched = new Set();

  function showError(field) {
    const message = touched.has(field) ? validators[field]() : "";
    document.getElementById(ERROR_ELEMENTS[field]).textContent = message;
    input(field).classList.toggle("invalid", message !== "");
  }

  function touch(field) {
    touched.add(field);
    showError(field);
  }

  function formIsValid() {
    return Object.keys(validators).every((field) => validators[field]() === "");
  }

  function updateSubmitState() {
    submitButton.disabled = !formIsValid();
  }

  function strengthScore(password) {
    const conditions = [
      password.length >= 8,
      password.length >= 12,
      /[a-z]/.test(password),
      /[A-Z]/.test(password),
      /[0-9]/.test(password),
      /[^A-Za-z0-9]/.test(password),
    ];
    return conditions.filter(Boolean).length;
  }

  function strengthLevel(score) {
    if (score === 0) return "";
    if (score <= 2) return "weak";
    if (score <= 4) return "fair";
    return "strong";
  }

  function renderStrength() {
    const score = strengthScore(value("password"));
    const level = strengthLevel(score);
    meter.dataset.score = String(score);
    for (const name of ["weak", "fair", "strong"]) {
      meter.classList.toggle(`strength-${name}`, name === level);
    }
    strengthLabel.textContent = level;
  }

  function formatPrice(amount) {
    return `$${amount.toFixed(2)}`;
  }

  function priceText() {
    if (selectedPlan() === "free") return `${formatPrice(0)} / month`;
    const rate = VAT_RATES[value("country")] || 0;
    const cents = Math.round(PRO_PRICE * (100 + rate));
    const text = `${formatPrice(cents / 100)} / month`;
    return rate > 0 ? `${text} incl. VAT` : text;
  }

  function renderPrice() {
    priceDisplay.textContent = priceText();
  }

  function showSummary() {
    const country = input("country");
    const planName = selectedPlan() === "pro" ? "Pro" : "Free";
    document.getElementById("summary-title").textContent = `Welcome, ${value("username")}!`;
    document.getElementById("summary-email").textContent = value("email").trim().toLowerCase();
    document.getElementById("summary-age").textContent = String(parseInt(value("age").trim(), 10));
    document.getElementById("summary-country").textContent =
      country.options[country.selectedIndex].text;
    document.getElementById("summary-plan").textContent = `${planName} plan: ${priceText()}`;
    form.hidden = true;
    summary.hidden = false;
  }

  function submit() {
    if (formIsValid()) {
      showSummary();
    } else {
      Object.keys(validators).forEach(touch);
    }
  }

  function onFieldChanged(field) {
    if (field === "password") {
      renderStrength();
      if (touched.has("confirm-password")) showError("confirm-password");
    }
    if (field === "country") {
      touched.add("country");
      renderPrice();
    }
    if (field === "terms") touched.add("terms");
    showError(field);
    updateSubmitState();
  }

  Object.keys(validators).forEach((field) => {
    const element = input(field);
    const eventName = element.tagName === "SELECT" || element.type === "checkbox" ? "change" : "input";
    element.addEventListener(eventName, () => onFieldChanged(field));
    element.addEventListener("blur", () => touch(field));
  });

  form.querySelectorAll('input[name="plan"]').forEach((radio) => {
    radio.addEventListener("change", renderPrice);
  });

  TEXT_FIELDS.forEach((field) => {
    input(field).addEventListener("keydown", (event) => {
      if (event.key !== "Enter") return;
      event.preventDefault();
      submit();
    });
  });

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    submit();
  });

  renderStrength();
  renderPrice();
  updateSubmitState();
})();
