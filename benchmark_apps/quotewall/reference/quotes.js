const QUOTES = [
  ['Ada Lovelace', 'Science', 'The more I study, the more insatiable do I feel my genius for it.'],
  ['Grace Hopper', 'Work', 'The most dangerous phrase in the language is: we have always done it this way.'],
  ['Marie Curie', 'Science', 'Nothing in life is to be feared, it is only to be understood.'],
  ['Maya Angelou', 'Life', "Try to be a rainbow in someone's cloud."],
  ['Confucius', 'Life', 'It does not matter how slowly you go as long as you do not stop.'],
  ['Steve Jobs', 'Work', 'The only way to do great work is to love what you do.'],
].map(([author, topic, text]) => ({ author, topic, text, likes: 0 }));

const topic = document.getElementById('topic');
const search = document.getElementById('search');
const wall = document.getElementById('wall');
const showing = document.getElementById('showing');

function likesText(n) {
  return n === 1 ? '1 like' : `${n} likes`;
}

function render() {
  const needle = search.value.trim().toLowerCase();
  const shown = QUOTES.filter((q) => (topic.value === 'All topics' || q.topic === topic.value)
    && (!needle || q.text.toLowerCase().includes(needle) || q.author.toLowerCase().includes(needle)));
  wall.replaceChildren(...shown.map((q) => {
    const card = document.createElement('article');
    const text = document.createElement('blockquote');
    text.textContent = q.text;
    const author = document.createElement('p');
    author.textContent = q.author;
    const tag = document.createElement('p');
    tag.className = 'topic';
    tag.textContent = q.topic;
    const like = document.createElement('button');
    like.type = 'button';
    like.setAttribute('aria-label', `Like ${q.author}`);
    like.textContent = '♥';
    const count = document.createElement('span');
    count.textContent = likesText(q.likes);
    like.addEventListener('click', () => {
      q.likes += 1;
      count.textContent = likesText(q.likes);
    });
    card.append(text, author, tag, like, ' ', count);
    return card;
  }));
  showing.textContent = `Showing ${shown.length} of ${QUOTES.length} quotes`;
}

topic.addEventListener('change', render);
search.addEventListener('input', render);
render();
