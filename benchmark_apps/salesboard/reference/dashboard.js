const regionSelect = document.getElementById('region');
const rowsBody = document.getElementById('rows');
const totalLine = document.getElementById('total');
const bestLine = document.getElementById('best');
let sales = [];
let sorted = false;

function parse(text) {
  const [header, ...lines] = text.trim().split(/\r?\n/);
  const names = header.split(',');
  return lines.map((line) => {
    const values = line.split(',');
    const row = Object.fromEntries(names.map((n, i) => [n, values[i]]));
    row.units = Number(row.units);
    row.revenue = row.units * Number(row.unit_price);
    return row;
  });
}

function shown() {
  const region = regionSelect.value;
  const rows = sales.filter((r) => region === 'All' || r.region === region);
  // Array.prototype.sort is stable: equal revenues keep the file's order.
  return sorted ? [...rows].sort((a, b) => b.revenue - a.revenue) : rows;
}

function render() {
  const rows = shown();
  rowsBody.replaceChildren(...rows.map((r) => {
    const tr = document.createElement('tr');
    for (const value of [r.date, r.region, r.product, r.units, r.revenue.toFixed(2)]) {
      const td = document.createElement('td');
      td.textContent = value;
      tr.append(td);
    }
    return tr;
  }));
  const total = rows.reduce((sum, r) => sum + r.revenue, 0);
  totalLine.textContent = `Total revenue: ${total.toFixed(2)}`;
  const byProduct = new Map();
  for (const r of rows) byProduct.set(r.product, (byProduct.get(r.product) || 0) + r.revenue);
  let best = null;
  for (const [product, revenue] of byProduct) {
    if (!best || revenue > best[1]) best = [product, revenue];
  }
  bestLine.textContent = best ? `Best product: ${best[0]} (${best[1].toFixed(2)})` : 'Best product: -';
}

regionSelect.addEventListener('change', render);
document.getElementById('sort').addEventListener('click', () => {
  sorted = true;
  render();
});

fetch('materials/sales.csv')
  .then((response) => response.text())
  .then((text) => {
    sales = parse(text);
    const regions = [...new Set(sales.map((r) => r.region))].sort();
    for (const region of regions) regionSelect.append(new Option(region, region));
    render();
  });
