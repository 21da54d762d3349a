#!/usr/bin/env python3
"""The house rules of the source tree (docs/development.md, "Layout"):

1. includes: every #include "..." of ctl/, proto/, agent/ and fake/ names
   a folder its file may see (ctl/floors.txt): its own, one on a lower
   floor of ctl/, proto/, or the public sbench/ -- never a higher floor,
   never a path with "..", never a bare name; and no private header has a
   public header's name;
2. calls (with --build DIR): the objects of the build, read with nm, call
   no function defined on a higher floor or in a folder of the same floor,
   and no two files of one folder call each other round a cycle;
3. one owner per format: a Slurm command line is spelt in
   ctl/slurm/slurm_cmd.c only (no other file of ctl/ has a string literal
   naming sbatch, squeue, sacct, scancel or scontrol as a program, or one
   of their options that sbctl passes);
4. one owner per record key: a key of the records, the task map and the
   early-stop rules (proto/recordkeys.h, proto/earlystop.h) is spelt as a
   literal in those headers only -- never in a msgpack lookup or write, or
   in a comparison of a record's type, of agent/, ctl/ or proto/.

Prints one line per problem and exits 1 when there is any, else prints what
was checked and exits 0.  Usage: check_layout.py SRC [--build BUILD]
"""
import os
import re
import subprocess
import sys


def read_floors(src):
    floors, sees = {}, {}
    with open(os.path.join(src, "ctl", "floors.txt")) as f:
        for line in f:
            m = re.match(r"^(\d+)\s+([a-z]+)\s+([a-z]+)\s", line)
            if m:
                floors[m.group(2)] = int(m.group(1))
                sees[m.group(2)] = m.group(3)
    return floors, sees


def allowed(folder, floors, sees):
    """The folders a file of folder may include from (sbench/ is always fine)."""
    if folder in ("proto",):
        return {"proto"}
    if folder == "agent":
        return {"agent", "proto"}
    if folder == "fake":
        return {"fake"}
    if sees[folder] == "api":
        return {folder, "base"}
    return {folder, "proto"} | {s for s in floors if floors[s] < floors[folder]}


def source_files(src):
    """(folder, path) of every C source and header of the product."""
    for top in ("ctl", "proto", "agent", "fake"):
        for dirpath, _, names in os.walk(os.path.join(src, top)):
            rel = os.path.relpath(dirpath, src).split(os.sep)
            if top == "ctl":
                if len(rel) < 2:
                    continue  # ctl/ itself holds no source
                folder = rel[1]
            else:
                folder = top
            if top == "agent" and len(rel) > 1:
                continue  # agent/musl/: a build description only
            for n in sorted(names):
                if n.endswith((".c", ".h")):
                    yield folder, os.path.join(dirpath, n)


