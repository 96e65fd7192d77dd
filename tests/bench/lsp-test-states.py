#!/usr/bin/env python3
"""What the Testing view's list costs the language server on a repository: `racelens lsp`
over stdio with a client that declares `experimental.racelens.testStates` (or, with
`--no-states`, one that does not), the time to the first lens answer and to the first
`racelens/testStates` (how many tests), then an edit (a comment line at the top of FILE):
the time to the lens answer and to the states it changed, and the server's resident memory.

    python3 tests/bench/lsp-test-states.py target/release/racelens /path/to/repo path/in/repo/File.java [--no-states]

Set XDG_CACHE_HOME to an empty folder for a cold start (the index cache)."""
import json, os, subprocess, sys, time, threading, queue

binary, root, rel = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
caps = {"experimental": {"racelens": {"testStates": True}}} if "--no-states" not in sys.argv else {}
p = subprocess.Popen([binary, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=root)
inbox = queue.Queue()

def reader():
    f = p.stdout
    while True:
        headers = {}
        while True:
            line = f.readline()
            if not line:
                return
            line = line.decode().strip()
            if not line:
                break
            k, v = line.split(":", 1)
            headers[k.lower()] = v.strip()
        body = f.read(int(headers["content-length"]))
        inbox.put((time.time(), json.loads(body)))

threading.Thread(target=reader, daemon=True).start()

def send(msg):
    data = json.dumps(msg).encode()
    p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
    p.stdin.flush()

def wait(pred, timeout=600):
    end = time.time() + timeout
    while time.time() < end:
        try:
            t, m = inbox.get(timeout=1)
        except queue.Empty:
            continue
        if m.get("method") == "workspace/configuration" and "id" in m:
            send({"jsonrpc": "2.0", "id": m["id"], "result": [None]})
            continue
        if "id" in m and "method" in m:
            send({"jsonrpc": "2.0", "id": m["id"], "result": None})
            continue
        if pred(m):
            return t, m
    raise SystemExit("timeout")

t0 = time.time()
uri = "file://" + root
send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": None, "rootUri": uri, "capabilities": caps, "workspaceFolders": [{"uri": uri, "name": "w"}]}})
wait(lambda m: m.get("id") == 1)
send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
furi = uri + "/" + rel
text = open(os.path.join(root, rel)).read()
send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": furi, "languageId": "java", "version": 1, "text": text}}})
send({"jsonrpc": "2.0", "id": 2, "method": "textDocument/codeLens", "params": {"textDocument": {"uri": furi}}})
t1, _ = wait(lambda m: m.get("id") == 2)
print(f"first lens answer after {t1 - t0:.1f} s")
if caps:
    t2, m = wait(lambda m: m.get("method") == "racelens/testStates")
    print(f"first testStates after {t2 - t0:.1f} s: {len(m['params']['tests'])} tests, e.g. {m['params']['tests'][0]['explore']['uri']}")
# An edit: a comment line at the top; the time to the next lens answer, then to the states.
send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": furi, "version": 2}, "contentChanges": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "// x\n"}]}})
t3 = time.time()
send({"jsonrpc": "2.0", "id": 3, "method": "textDocument/codeLens", "params": {"textDocument": {"uri": furi}}})
t4, _ = wait(lambda m: m.get("id") == 3)
print(f"lens answer after the edit: {t4 - t3:.2f} s")
if caps:
    try:
        t5, m = wait(lambda m: m.get("method") == "racelens/testStates", timeout=60)
        print(f"testStates after the edit: {t5 - t3:.2f} s")
    except SystemExit:
        print("no testStates after the edit within 60 s (unchanged)")
rss = int(open(f"/proc/{p.pid}/status").read().split("VmRSS:")[1].split()[0]) // 1024
print(f"server RSS {rss} MB")
send({"jsonrpc": "2.0", "id": 9, "method": "shutdown"})
send({"jsonrpc": "2.0", "method": "exit"})
p.wait(timeout=30)
