"""The kernel's cache against a fresh render, step by step.

Two mounts of one project and one store: CACHED (the kernel keeps what it is given, and is
told of every change) and FRESH (`--no-cache`: every access asks its daemon, which renders
afresh). A seeded random sequence of changes -- writes through CACHED, edits of project
files on disk (in place, by rename-over, create, delete), task writes through FRESH (a
second process on the store), `homespace import` of new transcripts -- is interleaved with
reads, stats and listings through both. Every read through CACHED must equal what FRESH
renders at that moment (the mountpoint's own path aside), and every size `stat` shows must
be the number of bytes read.

A change made through CACHED must show at once. A change made elsewhere shows once
CACHED's watchers have seen it (inotify for the project, the store's data_version for the
store: milliseconds); reads after such a change may retry for up to SETTLE_S before they
count as stale. The kernel's own lifetime is a minute, so a missing invalidation fails.

With two more arguments, READONLY (a `--read-only` mount of the same project and store,
whose kernel answers opens itself) and FRESH_READONLY (`--read-only --no-cache`, which
words its views as READONLY does), every read is also made through READONLY and compared
with FRESH_READONLY the same way; to READONLY every change is made elsewhere.

Usage: cache_differential.py CACHED FRESH PROJECT STORE HOMESPACE SEED STEPS
                             [READONLY FRESH_READONLY]
"""

import json
import os
import random
import subprocess
import sys
import tempfile
import time

SETTLE_S = 3.0

CACHED, FRESH, PROJECT, STORE, HOMESPACE = sys.argv[1:6]
SEED, STEPS = int(sys.argv[6]), int(sys.argv[7])
READONLY, FRESH_READONLY = sys.argv[8:10] if len(sys.argv) > 9 else (None, None)
rng = random.Random(SEED)
PACKAGE = os.path.join(PROJECT, "src", "ledger")
log = []


def fail(message):
    tail = "\n".join(log[-25:])
    sys.exit(f"seed {SEED}: {message}\n--- last steps ---\n{tail}")


def read(root, rel):
    """('file', bytes, size stat showed) or ('dir', sorted names) or ('missing',)."""
    path = os.path.join(root, rel)
    try:
        if os.path.isdir(path):
            return ("dir", tuple(sorted(os.listdir(path))))
        size = os.stat(path).st_size
        with open(path, "rb") as f:
            data = f.read()
        return ("file", data.replace(root.encode(), b"<MNT>"), size, len(data))
    except FileNotFoundError:
        return ("missing",)
    except NotADirectoryError:
        return ("missing",)


def same(root, fresh_root, rel):
    """Whether `root` shows `rel` as `fresh_root` does, and its stat size matches what it
    read."""
    cached = read(root, rel)
    if cached[0] == "file" and cached[2] != cached[3]:
        return False, f"stat says {cached[2]} bytes, read gave {cached[3]}"
    fresh = read(fresh_root, rel)
    if cached[0] == "file" and fresh[0] == "file":
        return cached[1] == fresh[1], "content differs"
    return cached == fresh, f"cached {cached[:2]} vs fresh {fresh[:2]}"


def check(rel, elsewhere_at, changed_at):
    """`rel` through CACHED (which may wait for the watchers after a change made elsewhere)
    and through READONLY (which may wait after any change) against FRESH."""
    mounts = [(CACHED, FRESH, elsewhere_at)]
    if READONLY:
        mounts.append((READONLY, FRESH_READONLY, changed_at))
    for root, fresh_root, since in mounts:
        deadline = since + SETTLE_S
        while True:
            ok, why = same(root, fresh_root, rel)
            if ok:
                break
            if time.monotonic() >= deadline:
                cached, fresh = read(root, rel), read(fresh_root, rel)
                name = "cached" if root == CACHED else "read-only"
                fail(f"{rel} through {name}: {why}\n--- {name} ---\n{show(cached)}\n"
                     f"--- fresh ---\n{show(fresh)}")
            time.sleep(0.01)


def show(result):
    if result[0] == "file":
        return result[1].decode(errors="replace")[:3000]
    return repr(result)


# ---- what to look at --------------------------------------------------------------------

FIXED = [
    "_entry.md",
    "_nav.txt",
    "tasks/_entry.md",
    "tasks/_nav.txt",
    "tasks/open",
    "tasks/done",
    "tasks/in_progress",
    "source/_entry.md",
    "source/_nav.txt",
    "source/ledger",
    "source/ledger/_entry.md",
    "source/ledger/_nav.txt",
    "source/ledger/report",
    "source/ledger/report.py",
    "source/ledger/report/_entry.md",
    "source/ledger/accounts/Account",
    "source/ledger/accounts/Account/_entry.md",
    "source/ledger/templates",
    "source/history/_entry.md",
    "memory/_entry.md",
    "memory/sessions",
]
# A search read is itself a change (the query becomes recent, which `_nav.txt` shows)
# made while the kernel waits for the read. Each query is new, so that every mount hears
# of each once and in the same order (a read-only mount's kernel answers a repeated read
# of a query alone, without making it recent again).
QUERIES = ["Task", "tasks:number", "source:def", "memory:entry", "re:Ta+sk"]
searches = [0]


def random_path():
    """A path that exists now (found by listing FRESH), fixed ones half of the time."""
    if rng.random() < 0.1:
        searches[0] += 1
        return f"search/{rng.choice(QUERIES)} {searches[0]}"
    if rng.random() < 0.5:
        return rng.choice(FIXED)
    rel = rng.choice(["tasks", "source/ledger", "source/ledger/report", "memory/sessions"])
    for _ in range(4):
        path = os.path.join(FRESH, rel)
        if not os.path.isdir(path):
            break
        names = [n for n in os.listdir(path) if n != "_errors.md"]
        if not names:
            break
        rel = f"{rel}/{rng.choice(sorted(names))}"
        if rng.random() < 0.4:
            break
    return rel


