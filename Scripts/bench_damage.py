#!/usr/bin/env python3
"""Corruption benchmark: seeded damage to a recorded database, every reading command run on each.

Usage: bench_damage.py GAZEREC BASE.sqlite WORK [--cases N] [--seed S] [--server URI --admin URI]

BASE.sqlite holds recorded sessions (Scripts/bench-damage.sh records them). Each case is a copy of
it with one seeded damage: random bytes written over part of one page of one kind (a table's or an
index's leaf or interior page, found with SQLite's dbstat table), a page zeroed, or rows deleted
behind gazerec's back from the middle or the end of one series. On each copy every reading command
runs on the first session: show, check, export as JSON and CSV to a pipe and to a file, BIDS to a
folder, fixations, plot, replay (no terminal: it reads the session, then stops), stimulus timeline
and push to a PostgreSQL server (when given). Each run is one of:

  crashed      killed by a signal (exit status >= 128 or negative): want 0
  partial      exit 0 and output with other row counts than the undamaged database's: want 0
  altered      exit 0, same row counts, other bytes (values changed inside a page SQLite still
               reads: without checksums no reader can tell; counted apart)
  unaffected   the same exit status and output as on the undamaged database
  named        exit status 1 naming the damage (the session "is damaged", or SQLite's corruption)
  other        any other failure (listed)
`check` is counted apart: it should exit 1 whenever another command's output changed.
"""
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict

FIXTURE_IMAGE = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "fixtures", "faces", "astronaut.png")


def page_kinds(path):
    """(name, pagetype) -> page numbers, from dbstat."""
    con = sqlite3.connect(path)
    kinds = defaultdict(list)
    for name, pageno, pagetype in con.execute("SELECT name, pageno, pagetype FROM dbstat"):
        if pagetype in ("leaf", "internal"):
            kinds[(name, pagetype)].append(pageno)
    size = con.execute("PRAGMA page_size").fetchone()[0]
    con.close()
    return kinds, size


def series(path):
    """(description, delete statement for one row by seq, row count query) of each stored series."""
    con = sqlite3.connect(path)
    found = []
    for table in ["frameSample", "gazeSample", "blinkEvent", "expressionSample", "marker"]:
        rows = con.execute(f"SELECT sessionRowID, MAX(seq) FROM {table} WHERE sessionRowID = 1").fetchone()
        if rows and rows[1] is not None:
            found.append((table, f"DELETE FROM {table} WHERE sessionRowID = 1 AND seq {{}}", rows[1]))
    for rowid, name in con.execute("SELECT rowid, name FROM blendShapeSeries WHERE sessionRowID = 1"):
        top = con.execute("SELECT MAX(seq) FROM blendShapeSample WHERE seriesRowID = ?", (rowid,)).fetchone()[0]
        if top is not None:
            found.append((f"blend shape {name}", f"DELETE FROM blendShapeSample WHERE seriesRowID = {rowid} AND seq {{}}", top))
    con.close()
    return found


