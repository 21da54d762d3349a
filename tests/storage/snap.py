#!/usr/bin/env python3
"""Snapshots of `sbctl status --json` through several clients, and their checks.

  snap.py poll --dir BENCH --out FILE --jobname PREFIX [--interval S] [--bound S] [--tail S]
      Every interval, runs `sbctl status BENCH --json` through the login
      client, the compute client and the truth at the same moment (with
      tests/storage's `on` wrapper) and appends one JSON line per answer to
      FILE: {"t", "t_end", "client", "rc", "err", "children": [[index, class,
      reason], ...]} (children null when the answer was no JSON).  Stops when
      every child is final through the truth and login gives the truth's
      classes (then polls TAIL seconds more, so a verdict that flips right
      after is seen too), or BOUND seconds after the last job of the
      benchmark (job names starting with PREFIX) left the fake's queue.
      Times are seconds since ST_T0.

  snap.py check --snaps FILE --name NAME --expect CLASS,CLASS,... [--bound S]
      (i) no transient false verdict: a final class through login or
      compute must be the truth's final class; (ii) every child final
      through login within BOUND of the truth's verdict; and the harness's
      own premise, that the truth ends with the classes the scenario was
      built to produce (EXPECT, in child order) and never changes a final
      verdict.  Prints "PASS|FAIL|INFO NAME-ID: text" lines, then every
      violation, then the evidence (runs of the same wrong answer as one
      line); exit status 1 when a check failed.

  snap.py classes JSON-FILE      "index class" lines of a status document
"""
import argparse
import json
import os
import subprocess
import sys
import time

FINAL = {"succeeded", "failed", "killed", "incomplete", "missing", "partial",
         "inconsistent", "invalid", "stopped"}
CLIENTS = ("login", "compute", "truth")


def now(t0_ns):
    return (time.time_ns() - t0_ns) / 1e9


def parse_children(text):
    try:
        doc = json.loads(text)
        return [[c["index"], c["class"], c.get("reason")] for c in doc["children"]]
    except (ValueError, KeyError, TypeError):
        return None


def jobs_queued(prefix):
    """True while the fake's queue holds a job of the benchmark."""
    r = subprocess.run(["squeue", "-h", "-r", "-o", "%j"], capture_output=True, text=True)
    if r.returncode != 0:
        return True  # no answer is no evidence that they are over
    return any(name.startswith(prefix) for name in r.stdout.split())


def all_final(snap):
    return snap is not None and snap["children"] is not None and \
        all(c[1] in FINAL for c in snap["children"])


def same_classes(a, b):
    return a["children"] is not None and b["children"] is not None and \
        [c[:2] for c in a["children"]] == [c[:2] for c in b["children"]]


