"""GitHub-style anchor slugs for headings."""


def slugify(text: str) -> str:
    """Return the GitHub-style anchor slug of ``text``, without duplicate handling.

    The text is lower-cased; every character that is neither alphanumeric
    (``str.isalnum``) nor one of space, ``-`` and ``_`` is removed; each
    remaining space becomes ``-``.

    >>> slugify("Hello, World!")
    'hello-world'
    """
    kept = "".join(char for char in text.lower() if char.isalnum() or char in " -_")
    return kept.replace(" ", "-")


class Slugger:
    """Hands out unique slugs, suffixing repeats with ``-1``, ``-2``, ...

    Each slug handed out is remembered together with a counter that starts at
    zero. A base slug that is already taken gets its counter increased until
    ``base-counter`` is free.
    """

    def __init__(self) -> None:
        self._occurrences: dict[str, int] = {}

    def slug(self, text: str) -> str:
        """Return a slug for ``text`` that this slugger has not returned before."""
        base = slugify(text)
        candidate = base
        while candidate in self._occurrences:
            self._occurrences[base] += 1
            candidate = f"{base}-{self._occurrences[base]}"
        self._occurrences[candidate] = 0
        return candidate
