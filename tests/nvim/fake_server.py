#!/usr/bin/env python3
"""A stand-in for `racelens lsp` that follows editors/README.md, for testing the Neovim
plugin's client side alone (tests/nvim/client.lua): it records what the client sends and
answers the custom request `fake/seen` with the record.

- initialize: records initializationOptions and the client's experimental capabilities.
- initialized: pulls `workspace/configuration` section `racelens` (records the answer).
- didOpen of a *Test.java file: code lenses are empty until 300 ms later, when it sends
  `racelens/codeLensRefresh` (or `workspace/codeLens/refresh` if the client advertises
  refreshSupport), then a `▶ Explore schedules` lens on the line of `@Test`.
- didOpen of another .java file: one RL001 diagnostic on line 2.
- workspace/executeCommand: records the params and shows a message; then, by command:
  - racelens.exploreTest: answers `{queued, test}`, creates the progress
    `racelens/explore/1` (window/workDoneProgress/create), begins and reports it;
  - racelens.showSchedule: answers `{uri}` and asks the client to show that document
    (window/showDocument if it advertises it, else `racelens/showDocument`);
  - racelens.replay: answers `{queued}`, then shows `racelens: replay of ...: still fails`;
  - racelens.cancel: ends a running exploration (`cancelled`), answers `{cancelled: n}`;
  - others: answers null.
- racelens/document: markdown text naming the URI.
- fake/sendCodeLensRefresh: sends `workspace/codeLens/refresh` as a request, records the
  client's answer.
- fake/finishExploration: ends the exploration with a failure; the test's lenses become
  those of a failing schedule (`✗ ...`, Show schedule, Replay, Copy), refreshed.
- fake/sendShowDocument `{uri}`: sends `window/showDocument`, records the client's answer.
Stdlib only.
"""
import json
import sys
import threading
import time

out_lock = threading.Lock()
seen = {
    "initializationOptions": None,
    "configuration": None,
    "executeCommand": [],
    "didOpen": [],
    "didChangeConfiguration": [],
    "codeLensRequests": 0,
    "refreshAnswers": [],
    "showDocumentAnswers": [],
    "progressCreated": [],
    "pid": None,
    "experimental": None,
}
TEST = "org.example.FooTest#testX"
TOKEN = "racelens/explore/1"
REPLAY = "racelens replay /proj --test org.example.FooTest#testX --schedule v1_0r2,2r10"
exploration = {"state": None}  # None, "running" or "failed"
show_document_support = False
docs = {}  # uri -> text
refreshed = set()  # uris whose lenses are ready
refresh_support = False
next_id = [1000]
pending = {}  # id -> callback


def send(msg):
    msg["jsonrpc"] = "2.0"
    body = json.dumps(msg).encode("utf-8")
    with out_lock:
        sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body))
        sys.stdout.buffer.write(body)
        sys.stdout.buffer.flush()


def request(method, params, callback):
    next_id[0] += 1
    pending[next_id[0]] = callback
    send({"id": next_id[0], "method": method, "params": params})


def read_message():
    headers = {}
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return None
        line = line.decode("ascii").strip()
        if not line:
            break
        k, v = line.split(":", 1)
        headers[k.strip().lower()] = v.strip()
    n = int(headers["content-length"])
    return json.loads(sys.stdin.buffer.read(n).decode("utf-8"))


def lens(rng, title, command, arg):
    return {"range": rng, "command": {"title": title, "command": command, "arguments": [arg]}}


def failure_lenses(rng):
    key = {"root": "/proj", "test": TEST}
    return [
        lens(rng, "✗ AssertionError after 12 schedules (1 preemption)", "racelens.showSchedule", key),
        lens(rng, "Show schedule", "racelens.showSchedule", key),
        lens(rng, "Replay", "racelens.replay", dict(key, schedule="v1_0r2,2r10")),
        lens(rng, "Copy", "racelens.copySchedule", {"text": REPLAY}),
    ]


def lenses_for(uri):
    if uri not in refreshed:
        return []
    text = docs.get(uri, "")
    for i, line in enumerate(text.split("\n")):
        if "@Test" in line:
            rng = {"start": {"line": i, "character": 0}, "end": {"line": i, "character": len(line)}}
            arg = {"uri": uri, "class": "org.example.FooTest", "method": "testX"}
            explore = lens(rng, "▶ Explore schedules · reaches 7 impacted points", "racelens.exploreTest", arg)
            return [explore] + (failure_lenses(rng) if exploration["state"] == "failed" else [])
    return []


def progress(value):
    send({"method": "$/progress", "params": {"token": TOKEN, "value": value}})


def start_exploration():
    def created(answer):
        seen["progressCreated"].append(answer)
        exploration["state"] = "running"
        progress({"kind": "begin", "title": "racelens: exploring " + TEST, "cancellable": True,
                  "message": "starting the JVM"})
        progress({"kind": "report", "message": "12 schedules · preemption bound 1 · 340/s", "cancellable": True})
    request("window/workDoneProgress/create", {"token": TOKEN}, created)


