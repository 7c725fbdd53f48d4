"use strict";

(function () {
  const DEFAULTS = Object.freeze({ amount: "200000", rate: "5", term: "30" });
  const MIN_AMOUNT = 1000;
  const MAX_AMOUNT = 5000000;
  const AMOUNT_PATTERN = /^\d+(\.\d{1,2})?$/;
  const MESSAGES = Object.freeze({
    required: "Amount is required",
    notNumber: "Amount must be a number",
    range: "Amount must be between 1,000 and 5,000,000",
  });

  const els = {
    form: document.getElementById("loan-form"),
    amount: document.getElementById("amount"),
    amountError: document.getElementById("amount-error"),
    rate: document.getElementById("rate"),
    rateLabel: document.getElementById("rate-label"),
    term: document.getElementById("term"),
    results: document.getElementById("results"),
    monthly: document.getElementById("monthly-payment"),
    totalPaid: document.getElementById("total-paid"),
    totalInterest: document.getElementById("total-interest"),
    toggle: document.getElementById("schedule-toggle"),
    schedule: document.getElementById("schedule"),
    scheduleBody: document.getElementById("schedule-body"),
    reset: document.getElementById("reset"),
  };

  let scheduleOpen = false;

  /** "$1,234.56": rounded to the cent, halves up, comma-grouped, never "-$0.00". */
  function formatMoney(value) {
    const cents = Math.round(value * 100);
    const negative = cents < 0;
    const abs = Math.abs(cents);
    const whole = Math.floor(abs / 100).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    const fraction = String(abs % 100).padStart(2, "0");
    return `${negative ? "-" : ""}$${whole}.${fraction}`;
  }

  function formatRate(rate) {
    return `${rate.toFixed(2)}%`;
  }

  /** The amount as a number, or an error message. */
  function parseAmount(raw) {
    const text = raw.trim();
    if (text === "") {
      return { error: MESSAGES.required };
    }
    if (!AMOUNT_PATTERN.test(text)) {
      return { error: MESSAGES.notNumber };
    }
    const amount = Number(text);
    if (amount < MIN_AMOUNT || amount > MAX_AMOUNT) {
      return { error: MESSAGES.range };
    }
    return { amount };
  }

  /** Unrounded monthly payment by the annuity formula (straight division at 0 %). */
  function monthlyPayment(principal, annualRate, months) {
    const r = annualRate / 100 / 12;
    if (r === 0) {
      return principal / months;
    }
    return (principal * r) / (1 - Math.pow(1 + r, -months));
  }

  /** One row per year: principal and interest paid in the year, balance at its end. */
  function amortize(principal, annualRate, months, payment) {
    const r = annualRate / 100 / 12;
    const rows = [];
    let balance = principal;
    let yearPrincipal = 0;
    let yearInterest = 0;
    for (let month = 1; month <= months; month += 1) {
      const interest = balance * r;
      const repaid = payment - interest;
      balance -= repaid;
      yearPrincipal += repaid;
      yearInterest += interest;
      if (month % 12 === 0) {
        rows.push({
          year: month / 12,
          principal: yearPrincipal,
          interest: yearInterest,
          balance: month === months ? 0 : Math.max(balance, 0),
        });
        yearPrincipal = 0;
        yearInterest = 0;
      }
    }
    return rows;
  }

  function showAmountError(message) {
    els.amountError.textContent = message;
    els.amountError.hidden = message === "";
    els.amount.classList.toggle("invalid", message !== "");
  }

  function renderSchedule(rows) {
    const fragment = document.createDocumentFragment();
    for (const row of rows) {
      const tr = document.createElement("tr");
      const cells = [
        String(row.year),
        formatMoney(row.principal),
        formatMoney(row.interest),
        formatMoney(row.balance),
      ];
      for (const text of cells) {
        const td = document.createElement("td");
        td.textContent = text;
        tr.appendChild(td);
      }
      fragment.appendChild(tr);
    }
    els.scheduleBody.replaceChildren(fragment);
  }

  function updateScheduleVisibility(valid) {
    els.schedule.hidden = !(valid && scheduleOpen);
    els.toggle.disabled = !valid;
    els.toggle.textContent = scheduleOpen ? "Hide schedule" : "Show schedule";
    els.toggle.setAttribute("aria-expanded", String(scheduleOpen && valid));
  }

  /** Recompute everything from the current inputs. */
  function update() {
    const rate = Number(els.rate.value);
    els.rateLabel.textContent = formatRate(rate);

    const parsed = parseAmount(els.amount.value);
    const valid = parsed.error === undefined;
    showAmountError(valid ? "" : parsed.error);
    els.results.hidden = !valid;
    updateScheduleVisibility(valid);
    if (!valid) {
      return;
    }

    const months = Number(els.term.value) * 12;
    const payment = monthlyPayment(parsed.amount, rate, months);
    const totalPaid = Math.round(payment * months * 100) / 100;
    els.monthly.textContent = formatMoney(payment);
    els.totalPaid.textContent = formatMoney(totalPaid);
    els.totalInterest.textContent = formatMoney(totalPaid - parsed.amount);
    renderSchedule(amortize(parsed.amount, rate, months, payment));
  }

  function toggleSchedule() {
    scheduleOpen = !scheduleOpen;
    update();
  }

  function resetForm() {
    els.amount.value = DEFAULTS.amount;
    els.rate.value = DEFAULTS.rate;
    els.term.value = DEFAULTS.term;
    scheduleOpen = false;
    update();
  }

  els.form.addEventListener("submit", (event) => event.preventDefault());
  els.amount.addEventListener("input", update);
  els.rate.addEventListener("input", update);
  els.term.addEventListener("change", update);
  els.toggle.addEventListener("click", toggleSchedule);
  els.reset.addEventListener("click", resetForm);

  update();
})();
