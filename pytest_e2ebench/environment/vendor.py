"""Third-party scripts, styles and fonts of web apps, served offline from npm packages.

Web apps load jQuery, Bootstrap, Font Awesome or a Google font from a CDN; offline (the sandbox
has no network) they break. Most CDN addresses name an npm package, a version and a file:

* ``cdn.jsdelivr.net/npm/PKG@VER/FILE`` and ``unpkg.com/PKG@VER/FILE`` directly (no file: the
  package's own ``jsdelivr``/``unpkg``/``browser``/``main`` entry; no version: the newest, pinned
  when the task is imported);
* ``cdnjs.cloudflare.com/ajax/libs/LIB/VER/FILE`` and ``ajax.googleapis.com/ajax/libs/...``
  (the file is looked for as given, under ``dist/``, then by its tail);
* ``code.jquery.com/jquery-VER(.slim)(.min).js``, ``*.bootstrapcdn.com/bootstrap|font-awesome``;
* ``fonts.googleapis.com/css`` and ``css2``: each family's ``@fontsource/<family>`` weights, in a
  stylesheet written here (``@fontsource`` republishes Google's fonts on npm).

:func:`resolve` turns such addresses into :class:`Vendored` entries (package, version, entry
file, and the SHA-256 of every file served: a stylesheet's fonts and images come along), filling
the user's vendor cache (``$E2EBENCH_CACHE/vendor``, default ``~/.cache/pytest-e2ebench/vendor``)
with ``npm pack``, whose registry the user's npm configuration names. :func:`materialize`
copies the files a run needs out of the cache, each checked against its hash, into a folder the
sandboxed web run reads; the web plugin serves them under ``/__e2ebench__/vendor/`` on the
app's own origin and rewrites the CDN addresses in the app's HTML, CSS and JavaScript as it
serves them (the files on disk are never changed). An address that names no package (an API,
an image host) is *live*: the importer reports it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
import urllib.parse
from pathlib import Path, PurePosixPath

from ..errors import InfrastructureError
from ..run.cache import file_lock
from .source import cache_root, sha256_of

ROUTE_PREFIX = "/__e2ebench__/vendor/"
ROUTES_FILE = "routes.json"
MANIFEST = "vendor.json"  # in a task folder: what the importer resolved
NPM_TIMEOUT = 120
MAX_URLS = 40  # per app: a run never fetches more packages than this
MAX_CSS_BYTES = 4 << 20
# What an app loads (a link is not loaded): script/img/iframe/source/audio/video src, a <link>'s
# href, CSS url() and @import, and fetch/XMLHttpRequest/import() of a literal address.
LOADED = re.compile(
    r"""<(?:script|img|iframe|source|audio|video|embed|input)\b[^>]*?\bsrc\s*=\s*["']\s*"""
    r"""(?P<src>(?:https?:)?//[^"'\s<>]+)"""
    r"""|<link\b[^>]*?\bhref\s*=\s*["']\s*(?P<href>(?:https?:)?//[^"'\s<>]+)"""
    r"""|url\(\s*["']?\s*(?P<url>(?:https?:)?//[^"')\s]+)"""
    r"""|@import\s+(?:url\(\s*)?["']\s*(?P<imp>(?:https?:)?//[^"')\s]+)"""
    r"""|(?:fetch|\.open|import)\s*\(\s*(?:["'`]\s*|[^,()]*,\s*["'`])"""
    r"""(?P<call>(?:https?:)?//[^"'`\s]+)""",
    re.IGNORECASE,
)
TEXT_SUFFIXES = (".html", ".htm", ".css", ".js", ".mjs")
# npm's rules for a package name, and a version or range spec as CDNs write them (no URLs, no
# paths, no options: these strings come from files an agent wrote and reach npm's argv).
NPM_NAME = re.compile(r"^(?:@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*$")
NPM_SPEC = re.compile(r"^[0-9xX*^~][0-9A-Za-z.+^~*-]{0,40}$|^latest$")
# cdnjs library names that are published on npm under another name
CDNJS_PACKAGES = {
    "font-awesome": lambda v: "@fortawesome/fontawesome-free" if v[:1] >= "5" else "font-awesome",
    "jqueryui": lambda v: "jquery-ui-dist",
    "Chart.js": lambda v: "chart.js",
    "twitter-bootstrap": lambda v: "bootstrap",
    "animate.css": lambda v: "animate.css",
}
GOOGLE_FONT_HOSTS = ("fonts.googleapis.com",)


