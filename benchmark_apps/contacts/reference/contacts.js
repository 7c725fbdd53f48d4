const KEY = 'contacts';
const nameField = document.getElementById('name');
const emailField = document.getElementById('email');
const message = document.getElementById('message');
const search = document.getElementById('search');
const list = document.getElementById('list');
const count = document.getElementById('count');

function load() {
  try {
    return JSON.parse(localStorage.getItem(KEY)) || [];
  } catch {
    return [];
  }
}

let contacts = load();

function save() {
  localStorage.setItem(KEY, JSON.stringify(contacts));
}

function validEmail(email) {
  const parts = email.split('@');
  return parts.length === 2 && parts[0] !== '' && parts[1] !== '';
}

function render() {
  const needle = search.value.trim().toLowerCase();
  const shown = contacts
    .filter((c) => !needle || c.name.toLowerCase().includes(needle)
      || c.email.toLowerCase().includes(needle))
    .sort((a, b) => a.name.localeCompare(b.name, undefined, { sensitivity: 'base' }));
  list.replaceChildren(...shown.map((c) => {
    const item = document.createElement('li');
    item.textContent = `${c.name} <${c.email}>`;
    const remove = document.createElement('button');
    remove.type = 'button';
    remove.textContent = `Delete ${c.name}`;
    remove.addEventListener('click', () => {
      contacts = contacts.filter((other) => other !== c);
      save();
      render();
    });
    item.append(remove);
    return item;
  }));
  count.textContent = contacts.length === 1 ? '1 contact' : `${contacts.length} contacts`;
}

document.getElementById('add-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const name = nameField.value.trim();
  const email = emailField.value.trim();
  if (!name) {
    message.textContent = 'Enter a name';
    return;
  }
  if (!validEmail(email)) {
    message.textContent = 'Enter a valid e-mail address';
    return;
  }
  if (contacts.some((c) => c.email.toLowerCase() === email.toLowerCase())) {
    message.textContent = 'This e-mail address is already saved';
    return;
  }
  contacts.push({ name, email });
  save();
  message.textContent = '';
  nameField.value = '';
  emailField.value = '';
  render();
});
search.addEventListener('input', render);
render();
