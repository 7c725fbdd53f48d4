"""The browser side of an ``app`` task's evaluation: runs inside the sandbox (issue #15).

Started by the harness (:mod:`pytest_e2ebench.appeval`) with the web test environment's
interpreter, ``PYTHONPATH`` set to this folder, and one end of a socket pair as descriptor
``E2EBENCH_APP_FD``. It starts the generated app under its launch contract, one headless
Chromium (:class:`e2ebench_web.Browser`), and then answers JSON-line commands on the socket:

* ``launch`` -> the browser started (a failure is an infrastructure error);
* ``start`` -> starts the app (only now, after the browser) and its executability: did it
  start and its first page load without an uncaught script error or a blank body;
* ``reset`` -> a fresh page of the app with its origin's storage cleared;
* ``observe`` -> the page's accessibility tree (CDP ``Accessibility.getFullAXTree``), numbered
  so actions can name a node, and a JPEG screenshot (base64);
* ``act`` -> one action of the small action set (:data:`ACTIONS`);
* ``quit``.

The harness (the LLM agent and judge) never touches the browser: what crosses is JSON. A
command that takes longer than the start message's ``command_limit`` seconds (the task's
``[tests] timeout``; starting may take :data:`START_LIMIT`) ends this process (the harness
sees the socket close and treats the case as Uncertain); so does the end of the socket.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

from e2ebench_web import AppServer, Browser, single_window

ACTIONS = ("click", "type", "select", "scroll", "key", "navigate", "wait", "read")
COMMAND_LIMIT = 30.0  # default seconds one command may take (the task's tests.timeout)
START_LIMIT = 90.0  # seconds for the app and the browser to start
READY_LIMIT = 30.0  # seconds a served app has to accept connections on its port
TREE_LINES = 400  # lines of the accessibility tree shown
TEXT_LIMIT = 160  # characters of one node's name or value
READ_LIMIT = 4000  # characters a ``read`` returns
WAIT_LIMIT = 5.0  # seconds one ``wait`` may last
# Roles that carry no meaning of their own: their children are shown one level up.
_TRANSPARENT = {"generic", "none", "presentation", "InlineTextBox", "LineBreak", "RootWebArea"}
_KEYS = {
    "Enter": ("\r", 13),
    "Escape": ("", 27),
    "Tab": ("\t", 9),
    "Backspace": ("", 8),
    "Delete": ("", 46),
    "ArrowUp": ("", 38),
    "ArrowDown": ("", 40),
    "ArrowLeft": ("", 37),
    "ArrowRight": ("", 39),
    "Space": (" ", 32),
    "Home": ("", 36),
    "End": ("", 35),
    "PageUp": ("", 33),
    "PageDown": ("", 34),
}
# Run on an element: bring it into view and return the centre of its box (a text node: its
# parent's).
_CENTRE = """function() {
  const el = this.nodeType === 1 ? this : this.parentElement;
  el.scrollIntoView({block: 'center', inline: 'center'});
  const r = el.getBoundingClientRect();
  return [r.left + r.width / 2, r.top + r.height / 2, r.width * r.height];
}"""
_SELECT = """function(choice) {
  const el = this.nodeType === 1 ? this : this.parentElement;
  const label = el.closest('label');
  const sel = el.tagName === 'SELECT' ? el
    : (el.closest('select') || (label && label.querySelector('select')));
  if (!sel) return 'not a drop-down (select) element';
  const opt = [...sel.options].find(o => o.value === choice || o.label.trim() === choice
                                         || o.text.trim() === choice);
  if (!opt) return 'no option ' + JSON.stringify(choice) + '; options: '
                   + [...sel.options].map(o => o.text.trim()).join(', ');
  sel.focus();
  sel.value = opt.value;
  sel.dispatchEvent(new Event('input', {bubbles: true}));
  sel.dispatchEvent(new Event('change', {bubbles: true}));
  return '';
}"""
_READ = (
    "function() { const el = this.nodeType === 1 ? this : this.parentElement; "
    "return (el.innerText || el.textContent || el.value || '').toString(); }"
)
_SELECT_ALL = (
    "function() { const el = this.nodeType === 1 ? this : this.parentElement; "
    "if (el.select) el.select(); else if (el.isContentEditable) "
    "document.execCommand('selectAll'); }"
)


class ActionError(Exception):
    """An action that cannot be done as asked (reported to the agent, not an error here)."""


class App:
    """The generated app under its launch contract: served folder or a started command."""

    def __init__(self, spec: dict):
        self.spec = spec
        self.server = None
        self.proc = None
        self.problem = ""
        launch = spec["launch"]
        if launch == "static":
            self.server = AppServer(Path(spec["dir"]))
            self.url = self.server.url + spec.get("entry", "")
            self.origin = self.server.url
            return
        port = int(spec["port"])
        self.origin = f"http://127.0.0.1:{port}/"
        self.url = self.origin + spec.get("entry", "")
        if spec.get("external"):
            # the harness started it apart from us (its own uid and PID namespace, our network)
            # and writes its exit status to this pipe when it ends
            ended = int(os.environ["E2EBENCH_APP_EXIT_FD"])
            self._await(port, lambda: _status(ended))
            return
        command = [part.replace("{port}", str(port)) for part in spec["command"]]
        log = open(Path(spec["log"]), "wb")  # noqa: SIM115 - kept open while the app runs
        try:
            self.proc = subprocess.Popen(
                command,
                cwd=spec["dir"],
                env={**os.environ, "PORT": str(port), "HOST": "127.0.0.1"},
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        except OSError as exc:
            self.problem = f"the launch command could not start: {exc}"
            return
        finally:
            log.close()
        self._await(port, self.proc.poll)

    def _await(self, port: int, ended) -> None:
        """Wait for the app to serve on ``port``; ``ended()`` is its exit status once it ended."""
        deadline = time.monotonic() + READY_LIMIT
        while time.monotonic() < deadline:
            status = ended()
            if status is not None:
                self.problem = f"the launch command exited ({status}) before serving"
                return
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                return
            time.sleep(0.2)
        self.problem = f"nothing accepted connections on port {port} within {READY_LIMIT:g} s"

    def close(self) -> None:
        if self.server is not None:
            self.server.close()
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, 9)
            self.proc.wait()


def _status(fd: int) -> str | None:
    """What the harness wrote to ``fd`` (the app's exit status), or None while it runs."""
    ready, _, _ = select.select([fd], [], [], 0)
    return os.read(fd, 300).decode(errors="replace").strip() if ready else None


class Driver:
    """Answers the harness's commands with one browser on the app."""

    def __init__(self, spec: dict):
        self.spec = spec
        # The app starts only after the browser (see :meth:`start`): a command app runs with
        # this driver's uid and could kill it or the browser, which must never turn its grade
        # into the harness's "the browser did not start".
        self.app: App | None = None
        artifacts = Path(spec["artifacts"])
        artifacts.mkdir(parents=True, exist_ok=True)
        self.browser = Browser(artifacts, offline=not spec.get("network"))
        self.nodes: dict[int, int] = {}  # number shown to the agent -> backend DOM node id

    @property
    def driver(self):
        return self.browser.driver

    def launch(self) -> dict:
        """Start the browser (a failure here is the harness's, not the app's)."""
        began = time.monotonic()
        self.browser.start()
        return {"browser_start_s": round(time.monotonic() - began, 3)}

    def start(self) -> dict:
        """Executability: the app starts, its page loads, no uncaught error, a non-blank body."""
        if self.app is None:
            self.app = App(self.spec)
        record: dict = {"url": self.app.url}
        if self.app.problem:
            return {**record, "executable": False, "errors": [self.app.problem]}
        try:
            with urllib.request.urlopen(self.app.url, timeout=10) as response:
                record["status"] = response.status
        except OSError as exc:
            record["status"] = getattr(exc, "code", None) or str(exc)[:200]
        errors: list[str] = []
        if record["status"] != 200:
            errors.append(f"the first page answered {record['status']}")
        try:
            self.driver.get(self.app.url)
            time.sleep(0.3)  # load handlers and the first timers
            body = self.driver.execute_script(
                "return document.body ? document.body.innerText.trim().length + "
                "document.body.querySelectorAll('img,canvas,svg,input,button,select').length : 0"
            )
        except Exception as exc:  # noqa: BLE001 - any failure to load is the app's
            errors.append(f"page did not load: {str(exc).splitlines()[0]}")
            body = 0
        logs = [e for e in self.driver.get_log("browser") if e.get("level") == "SEVERE"]
        errors += [e["message"] for e in logs if e.get("source") == "javascript"]
        if not body and not errors:
            errors.append("the page's body is blank")
        return {
            **record,
            "executable": not errors,
            "errors": errors[:10],
            "console_errors": [e["message"] for e in logs][:10],
        }

    def reset(self) -> dict:
        """The app's first page, as a new user sees it (the origin's storage cleared).

        A served app gets the web tasks' reset (:meth:`e2ebench_web.Browser.reset`, which also
        replaces a browser that stopped answering); an app with its own server has no empty
        page on its origin, so its storage is cleared over CDP only.
        """
        if self.app.server is not None:
            self.browser.reset(self.app.origin)
        else:
            single_window(self.driver)
            origin = self.app.origin.rstrip("/")
            self.driver.execute_cdp_cmd(
                "Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"}
            )
            self.driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
        self.driver.get(self.app.url)
        self.settle()
        self.driver.get_log("browser")
        return {}

    def settle(self, quiet: float = 0.3, limit: float = 5.0) -> None:
        """Wait until the page has loaded and its text has not changed for ``quiet`` seconds
        (at most ``limit``): an app that draws after a fetch is read once drawn, on a loaded
        machine as on an idle one, so a case's verdict does not depend on the load."""
        end = time.monotonic() + limit
        last, since = None, time.monotonic()
        while time.monotonic() < end:
            try:
                now = self.driver.execute_script(
                    "return document.readyState + '|' + "
                    "(document.body ? document.body.innerText : '')"
                )
            except Exception:  # noqa: BLE001 - an alert or a navigation: read it as it is
                return
            if now != last:
                last, since = now, time.monotonic()
            elif now.startswith("complete|") and time.monotonic() - since >= quiet:
                return
            time.sleep(0.05)

    # -- observing ---------------------------------------------------------------------------

    def observe(self) -> dict:
        """The numbered accessibility tree and a screenshot of the viewport."""
        driver = self.driver
        with contextlib.suppress(Exception):
            alert = driver.switch_to.alert
            text = alert.text
            return {
                "tree": f'[dialog] alert "{text[:TEXT_LIMIT]}" (use key Enter or Escape)',
                "url": "",
                "title": "",
                "screenshot": "",
            }
        tree = driver.execute_cdp_cmd("Accessibility.getFullAXTree", {})["nodes"]
        shot = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "jpeg", "quality": 50})[
            "data"
        ]
        return {
            "tree": self._render(tree),
            "url": driver.current_url,
            "title": driver.title,
            "screenshot": shot,
        }

    def _render(self, nodes: list[dict]) -> str:
        by_id = {n["nodeId"]: n for n in nodes}
        children = {n["nodeId"]: n.get("childIds", []) for n in nodes}
        roots = [n["nodeId"] for n in nodes if not n.get("parentId")]
        self.nodes = {}
        lines: list[str] = []

        def value(node: dict, key: str) -> str:
            raw = (node.get(key) or {}).get("value", "")
            text = " ".join(str(raw).split())
            return text[:TEXT_LIMIT] + ("…" if len(text) > TEXT_LIMIT else "")

        def walk(node_id: str, depth: int) -> None:
            node = by_id.get(node_id)
            if node is None or len(lines) >= TREE_LINES:
                return
            role = value(node, "role")
            name = value(node, "name")
            shown = not node.get("ignored") and role not in _TRANSPARENT
            if role == "StaticText" and lines and name and lines[-1].endswith(f'"{name}"'):
                shown = False  # the name of its parent already says it
            if shown:
                number = len(self.nodes) + 1
                if "backendDOMNodeId" in node:
                    self.nodes[number] = node["backendDOMNodeId"]
                parts = [f"[{number}]", role]
                if name:
                    parts.append(f'"{name}"')
                val = value(node, "value")
                if val:
                    parts.append(f"value={val!r}")
                for prop in node.get("properties", []):
                    if prop.get("name") in (
                        "checked",
                        "selected",
                        "disabled",
                        "expanded",
                        "pressed",
                        "invalid",
                        "required",
                        "focused",
                    ):
                        v = prop.get("value", {}).get("value")
                        if v not in (False, "false", None):
                            parts.append(f"{prop['name']}={v}")
                lines.append("  " * depth + " ".join(parts))
            for child in children.get(node_id, []):
                walk(child, depth + 1 if shown else depth)

        for root in roots:
            walk(root, 0)
        if len(lines) >= TREE_LINES:
            lines.append(f"... (the tree is cut at {TREE_LINES} lines; scroll or read for more)")
        return "\n".join(lines) or "(the page has no accessible content)"

    # -- acting ------------------------------------------------------------------------------

    def _object(self, number) -> str:
        try:
            backend = self.nodes[int(number)]
        except (KeyError, TypeError, ValueError):
            raise ActionError(f"there is no node [{number}] in the last observation") from None
        try:
            found = self.driver.execute_cdp_cmd("DOM.resolveNode", {"backendNodeId": backend})
        except Exception:  # noqa: BLE001 - the node left the page
            raise ActionError(f"node [{number}] is no longer on the page; observe again") from None
        return found["object"]["objectId"]

    def _call(self, object_id: str, function: str, *args) -> object:
        result = self.driver.execute_cdp_cmd(
            "Runtime.callFunctionOn",
            {
                "objectId": object_id,
                "functionDeclaration": function,
                "arguments": [{"value": a} for a in args],
                "returnByValue": True,
                "awaitPromise": True,
            },
        )
        if "exceptionDetails" in result:
            raise ActionError(result["exceptionDetails"].get("text", "script error"))
        return result["result"].get("value")

    def _click(self, number) -> None:
        x, y, area = self._call(self._object(number), _CENTRE)
        if not area:
            raise ActionError(f"node [{number}] has no size on the page (hidden?)")
        for kind in ("mousePressed", "mouseReleased"):
            self.driver.execute_cdp_cmd(
                "Input.dispatchMouseEvent",
                {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1},
            )

    def _key(self, key: str) -> None:
        if key not in _KEYS and len(key) != 1:
            raise ActionError(
                f"unknown key {key!r}; use one of {', '.join(_KEYS)} or one character"
            )
        text, code = _KEYS[key] if key in _KEYS else (key, ord(key.upper()))
        with contextlib.suppress(Exception):  # an open dialog: Enter accepts, Escape dismisses
            alert = self.driver.switch_to.alert
            alert.accept() if key == "Enter" else alert.dismiss()
            return
        base = {
            "key": " " if key == "Space" else key,  # the DOM's KeyboardEvent.key
            "windowsVirtualKeyCode": code,
            "code": key if len(key) > 1 else f"Key{key.upper()}",
        }
        self.driver.execute_cdp_cmd(
            "Input.dispatchKeyEvent",
            {"type": "keyDown", **base, **({"text": text} if text else {})},
        )
        self.driver.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "keyUp", **base})

    def act(self, action: dict) -> dict:
        """Do one action; ``{"ok": bool, "result": str}``."""
        name = action.get("action")
        try:
            result = self._act(name, action)
        except ActionError as exc:
            return {"ok": False, "result": str(exc)}
        time.sleep(0.15)  # let the page react (handlers, a re-render)
        if name in ("click", "type", "select", "key", "navigate"):
            self.settle()
        return {"ok": True, "result": result}

    def _act(self, name: str, action: dict) -> str:
        driver = self.driver
        if name == "click":
            self._click(action.get("node"))
            return "clicked"
        if name == "type":
            text = str(action.get("text", ""))[:2000]
            object_id = self._object(action.get("node"))
            self._click(action.get("node"))
            if action.get("replace", True):
                self._call(object_id, _SELECT_ALL)
            driver.execute_cdp_cmd("Input.insertText", {"text": text})
            return f"typed {text!r}"
        if name == "select":
            problem = self._call(
                self._object(action.get("node")), _SELECT, str(action.get("option", ""))
            )
            if problem:
                raise ActionError(str(problem))
            return f"selected {action.get('option')!r}"
        if name == "scroll":
            amount = {"down": 600, "up": -600}.get(str(action.get("direction", "down")), 600)
            driver.execute_script("window.scrollBy(0, arguments[0])", amount)
            return f"scrolled {action.get('direction', 'down')}"
        if name == "key":
            self._key(str(action.get("key", "")))
            return f"pressed {action.get('key')}"
        if name == "navigate":
            target = urllib.parse.urljoin(self.app.url, str(action.get("url", "")))
            if not target.startswith(self.app.origin):
                raise ActionError("only pages of the app itself can be opened")
            driver.get(target)
            return f"opened {target}"
        if name == "wait":
            seconds = min(max(float(action.get("seconds", 1) or 1), 0.0), WAIT_LIMIT)
            time.sleep(seconds)
            return f"waited {seconds:g} s"
        if name == "read":
            text = str(self._call(self._object(action.get("node")), _READ) or "")
            return text[:READ_LIMIT]
        raise ActionError(f"unknown action {name!r}; use one of {', '.join(ACTIONS)}")

    def close(self) -> None:
        self.browser.quit()
        if self.app is not None:
            self.app.close()