def poll(a):
    t0 = int(os.environ["ST_T0"])
    on = os.environ["ST_ON"]
    sbctl = os.environ["SBCTL"]
    jobs_over_at = None
    done_at = None
    with open(a.out, "a") as out:
        while True:
            tick = now(t0)
            procs = {}
            for c in CLIENTS:
                procs[c] = (now(t0), subprocess.Popen(
                    [on, c, sbctl, "status", a.dir, "--json"],
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
            last = {}
            for c, (start, p) in procs.items():
                try:
                    so, se = p.communicate(timeout=120)
                except subprocess.TimeoutExpired:
                    p.kill()
                    so, se = p.communicate()
                snap = {"t": round(start, 3), "t_end": round(now(t0), 3), "client": c,
                        "rc": p.returncode, "err": (se.strip().splitlines() or [""])[0][:300],
                        "children": parse_children(so)}
                out.write(json.dumps(snap) + "\n")
                last[c] = snap
            out.flush()
            t = now(t0)
            if jobs_over_at is None and not jobs_queued(a.jobname):
                jobs_over_at = t
                out.write(json.dumps({"event": "jobs_over", "t": round(t, 3)}) + "\n")
            # a wrong final verdict through login is no reason to stop:
            # whether and when it comes right is what (ii) measures
            if done_at is None and all_final(last["truth"]) and same_classes(last["login"], last["truth"]):
                done_at = t
                out.write(json.dumps({"event": "final", "t": round(t, 3)}) + "\n")
            if done_at is not None and t >= done_at + a.tail:
                out.write(json.dumps({"event": "stop", "t": round(t, 3), "why": "final"}) + "\n")
                return 0
            if jobs_over_at is not None and t >= jobs_over_at + a.bound:
                out.write(json.dumps({"event": "stop", "t": round(t, 3), "why": "bound"}) + "\n")
                return 0
            time.sleep(max(0.0, tick + a.interval - now(t0)))


def load(path):
    snaps, events = [], {}
    with open(path) as f:
        for line in f:
            d = json.loads(line)
            if "event" in d:
                events[d["event"]] = d
            else:
                snaps.append(d)
    return snaps, events


def check(a):
    snaps, events = load(a.snaps)
    expect = a.expect.split(",")
    name = a.name
    results, evidence = [], []

    def result(ok, cid, text):
        results.append("%s %s-%s: %s" % ("PASS" if ok else "FAIL", name, cid, text))

    by = {c: [s for s in snaps if s["client"] == c and s["children"] is not None] for c in CLIENTS}
    # the truth's final verdict of each child: its last answer, if final
    truth_final = {}
    if by["truth"]:
        for idx, cls, _ in by["truth"][-1]["children"]:
            if cls in FINAL:
                truth_final[idx] = cls

    def settled_at(client, idx):
        """time of the first answer from which on the client gives the truth's class"""
        at = None
        for s in by[client]:
            cls = next((c[1] for c in s["children"] if c[0] == idx), None)
            if cls == truth_final.get(idx):
                if at is None:
                    at = s["t"]
            else:
                at = None
        return at

    truth_at = {idx: settled_at("truth", idx) for idx in truth_final}
    n = len(expect)
    got = [truth_final.get(i, "(not final)") for i in range(n)]
    result(got == expect, "truth", "the truth ends with the designed classes: %s%s" % (
        " ".join("%d:%s" % (i, g) for i, g in enumerate(got)),
        "" if got == expect else " (designed: %s)" % " ".join("%d:%s" % (i, e) for i, e in enumerate(expect))))
    # the truth itself never changes a final verdict (plain local file system)
    flips = []
    for s in by["truth"]:
        for idx, cls, reason in s["children"]:
            if cls in FINAL and idx in truth_final and cls != truth_final[idx]:
                flips.append("  t=%.1f client=truth child=%d class=%s reason=%r final=%s" % (
                    s["t"], idx, cls, reason, truth_final[idx]))
    result(not flips, "truth-stable", "the truth never gave another final class first (%d such answers)" % len(flips))
    evidence += flips

    # (i) no transient false verdict through login or compute
    viol = []
    for s in snaps:
        if s["client"] == "truth" or s["children"] is None:
            continue
        for idx, cls, reason in s["children"]:
            if cls in FINAL and cls != truth_final.get(idx):
                viol.append((s["t"], s["client"], idx, cls, reason, truth_final.get(idx, "(not final)")))
    for c in ("login", "compute"):
        mine = [v for v in viol if v[1] == c]
        result(not mine, "i-" + c, "no false final verdict through %s: %d violation(s) in %d snapshots%s" % (
            c, len(mine), len(by[c]),
            "" if not mine else " (children %s)" % ",".join(sorted({str(v[2]) for v in mine}, key=int))))
    every = ["  t=%.1f client=%s child=%d class=%s reason=%r truth=%s" % v for v in viol]
    # the evidence: each wrong answer (client, child, class, reason) as one
    # line, with when it was first and last given and how many times
    runs = {}
    for v in viol:
        runs.setdefault(v[1:], []).append(v[0])
    for key in sorted(runs, key=lambda k: (runs[k][0], k[0], k[1])):
        ts = runs[key]
        evidence.append("  t=%.1f..%.1f (%d snapshots) client=%s child=%d class=%s reason=%r truth=%s" % (
            (ts[0], ts[-1], len(ts)) + key))

    # (ii) convergence through login: the truth's class, to the end, within
    # the bound after the truth's verdict
    for c in ("login", "compute"):
        lags, late = [], []
        for idx in range(n):
            if idx not in truth_final:
                continue
            at = settled_at(c, idx)
            if at is None:
                late.append("  child=%d never settled on the truth's class through %s (last: %s) truth=%s" % (
                    idx, c, next((x[1:] for x in by[c][-1]["children"] if x[0] == idx), None) if by[c] else None,
                    truth_final[idx]))
                continue
            lag = max(0.0, at - truth_at[idx])
            lags.append((lag, idx))
            if lag > a.bound:
                late.append("  child=%d final through %s %.1f s after the truth (bound %d s)" % (idx, c, lag, a.bound))
        worst = max(lags) if lags else (0.0, -1)
        text = "every child final through %s with the truth's class within %d s: largest lag %.1f s (child %d)%s" % (
            c, a.bound, worst[0], worst[1], "" if not late else "; %d child(ren) not" % len(late))
        if c == "login":
            result(not late and len(truth_final) == n, "ii-login", text)
        else:
            results.append("INFO %s-ii-compute: %s" % (name, text))
        evidence += late

    # answers that were no verdict at all (sbctl errors), per client
    for c in CLIENTS:
        errs = [s for s in snaps if s["client"] == c and s["children"] is None]
        if errs:
            results.append("INFO %s-errors-%s: %d answer(s) with no JSON, first at t=%.1f rc=%d: %s" % (
                name, c, len(errs), errs[0]["t"], errs[0]["rc"], errs[0]["err"]))
    stop = events.get("stop", {})
    results.append("INFO %s-poll: %d snapshots; jobs over at t=%s; stopped at t=%s (%s)" % (
        name, len(snaps), events.get("jobs_over", {}).get("t", "?"), stop.get("t", "?"), stop.get("why", "?")))
    for r in results:
        print(r)
    if every:
        print("violations (%s, every one):" % name)
        for e in every:
            print(e)
    if evidence:
        print("evidence (%s):" % name)
        for e in evidence:
            print(e)
    return 1 if any(r.startswith("FAIL") for r in results) else 0


def classes(a):
    with open(a.file) as f:
        ch = parse_children(f.read())
    if ch is None:
        return 1
    for idx, cls, _ in ch:
        print(idx, cls)
    return 0


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    q = sub.add_parser("poll")
    q.add_argument("--dir", required=True)
    q.add_argument("--out", required=True)
    q.add_argument("--jobname", required=True)
    q.add_argument("--interval", type=float, default=0.5)
    q.add_argument("--bound", type=float, default=150)
    q.add_argument("--tail", type=float, default=5)
    c = sub.add_parser("check")
    c.add_argument("--snaps", required=True)
    c.add_argument("--name", required=True)
    c.add_argument("--expect", required=True)
    c.add_argument("--bound", type=int, default=150)
    k = sub.add_parser("classes")
    k.add_argument("file")
    a = p.parse_args()
    return {"poll": poll, "check": check, "classes": classes}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