class VendorError(Exception):
    """A CDN address that cannot be served from an npm package; the text says why."""


@dataclasses.dataclass(frozen=True)
class Package:
    """One file of an npm package (``file`` None: the package's default entry)."""

    name: str
    spec: str  # a version or a range ("latest" when the address has none)
    file: str | None


@dataclasses.dataclass
class Vendored:
    """A CDN address served from the cache: what to serve at it, and every file's hash."""

    url: str
    packages: list[dict]  # {"name", "version", "files": {path: sha256}}
    entry: str  # path under the vendor folder served in place of ``url``
    stylesheet: str | None = None  # fonts: the stylesheet written here (entry is its name)
    notes: list[str] = dataclasses.field(default_factory=list)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Vendored:
        return cls(**{f.name: data[f.name] for f in dataclasses.fields(cls) if f.name in data})


# ---------------------------------------------------------------------------------------------
# Addresses


def loaded_urls(text: str) -> list[str]:
    """The absolute addresses a page, stylesheet or script loads, in order, each once."""
    found = []
    for m in LOADED.finditer(text):
        url = next(v for v in m.groupdict().values() if v)
        if url not in found:
            found.append(url)
    return found


def app_texts(app: Path):
    """The text of every HTML, CSS and JavaScript file of the app under ``app``."""
    for path in sorted(app.rglob("*")):
        if path.suffix.lower() in TEXT_SUFFIXES and path.is_file() and not path.is_symlink():
            yield path.read_text(encoding="utf-8", errors="replace")


def app_calls(app: Path) -> set[str]:
    """The absolute addresses the app's scripts fetch (an API), not load as a resource."""
    return {m["call"] for text in app_texts(app) for m in LOADED.finditer(text) if m["call"]}


def _absolute(url: str) -> urllib.parse.SplitResult:
    url = url.replace("&amp;", "&")
    return urllib.parse.urlsplit("https:" + url if url.startswith("//") else url)


def locate(url: str) -> list[Package] | None:
    """The npm files a CDN address stands for; None when it names no package (a live address).

    Raises :class:`VendorError` for a CDN address whose form is not understood.
    """
    parts = _absolute(url)
    host = (parts.hostname or "").lower()
    path = urllib.parse.unquote(parts.path)
    if host in GOOGLE_FONT_HOSTS:
        return _google_fonts(parts)
    segments = [s for s in path.split("/") if s]
    if host in ("cdn.jsdelivr.net", "unpkg.com"):
        if host == "cdn.jsdelivr.net":
            if not segments or segments[0] != "npm":
                raise VendorError(f"{url}: only jsDelivr's /npm/ addresses name an npm package")
            segments = segments[1:]
        take = 2 if segments and segments[0].startswith("@") else 1
        if len(segments) < take:
            raise VendorError(f"{url}: no package name in the address")
        last, _, spec = segments[take - 1].partition("@")
        name = "/".join([*segments[: take - 1], last])
        rest = "/".join(segments[take:])
        return [Package(name, spec or "latest", rest or None)]
    if host in ("cdnjs.cloudflare.com", "ajax.googleapis.com") and segments[:2] == [
        "ajax",
        "libs",
    ]:
        if len(segments) < 5:
            raise VendorError(f"{url}: expected /ajax/libs/LIBRARY/VERSION/FILE")
        lib, version, rest = segments[2], segments[3], "/".join(segments[4:])
        name = CDNJS_PACKAGES.get(lib, lambda v: lib.lower())(version)
        return [Package(name, version, rest)]
    if host == "code.jquery.com":
        m = re.fullmatch(r"jquery-(\d[\w.]*?)((?:\.slim)?(?:\.min)?)\.js", "/".join(segments))
        if m:
            return [Package("jquery", m[1], f"dist/jquery{m[2]}.js")]
        m = re.fullmatch(r"ui/(\d[\w.]*)/(.+)", "/".join(segments))
        if m:
            return [Package("jquery-ui-dist", m[1], m[2])]
        raise VendorError(f"{url}: not a jQuery or jQuery UI file")
    if host.endswith("bootstrapcdn.com") and len(segments) >= 3:
        lib, version, rest = segments[0], segments[1], "/".join(segments[2:])
        if lib in ("bootstrap", "twitter-bootstrap"):
            return [Package("bootstrap", version, f"dist/{rest}")]
        if lib == "font-awesome":
            return [Package("font-awesome", version, rest)]
        raise VendorError(f"{url}: {lib} on bootstrapcdn has no known npm package")
    return None


