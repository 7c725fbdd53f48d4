const LINES = [
  [0, 1, 2], [3, 4, 5], [6, 7, 8],
  [0, 3, 6], [1, 4, 7], [2, 5, 8],
  [0, 4, 8], [2, 4, 6],
];
const board = document.getElementById('board');
const status = document.getElementById('status');
const score = document.getElementById('score');
const wins = { X: 0, O: 0, draws: 0 };
let cells = [];
let marks = [];
let next = 'X';
let over = false;

function winner() {
  for (const [a, b, c] of LINES) {
    if (marks[a] && marks[a] === marks[b] && marks[a] === marks[c]) return marks[a];
  }
  return null;
}

function showScore() {
  score.textContent = `X: ${wins.X} · O: ${wins.O} · Draws: ${wins.draws}`;
}

function play(index) {
  if (over || marks[index]) return;
  marks[index] = next;
  cells[index].textContent = next;
  cells[index].setAttribute('aria-label', `Cell ${index + 1} (${next})`);
  const won = winner();
  if (won) {
    over = true;
    wins[won] += 1;
    status.textContent = `${won} wins`;
  } else if (marks.every(Boolean)) {
    over = true;
    wins.draws += 1;
    status.textContent = 'Draw';
  } else {
    next = next === 'X' ? 'O' : 'X';
    status.textContent = `Next: ${next}`;
  }
  showScore();
}

function newGame() {
  board.replaceChildren();
  marks = Array(9).fill(null);
  cells = marks.map((_, i) => {
    const cell = document.createElement('button');
    cell.type = 'button';
    cell.setAttribute('aria-label', `Cell ${i + 1} (empty)`);
    cell.addEventListener('click', () => play(i));
    board.append(cell);
    return cell;
  });
  next = 'X';
  over = false;
  status.textContent = 'Next: X';
}

document.getElementById('new-game').addEventListener('click', newGame);
newGame();