def check_includes(src, floors, sees):
    problems, n = [], 0
    inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
    for folder, path in source_files(src):
        if folder not in floors and folder not in ("proto", "agent", "fake"):
            problems.append(f"{os.path.relpath(path, src)}: folder ctl/{folder} is on no floor "
                            "of ctl/floors.txt")
            continue
        ok = allowed(folder, floors, sees)
        with open(path, encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                m = inc.match(line)
                if not m:
                    continue
                n += 1
                target = m.group(1)
                where = f"{os.path.relpath(path, src)}:{lineno}"
                if ".." in target.split("/"):
                    problems.append(f'{where}: #include "{target}" climbs with ".."')
                    continue
                if "/" not in target:
                    problems.append(f'{where}: #include "{target}" names no folder')
                    continue
                top = target.split("/")[0]
                if top == "sbench":
                    continue
                if top not in ok:
                    why = (f"floor {floors[top]} is not below floor {floors[folder]} of {folder}/"
                           if top in floors and folder in floors else
                           f"{folder}/ may include only from {', '.join(sorted(ok))} and sbench/")
                    problems.append(f'{where}: #include "{target}": {why}')
    return problems, n


def check_header_names(src):
    """No private header has the name of a public one (sbench/status.h
    beside a status.h of ctl/ would be read as its implementation)."""
    public = set(os.listdir(os.path.join(src, "include", "sbench")))
    return [f"{os.path.relpath(path, src)}: a private header named as the public "
            f"sbench/{os.path.basename(path)} (name it <name>_private.h or for its own job)"
            for _, path in source_files(src)
            if path.endswith(".h") and os.path.basename(path) in public]


SLURM_OWNER = os.path.join("ctl", "slurm", "slurm_cmd.c")
SLURM_LITERAL = re.compile(r'"(?:(?:sbatch|squeue|sacct|scancel|scontrol)"|'
                           r'--(?:parsable|array=|job-name=|dependency=|open-mode=|'
                           r'format=|name=|me")|-o", "%)')


def without_comments(text):
    """C text with its comments blanked (string literals kept)."""
    return re.sub(r'/\*.*?\*/|//[^\n]*', lambda m: re.sub(r'[^\n]', ' ', m.group(0)),
                  text, flags=re.S)


def check_slurm_owner(src):
    """Slurm command lines only in their module."""
    problems = []
    for _, path in source_files(src):
        rel = os.path.relpath(path, src)
        if not rel.startswith("ctl" + os.sep) or rel == SLURM_OWNER:
            continue
        with open(path, encoding="utf-8") as f:
            text = without_comments(f.read())
        for m in SLURM_LITERAL.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            problems.append(f"{rel}:{line}: a Slurm command line spelt outside "
                            f"{SLURM_OWNER} ({m.group(0)})")
    return problems


KEY_HEADERS = (os.path.join("proto", "recordkeys.h"), os.path.join("proto", "earlystop.h"))
# where a record's key is used: msgpack lookups and writes, type comparisons
KEY_USE = re.compile(r'(?:\bsb_mp_get\([^,()]+|\bpayload_get\(\w+|\b(?:map_)?facts?\(out, pl|'
                     r'\bsb_status_mp_int\([^,()]+|\bdup_str\(\w+|\bget_uint\([^,()]+|\bKEY\(&?pk|'
                     r'\bpk_cstr\(pk|\bpack_(?:str_or_nil|int_or_nil|key)\(&pk|->type|'
                     r'\bwrite_durable\(w|\bappend\(l),\s*("[a-z_0-9]+")')


def record_keys(src):
    """Every word the key headers define."""
    words = set()
    for h in KEY_HEADERS:
        with open(os.path.join(src, h), encoding="utf-8") as f:
            words |= set(re.findall(r'#define SB_\w+ "([^"]+)"', f.read()))
    return words


def check_record_keys(src):
    """Record keys spelt once, in their headers."""
    words, problems = record_keys(src), []
    for _, path in source_files(src):
        rel = os.path.relpath(path, src)
        if rel in KEY_HEADERS or rel.startswith("fake" + os.sep):
            continue
        with open(path, encoding="utf-8") as f:
            text = without_comments(f.read())
        for m in KEY_USE.finditer(text):
            if m.group(1)[1:-1] in words:
                line = text.count("\n", 0, m.start()) + 1
                problems.append(f"{rel}:{line}: the record key {m.group(1)} spelt as a literal "
                                f"(use its name in proto/recordkeys.h or proto/earlystop.h)")
    return problems


def nm_symbols(obj):
    out = subprocess.run(["nm", "--defined-only", obj], capture_output=True, text=True).stdout
    defined = {l.split()[-1] for l in out.splitlines() if re.match(r"^\S+ [TDBR] ", l)}
    out = subprocess.run(["nm", "--undefined-only", obj], capture_output=True, text=True).stdout
    undefined = {l.split()[-1] for l in out.splitlines() if l.strip()}
    return defined, undefined


def library_objects(build):
    """(folder, source name, object path) of every object of the library and sbctl."""
    base = os.path.join(build, "ctl", "CMakeFiles")
    for target in sorted(os.listdir(base)):
        m = re.match(r"^(sbench_([a-z]+)|sbctl)\.dir$", target)
        if not m:
            continue
        for dirpath, _, names in os.walk(os.path.join(base, target)):
            for n in sorted(names):
                if n.endswith(".c.o"):
                    folder = os.path.basename(dirpath)
                    yield folder, n[:-2], os.path.join(dirpath, n)
    pbase = os.path.join(build, "proto", "CMakeFiles", "sbproto_obj.dir")
    for n in sorted(os.listdir(pbase)):
        if n.endswith(".c.o"):
            yield "proto", n[:-2], os.path.join(pbase, n)


def agent_objects(build):
    base = os.path.join(build, "agent", "CMakeFiles")
    seen = set()
    for target in ("sbagent_core.dir", "sbagent-watch.dir", "sbagent.dir"):
        d = os.path.join(base, target)
        if not os.path.isdir(d):
            continue
        for n in sorted(os.listdir(d)):
            if n.endswith(".c.o") and n not in seen:
                seen.add(n)
                yield "agent", n[:-2], os.path.join(d, n)


def cycles(graph):
    """Every strongly connected component of more than one node (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def check_calls(build, floors, sees):
    problems = []
    objs = list(library_objects(build)) + list(agent_objects(build))
    owner, uses = {}, {}
    for folder, name, path in objs:
        defined, undefined = nm_symbols(path)
        key = (folder, name)
        uses[key] = undefined
        for s in defined:
            owner.setdefault(s, key)
    folder_of = lambda k: k[0]
    file_graph = {}
    for key, undefined in uses.items():
        for s in sorted(undefined):
            o = owner.get(s)
            if o is None or o == key:
                continue
            file_graph.setdefault(key, set()).add(o)
            a, b = folder_of(key), folder_of(o)
            if a == b or b == "proto":
                continue
            if a in ("proto", "agent") or b == "agent":
                problems.append(f"{a}/{key[1]} calls {s} of {b}/{o[1]}: {a}/ may not use {b}/")
            elif floors[b] >= floors[a]:
                problems.append(f"{a}/{key[1]} calls {s} of {b}/{o[1]}: floor {floors[b]} is not "
                                f"below floor {floors[a]}")
    for comp in cycles(file_graph):
        names = ", ".join(f"{f}/{n}" for f, n in comp)
        problems.append(f"files that call each other round a cycle: {names}")
    return problems, len(objs)


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    src = args[0]
    build = args[args.index("--build") + 1] if "--build" in args else None
    floors, sees = read_floors(src)
    problems, n = check_includes(src, floors, sees)
    problems += check_header_names(src)
    problems += check_slurm_owner(src)
    problems += check_record_keys(src)
    nobj = 0
    if build:
        p, nobj = check_calls(build, floors, sees)
        problems += p
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} problem(s) with the layout", file=sys.stderr)
        return 1
    print(f"layout ok: {n} includes of {len(floors)} folders on "
          f"{len(set(floors.values()))} floors" + (f", calls between {nobj} objects" if build else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