def _google_fonts(parts: urllib.parse.SplitResult) -> list[Package]:
    """``@fontsource/<family>`` stylesheets for the families and weights of a Google Fonts URL."""
    query = urllib.parse.parse_qs(parts.query)
    families = []
    for value in query.get("family", []):
        families += [f for f in value.split("|") if f.strip()]
    if not families:
        raise VendorError(f"{parts.geturl()}: no family= in a Google Fonts address")
    out = []
    for family in families:
        name, _, axes = family.partition(":")
        slug = re.sub(r"[^a-z0-9]+", "-", name.strip().lower()).strip("-")
        styles: list[str] = []
        if "@" in axes:  # css2: wght@400;700 or ital,wght@0,400;1,700
            keys, _, tuples = axes.partition("@")
            keys = keys.split(",")
            for item in tuples.split(";"):
                values = dict(zip(keys, item.split(","), strict=False))
                weight = values.get("wght", "400").split("..")[0]
                styles.append(weight + ("-italic" if values.get("ital") == "1" else ""))
        elif axes:  # css: 400,700italic or 400i
            for item in axes.split(","):
                m = re.fullmatch(r"(\d+)?\s*(i|italic)?", item.strip().lower())
                if m:
                    styles.append((m[1] or "400") + ("-italic" if m[2] else ""))
        for style in dict.fromkeys(styles or ["400"]):
            out.append(Package(f"@fontsource/{slug}", "latest", f"{style}.css"))
    return out


# ---------------------------------------------------------------------------------------------
# The cache


def vendor_root() -> Path:
    """The user's vendor cache: unpacked npm packages, one folder per name and version."""
    return cache_root() / "vendor"