def finish_exploration():
    exploration["state"] = "failed"
    progress({"kind": "end", "message": "✗ AssertionError after 12 schedules"})
    send({"method": "racelens/codeLensRefresh"})


def show_document(uri):
    if show_document_support:
        request("window/showDocument", {"uri": uri, "takeFocus": True},
                lambda r: seen["showDocumentAnswers"].append(r))
    else:
        send({"method": "racelens/showDocument", "params": {"uri": uri}})


def execute_command(params):
    """The answer to workspace/executeCommand, after what the command does."""
    command = params["command"]
    if command == "racelens.exploreTest":
        start_exploration()
        return {"queued": True, "test": TEST}
    if command == "racelens.showSchedule":
        show_document("racelens:/schedule/1")
        return {"uri": "racelens:/schedule/1"}
    if command == "racelens.replay":
        send({"method": "window/showMessage", "params": {
            "type": 2, "message": "racelens: replay of %s: still fails: AssertionError" % TEST}})
        return {"queued": True}
    if command == "racelens.cancel":
        running = exploration["state"] == "running"
        if running:
            exploration["state"] = None
            progress({"kind": "end", "message": "cancelled"})
        return {"cancelled": 1 if running else 0}
    return None


def later(delay, fn):
    t = threading.Timer(delay, fn)
    t.daemon = True
    t.start()


def on_did_open(doc):
    uri = doc["uri"]
    docs[uri] = doc["text"]
    seen["didOpen"].append(uri)
    if uri.endswith("Test.java"):
        def ready():
            refreshed.add(uri)
            if refresh_support:
                request("workspace/codeLens/refresh", None, lambda r: seen["refreshAnswers"].append(r))
            else:
                send({"method": "racelens/codeLensRefresh"})
        later(0.3, ready)
    else:
        send({"method": "textDocument/publishDiagnostics", "params": {
            "uri": uri,
            "diagnostics": [{
                "range": {"start": {"line": 2, "character": 4}, "end": {"line": 2, "character": 13}},
                "severity": 2,
                "source": "racelens",
                "code": "RL001",
                "codeDescription": {"href": "racelens:/codes/RL001"},
                "message": "`numActive` is read without the lock",
            }],
        }})


def handle(msg):
    global refresh_support, show_document_support
    method = msg.get("method")
    mid = msg.get("id")
    params = msg.get("params")
    if method is None:  # a response to one of our requests
        cb = pending.pop(mid, None)
        if cb:
            cb(msg)
        return True
    if method == "initialize":
        seen["initializationOptions"] = params.get("initializationOptions")
        seen["pid"] = params.get("processId")
        caps = params.get("capabilities") or {}
        seen["experimental"] = caps.get("experimental")
        refresh_support = bool(((caps.get("workspace") or {}).get("codeLens") or {}).get("refreshSupport"))
        show_document_support = bool(((caps.get("window") or {}).get("showDocument") or {}).get("support"))
        send({"id": mid, "result": {"capabilities": {
            "textDocumentSync": 2,
            "hoverProvider": True,
            "codeLensProvider": {"resolveProvider": False},
            "executeCommandProvider": {"commands": ["racelens.exploreTest"]},
        }}})
    elif method == "initialized":
        request("workspace/configuration", {"items": [{"section": "racelens"}]},
                lambda r: seen.__setitem__("configuration", r.get("result")))
    elif method == "textDocument/didOpen":
        on_did_open(params["textDocument"])
    elif method == "workspace/didChangeConfiguration":
        seen["didChangeConfiguration"].append(params)
    elif method == "textDocument/codeLens":
        seen["codeLensRequests"] += 1
        send({"id": mid, "result": lenses_for(params["textDocument"]["uri"])})
    elif method == "workspace/executeCommand":
        seen["executeCommand"].append(params)
        send({"method": "window/showMessage", "params": {"type": 3, "message": "exploring " + params["command"]}})
        send({"id": mid, "result": execute_command(params)})
    elif method == "racelens/document":
        send({"id": mid, "result": {"text": "# %s\n\nexplanation of %s\n" % (params["uri"], params["uri"]),
                                    "languageId": "markdown"}})
    elif method == "fake/seen":
        send({"id": mid, "result": seen})
    elif method == "fake/finishExploration":
        finish_exploration()
        send({"id": mid, "result": None})
    elif method == "fake/sendShowDocument":
        request("window/showDocument", params, lambda r: seen["showDocumentAnswers"].append(r))
        send({"id": mid, "result": None})
    elif method == "fake/sendCodeLensRefresh":
        request("workspace/codeLens/refresh", None, lambda r: seen["refreshAnswers"].append(r))
        send({"id": mid, "result": None})
    elif method == "shutdown":
        send({"id": mid, "result": None})
    elif method == "exit":
        return False
    elif mid is not None:
        send({"id": mid, "error": {"code": -32601, "message": "unhandled " + method}})
    return True


def main():
    while True:
        msg = read_message()
        if msg is None or not handle(msg):
            break


if __name__ == "__main__":
    main()