def _watchdog(busy: list[float]) -> None:
    """End the process when one command runs too long (a page stuck in a loop).

    ``busy`` is [start of the command running (0: none), its limit in seconds].
    """
    while True:
        time.sleep(0.25)
        if busy[0] and time.monotonic() - busy[0] > busy[1]:
            os._exit(3)


def main() -> int:
    sock = socket.socket(fileno=int(os.environ["E2EBENCH_APP_FD"]))
    reader = sock.makefile("rb")
    spec = json.loads(reader.readline())
    limit = float(spec.get("command_limit") or COMMAND_LIMIT)
    busy = [0.0, START_LIMIT]
    threading.Thread(target=_watchdog, args=(busy,), daemon=True).start()
    driver = None

    def send(message: dict) -> None:
        sock.sendall(json.dumps(message).encode() + b"\n")

    try:
        busy[0] = time.monotonic()
        driver = Driver(spec)
        busy[0] = 0.0
        for line in reader:
            command = json.loads(line)
            op = command.get("op")
            if op == "quit":
                break
            busy[:] = [time.monotonic(), START_LIMIT if op in ("launch", "start") else limit]
            try:
                if op == "launch":
                    answer = driver.launch()
                elif op == "start":
                    answer = driver.start()
                elif op == "reset":
                    answer = driver.reset()
                elif op == "observe":
                    answer = driver.observe()
                elif op == "act":
                    answer = driver.act(command.get("action") or {})
                else:
                    answer = {"error": f"unknown command {op!r}"}
            except Exception as exc:  # noqa: BLE001 - reported; the harness decides
                answer = {"error": f"{type(exc).__name__}: {str(exc).splitlines()[0][:300]}"}
            busy[0] = 0.0
            send(answer)
    finally:
        if driver is not None:
            driver.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