def _npm(*args: str) -> str:
    npm = shutil.which("npm")
    if npm is None:
        raise VendorError("npm is not on PATH (it fetches the packages; apt-get install npm)")
    try:
        done = subprocess.run(
            [npm, *args, "--ignore-scripts", "--no-fund", "--no-audit"],
            capture_output=True,
            text=True,
            timeout=NPM_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        raise VendorError(f"npm {' '.join(args)}: no answer in {NPM_TIMEOUT}s") from None
    if done.returncode != 0:
        lines = [ln for ln in done.stderr.splitlines() if "ERR" in ln] or done.stderr.splitlines()
        raise VendorError(f"npm {' '.join(args)}: {' '.join(lines[-3:]).strip()[:300]}")
    return done.stdout


def resolve_version(name: str, spec: str) -> str:
    """The newest published version of ``name`` that ``spec`` allows (asks the registry)."""
    if not NPM_NAME.match(name) or not NPM_SPEC.match(spec):
        raise VendorError(f"{name}@{spec}: not an npm package name and version")
    if re.fullmatch(r"\d+\.\d+\.\d+", spec) and _package_dir(name, spec).is_dir():
        return spec
    out = _npm("view", f"{name}@{spec}", "version", "--json")
    try:
        found = json.loads(out) if out.strip() else None
    except ValueError:
        found = None
    if isinstance(found, list):
        found = found[-1] if found else None
    if not isinstance(found, str):
        raise VendorError(f"{name}@{spec}: no such version on the npm registry")
    return found


def _package_dir(name: str, version: str) -> Path:
    return vendor_root() / "npm" / f"{name.replace('/', '+')}@{version}"


def fetch(name: str, version: str) -> Path:
    """The unpacked package ``name@version`` in the cache (``npm pack`` on a miss)."""
    if not NPM_NAME.match(name) or not re.fullmatch(r"[0-9A-Za-z.+-]{1,60}", version):
        raise VendorError(f"{name}@{version}: not an npm package name and exact version")
    dest = _package_dir(name, version)
    marker = dest / ".complete"
    if marker.is_file():
        return dest / "package"
    with file_lock(dest.parent / f".{dest.name}.lock"):
        if not marker.is_file():
            if dest.exists():
                shutil.rmtree(dest)  # half-unpacked by a killed session
            with tempfile.TemporaryDirectory(prefix="e2ebench-npm-") as tmp:
                # npm checks the tarball against the registry's integrity hash
                out = _npm("pack", f"{name}@{version}", "--json", "--pack-destination", tmp)
                try:
                    tarball = Path(tmp) / json.loads(out)[0]["filename"]
                except (ValueError, LookupError, TypeError):
                    raise VendorError(f"npm pack {name}@{version}: unexpected output") from None
                unpacked = Path(tmp) / "unpacked"
                with tarfile.open(tarball) as archive:
                    archive.extractall(unpacked, filter="data")
                top = [p for p in unpacked.iterdir() if p.is_dir()]
                if len(top) != 1:
                    raise VendorError(f"{name}@{version}: the tarball has no single top folder")
                dest.mkdir(parents=True)
                shutil.move(top[0], dest / "package")
            marker.write_text(f"{name}@{version}\n")
    return dest / "package"


def _find(root: Path, wanted: str) -> str | None:
    """The package file a CDN path names: as given, under dist/, or the one with that tail."""
    wanted = wanted.lstrip("/")
    for candidate in (wanted, f"dist/{wanted}"):
        if (root / candidate).is_file():
            return candidate
    files = [p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()]
    for tail in (f"/{wanted}", f"/{PurePosixPath(wanted).name}"):
        hits = sorted((f for f in files if f.endswith(tail)), key=lambda f: (len(f), f))
        if hits:
            return hits[0]
    return None


def _font_file(root: Path, wanted: str) -> str | None:
    """A weight's stylesheet in an ``@fontsource`` package (its file names changed over time)."""
    style = wanted.removesuffix(".css")
    weight, _, italic = style.partition("-")
    for candidate in (
        wanted,
        f"latin-{weight}-{italic or 'normal'}.css",
        f"latin-{style}.css",
        *(("index.css",) if style == "400" else ()),
    ):
        if (root / candidate).is_file():
            return candidate
    return None


def _default_entry(root: Path) -> str | None:
    try:
        meta = json.loads((root / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    for key in ("jsdelivr", "unpkg", "browser", "main"):
        value = meta.get(key)
        if isinstance(value, str) and value.strip():
            entry = value.strip().lstrip("./").lstrip("/")
            if (root / entry).is_file():
                return entry
            if (root / f"{entry}.js").is_file():
                return f"{entry}.js"
    return "index.js" if (root / "index.js").is_file() else None


def _css_closure(root: Path, entry: str) -> list[str]:
    """``entry`` and the package files its CSS loads by relative url() or @import."""
    out, todo = [], [entry]
    while todo:
        rel = todo.pop()
        if rel in out:
            continue
        out.append(rel)
        if not rel.endswith(".css"):
            continue
        text = (root / rel).read_bytes()[:MAX_CSS_BYTES].decode("utf-8", "replace")
        refs = re.findall(r"""url\(\s*["']?([^"')]+)["']?\s*\)""", text)
        refs += re.findall(r"""@import\s+["']([^"']+)["']""", text)
        for ref in refs:
            ref = re.split(r"[?#]", ref.strip(), maxsplit=1)[0]
            if not ref or re.match(r"^(?:[a-z]+:|//|/)", ref, re.I):
                continue  # data:, absolute and root-relative addresses are not package files
            target = os.path.normpath(str(PurePosixPath(rel).parent / ref)).replace(os.sep, "/")
            if not target.startswith("..") and (root / target).is_file():
                todo.append(target)
    return out


def resolve(url: str, pins: dict[str, str] | None = None) -> Vendored | None:
    """What to serve at ``url`` from the cache (fetched from npm as needed); None if live.

    ``pins`` maps package names to the versions a task was imported with, for addresses that
    name no version. Raises :class:`VendorError` when the address names a package file that
    cannot be had.
    """
    wanted = locate(url)
    if wanted is None:
        return None
    packages: list[dict] = []
    entries: list[str] = []
    notes: list[str] = []
    for want in wanted:
        version = (pins or {}).get(want.name) if want.spec == "latest" else None
        version = version or resolve_version(want.name, want.spec)
        root = fetch(want.name, version)
        if want.file is None:
            file = _default_entry(root)
        elif want.name.startswith("@fontsource/"):
            file = _font_file(root, want.file)
        else:
            file = _find(root, want.file)
        if file is None:
            problem = f"{want.name}@{version} has no file {want.file or '(default entry)'}"
            if want.name.startswith("@fontsource/"):
                notes.append(problem)  # a weight the family does not have: the browser falls back
                continue
            raise VendorError(f"{url}: {problem}")
        files = _css_closure(root, file)
        packages.append(
            {
                "name": want.name,
                "version": version,
                "files": {f: sha256_of(root / f) for f in files},
            }
        )
        entries.append(f"{want.name}@{version}/{file}")
    if not entries:
        raise VendorError(f"{url}: {'; '.join(notes)}")
    if len(wanted) == 1 and not wanted[0].name.startswith("@fontsource/"):
        return Vendored(url=url, packages=packages, entry=entries[0], notes=notes)
    # fonts: one stylesheet importing each family's weights
    sheet = "".join(f'@import url("{ROUTE_PREFIX}{e}");\n' for e in entries)
    name = f"fonts/{hashlib.sha256(sheet.encode()).hexdigest()[:16]}.css"
    return Vendored(url=url, packages=packages, entry=name, stylesheet=sheet, notes=notes)


# ---------------------------------------------------------------------------------------------
# A run's vendor folder


def read_manifest(task_root: Path) -> list[Vendored]:
    """The vendored addresses a task was imported with (its ``vendor.json``), or none."""
    path = task_root / MANIFEST
    if not path.is_file():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return [Vendored.from_dict(v) for v in data["vendored"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InfrastructureError(
            "vendor",
            f"{path}: field 'vendored' cannot be read ({exc!r}); import the task again "
            "(e2ebench import e2edev) or delete the file to run without vendored files",
        ) from None


def write_manifest(task_root: Path, vendored: list[Vendored]) -> None:
    """Record what a task's app loads from CDNs and where in npm it comes from."""
    (task_root / MANIFEST).write_text(
        json.dumps({"schema": 1, "vendored": [v.to_dict() for v in vendored]}, indent=1) + "\n",
        encoding="utf-8",
    )


def vendor_app(app: Path) -> tuple[list[Vendored], list[str], list[dict]]:
    """Resolve every address the app under ``app`` loads: (vendored, live, not vendored).

    *live* addresses name no npm package (an API, an image host); *not vendored* ones name a
    package file that cannot be had (``{"url", "reason"}``).
    """
    urls: list[str] = []
    for text in app_texts(app):
        urls += [u for u in loaded_urls(text) if u not in urls]
    vendored, live, failed = [], [], []
    for url in urls[:MAX_URLS]:
        try:
            found = resolve(url)
        except VendorError as exc:
            failed.append({"url": url, "reason": str(exc)})
            continue
        if found is None:
            live.append(url)
        else:
            vendored.append(found)
    failed += [{"url": u, "reason": f"more than {MAX_URLS} addresses"} for u in urls[MAX_URLS:]]
    return vendored, live, failed


def address_forms(url: str) -> list[str]:
    """The forms one address is written in: https, http, protocol-relative; ``&`` or ``&amp;``."""
    rest = re.sub(r"^(?:https?:)?//", "", url)
    out = []
    for scheme in ("https://", "http://", "//"):
        for text in (rest, rest.replace("&amp;", "&"), rest.replace("&", "&amp;")):
            form = scheme + text.replace("&amp;amp;", "&amp;")
            if form not in out:
                out.append(form)
    return out


def materialize(vendored: list[Vendored], dest: Path) -> dict[str, str]:
    """Copy the files of ``vendored`` out of the cache into ``dest``, each checked by hash.

    Writes ``dest/routes.json`` (address -> path on the app's origin) and returns it. A file
    missing from the cache is fetched again; one whose bytes differ from the hash recorded at
    import is an infrastructure error.
    """
    dest.mkdir(parents=True, exist_ok=True)
    routes: dict[str, str] = {}
    for item in vendored:
        for pkg in item.packages:
            try:
                root = fetch(pkg["name"], pkg["version"])
            except VendorError as exc:
                raise InfrastructureError("vendor", str(exc)) from None
            for rel, digest in pkg["files"].items():
                source = root / rel
                if not source.is_file() or sha256_of(source) != digest:
                    raise InfrastructureError(
                        "vendor",
                        f"{pkg['name']}@{pkg['version']}/{rel} in {root} does not match the "
                        f"SHA-256 recorded for {item.url} ({digest[:12]}...); delete "
                        f"{root.parent} to fetch it again",
                    )
                target = dest / f"{pkg['name']}@{pkg['version']}" / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, target)
        if item.stylesheet is not None:
            (dest / item.entry).parent.mkdir(parents=True, exist_ok=True)
            (dest / item.entry).write_text(item.stylesheet, encoding="utf-8")
        for form in address_forms(item.url):
            routes[form] = ROUTE_PREFIX + urllib.parse.quote(item.entry)
    (dest / ROUTES_FILE).write_text(json.dumps(routes, indent=1) + "\n", encoding="utf-8")
    return routes