# ---- changes ------------------------------------------------------------------------------

tasks = []  # (status, slug) created so far
outside_modules = []
counter = [0]


def next_id():
    counter[0] += 1
    return counter[0]


def write_file(path, text):
    with open(path, "w") as f:
        f.write(text)


def task_through(root):
    n = next_id()
    slug = f"t{n}"
    write_file(f"{root}/tasks/open/{slug}.json", json.dumps({"title": f"Task number {n}"}))
    tasks.append(["open", slug])
    return f"create task {slug} through {'cached' if root == CACHED else 'fresh'}"


def move_task(root):
    if not tasks:
        return task_through(root)
    task = rng.choice(tasks)
    status = rng.choice(["open", "in_progress", "done"])
    if status == task[0]:
        return "no move"
    os.rename(f"{root}/tasks/{task[0]}/{task[1]}.json", f"{root}/tasks/{status}/{task[1]}.json")
    task[0] = status
    return f"move task {task[1]} to {status} through {'cached' if root == CACHED else 'fresh'}"


def retitle_task(root):
    if not tasks:
        return task_through(root)
    status, slug = rng.choice(tasks)
    path = f"{root}/tasks/{status}/{slug}.json"
    with open(path) as f:
        task = json.load(f)
    task["title"] = f"Retitled {next_id()}"
    write_file(path, json.dumps(task))
    return f"retitle {slug} through {'cached' if root == CACHED else 'fresh'}"


def symbol_through_cached():
    n = next_id()
    path = f"{CACHED}/source/ledger/report/added_{n}.py"
    write_file(path, f'def added_{n}():\n    """Added by step {n}."""\n    return {n}\n')
    return f"new function added_{n} through cached"


def outside_edit():
    n = next_id()
    kind = rng.choice(["append", "replace", "create", "delete", "data"])
    report = os.path.join(PACKAGE, "report.py")
    if kind == "append":
        with open(report, "a") as f:
            f.write(f'\n\ndef outside_{n}():\n    """Edited on disk, step {n}."""\n    return {n}\n')
        return f"outside: append outside_{n} to report.py"
    if kind == "replace":
        with open(report) as f:
            text = f.read()
        fd, temp = tempfile.mkstemp(dir=PACKAGE, prefix=".tmp-", suffix=".swp")
        with os.fdopen(fd, "w") as f:
            f.write(text + f'\n\nSTEP_{n} = {n}\n')
        os.replace(temp, report)
        return f"outside: rename-over report.py with STEP_{n}"
    if kind == "create" or not outside_modules:
        name = f"extra_{n}"
        write_file(os.path.join(PACKAGE, f"{name}.py"), f'"""Module {n}."""\n\n\ndef f():\n    return {n}\n')
        outside_modules.append(name)
        return f"outside: create {name}.py"
    if kind == "delete":
        name = outside_modules.pop(rng.randrange(len(outside_modules)))
        os.remove(os.path.join(PACKAGE, f"{name}.py"))
        return f"outside: delete {name}.py"
    write_file(os.path.join(PACKAGE, "templates", "note.txt"), f"note {n}\n")
    return f"outside: write templates/note.txt ({n})"


def import_transcript():
    n = next_id()
    fd, path = tempfile.mkstemp(suffix=".jsonl")
    with os.fdopen(fd, "w") as f:
        f.write(json.dumps({"session": f"diff-{n}", "title": f"Differential {n}"}) + "\n")
        for i in range(3):
            f.write(json.dumps({"session": f"diff-{n}", "ts": f"2025-11-0{1 + n % 9}T10:0{i}:00Z",
                                "role": "user", "content": f"entry {i} of step {n}"}) + "\n")
    out = subprocess.run([HOMESPACE, "import", "--store", STORE, path], capture_output=True, text=True)
    os.remove(path)
    if out.returncode != 0:
        fail(f"homespace import failed: {out.stderr}")
    return f"import diff-{n} by the CLI"


# (weight, change, made elsewhere: reads may wait for the watchers)
CHANGES = [
    (6, lambda: task_through(CACHED), False),
    (5, lambda: move_task(CACHED), False),
    (4, lambda: retitle_task(CACHED), False),
    (2, symbol_through_cached, False),
    (5, outside_edit, True),
    (3, lambda: task_through(FRESH), True),
    (2, lambda: move_task(FRESH), True),
    (2, lambda: retitle_task(FRESH), True),
    (1, import_transcript, True),
]


def main():
    # When the last change made elsewhere was made: reads may wait for the watchers
    # until SETTLE_S after it, never later.
    elsewhere_at = changed_at = float("-inf")
    weights = [w for w, _, _ in CHANGES]
    for step in range(STEPS):
        if rng.random() < 0.3:
            _, change, elsewhere = rng.choices(CHANGES, weights)[0]
            log.append(f"{step}: {change()}")
            changed_at = time.monotonic()
            if elsewhere:
                elsewhere_at = changed_at
        for _ in range(rng.randint(1, 3)):
            rel = random_path()
            log.append(f"{step}: read {rel}")
            check(rel, elsewhere_at, changed_at)
    through = " (and through the read-only mount)" if READONLY else ""
    print(f"seed {SEED}: {STEPS} steps, {counter[0]} changes, every read as fresh{through}")


main()