def make_cases(base, count, seed):
    kinds, size = page_kinds(base)
    rng = random.Random(seed)
    # The trial's own case first: 800 random bytes at 2,500 into the session table's page.
    page = kinds[("session", "leaf")][0]
    with open(base, "rb") as handle:
        handle.seek((page - 1) * size + 8)
        cell = int.from_bytes(handle.read(2), "big")  # the session row's cell, as the trial's offset hit it
    cases = [(f"800 random bytes at 2500 into session leaf page {page}",
              ("bytes", (page - 1) * size + 2500, bytes(rng.getrandbits(8) for _ in range(800)))),
             (f"random bytes from 100 before the first session row in session leaf page {page}",
              ("bytes", (page - 1) * size + cell - 100, bytes(rng.getrandbits(8) for _ in range(min(800, size - cell + 100)))))]
    for index in range(count):
        case_rng = random.Random(rng.random())
        choice = index % 4
        if choice < 2:  # bytes over part of a page of each kind in turn
            kind = sorted(kinds)[(index // 4 * 2 + choice) % len(kinds)]
            page = case_rng.choice(kinds[kind])
            length = case_rng.randint(16, size)
            start = case_rng.randint(0, size - length)
            data = bytes(case_rng.getrandbits(8) for _ in range(length))
            cases.append((f"{length} random bytes in {kind[0]} {kind[1]} page {page}", ("bytes", (page - 1) * size + start, data)))
        elif choice == 2:
            kind = sorted(kinds)[(index // 4) % len(kinds)]
            page = case_rng.choice(kinds[kind])
            cases.append((f"{kind[0]} {kind[1]} page {page} zeroed", ("bytes", (page - 1) * size, bytes(size))))
        else:
            found = series(base)
            name, statement, top = found[(index // 4) % len(found)]
            where = case_rng.choice(["middle", "tail", "tail3"])
            condition = {"middle": f"= {case_rng.randint(1, max(1, top - 1))}", "tail": f"= {top}", "tail3": f">= {top - 2}"}[where]
            cases.append((f"{name}: rows deleted ({where})", ("sql", statement.format(condition))))
    return cases


def apply(path, damage):
    if damage[0] == "bytes":
        with open(path, "r+b") as handle:
            handle.seek(damage[1])
            handle.write(damage[2])
    else:
        con = sqlite3.connect(path)
        con.execute(damage[1])
        con.commit()
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        con.close()


def commands(session, folder, server):
    files = {name: os.path.join(folder, name) for name in ["out.json", "out.csv", "plot.svg", "bids"]}
    runs = [
        ("show", ["show", session], None),
        ("export json | pipe", ["export", session], None),
        ("export json --output", ["export", session, "--output", files["out.json"]], files["out.json"]),
        ("export csv | pipe", ["export", "--format", "csv", session], None),
        ("export csv --output", ["export", "--format", "csv", session, "--output", files["out.csv"]], files["out.csv"]),
        ("export bids --output-dir", ["export", "--format", "bids", session, "--output-dir", files["bids"]], files["bids"]),
        ("fixations", ["fixations", session], None),
        ("plot", ["plot", session, "--output", files["plot.svg"], "--scanpath"], files["plot.svg"]),
        ("replay", ["replay", session], None),
        ("stimulus timeline", ["stimulus", "timeline", session, "--stimulus", FIXTURE_IMAGE, "--rect", "0,0,720,720"], None),
    ]
    if server:
        runs.append(("push", ["push", server, session], None))
    return runs


def output_of(result, path):
    """What a run produced: stdout, and the file or folder it wrote."""
    produced = [result.stdout]
    if path and os.path.isdir(path):
        for root, _, names in sorted(os.walk(path)):
            for name in sorted(names):
                with open(os.path.join(root, name), "rb") as handle:
                    produced.append(name.encode() + b"\0" + handle.read())
    elif path and os.path.exists(path):
        with open(path, "rb") as handle:
            produced.append(handle.read())
    return b"\0".join(produced)


def rows(data):
    """Row counts of an output: per JSON series, or lines."""
    try:
        session = json.loads(data.split(b"\0")[-1] or data)
        if isinstance(session, dict):
            extension = session.get("gazerec", {})
            return (len(session.get("scanPath", [])), len(extension.get("frames", [])), len(extension.get("blinks", [])),
                    tuple(len(v) for v in session.get("blendShapes", {}).values()))
    except (ValueError, UnicodeDecodeError):
        pass
    return data.count(b"\n")


def run(gazerec, database, arguments, path):
    if path:
        subprocess.run(["rm", "-rf", path])
    environment = dict(os.environ, GAZEREC_DATABASE=database)
    try:
        result = subprocess.run([gazerec] + arguments, env=environment, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    except subprocess.TimeoutExpired:
        return None
    return result


def clear_server(admin, session):
    if admin:
        subprocess.run(["psql", "-q", admin, "-c", f"DELETE FROM session WHERE id = '{session}'"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def server_copy(gazerec, lab, session):
    result = subprocess.run([gazerec, "--database", lab, "export", session], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return result.stdout if result.returncode == 0 else b""


def main():
    arguments = sys.argv[1:]
    gazerec, base, work = arguments[:3]
    options = dict(zip(arguments[3::2], arguments[4::2]))
    count, seed = int(options.get("--cases", 96)), int(options.get("--seed", 45))
    server, admin = options.get("--server"), options.get("--admin")
    session = sqlite3.connect(base).execute("SELECT id FROM session WHERE rowid = 1").fetchone()[0]
    folder = tempfile.mkdtemp(dir=work)
    pristine = {}
    for name, argv, path in commands(session, folder, server):
        clear_server(admin, session)
        result = run(gazerec, base, argv, path)
        pristine[name] = (result.returncode, output_of(result, path))
        if name == "push":
            pristine[name] = (result.returncode, server_copy(gazerec, admin, session))
    tally, check_tally, others = Counter(), Counter(), []
    for description, damage in make_cases(base, count, seed):
        database = os.path.join(work, "case.sqlite")
        for suffix in ["", "-wal", "-shm"]:
            if os.path.exists(database + suffix):
                os.remove(database + suffix)
        shutil.copyfile(base, database)
        apply(database, damage)
        changed = False
        for name, argv, path in commands(session, folder, server):
            clear_server(admin, session)
            result = run(gazerec, database, argv, path)
            if result is None:
                tally["other"] += 1
                others.append(f"{description}: {name} timed out")
                continue
            produced = output_of(result, path)
            if name == "push" and result.returncode == 0:
                produced = server_copy(gazerec, admin, session)
            status, stderr = result.returncode, result.stderr.decode(errors="replace")
            if status < 0 or status >= 128:
                verdict = "crashed"
            elif status == pristine[name][0] and produced == pristine[name][1]:
                verdict = "unaffected"
            elif status == 0:
                # Rows deleted, or other row counts: partial; the same counts with other bytes: altered.
                partial = damage[0] == "sql" or rows(produced) != rows(pristine[name][1])
                verdict = "partial" if partial else "altered"
            elif status == 1 and any(word in stderr for word in ["damaged", "corrupt", "malformed", "not a database"]):
                verdict = "named"
            else:
                verdict = "other"
                others.append(f"{description}: {name} exited {status}: {stderr.strip().splitlines()[-1:] }")
            if verdict != "unaffected":
                changed = True
            if verdict in ("crashed", "partial", "altered"):
                print(f"  {verdict}: {description}: {name} (exit {status}) {stderr.strip()[:200]}", file=sys.stderr)
            tally[verdict] += 1
        check = run(gazerec, database, ["check"], None)
        if check is None or check.returncode < 0 or check.returncode >= 128:
            check_tally["crashed"] += 1
        elif check.returncode == 0:
            check_tally["said sound, output changed" if changed else "said sound, nothing changed"] += 1
            if changed:
                print(f"  check missed: {description}", file=sys.stderr)
        elif check.returncode == 1 and check.stdout.strip():
            check_tally["named the session"] += 1
        else:
            check_tally["exit 1, no session named"] += 1
    runs = sum(tally.values())
    print(f"{count + 2} damaged copies (seed {seed}), {runs} runs of reading commands:")
    for verdict in ["crashed", "partial", "altered", "named", "unaffected", "other"]:
        print(f"  {verdict:<11} {tally[verdict]}")
    print("check on each copy: " + ", ".join(f"{key} {value}" for key, value in sorted(check_tally.items())))
    for line in others[:20]:
        print("  other: " + line)
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
