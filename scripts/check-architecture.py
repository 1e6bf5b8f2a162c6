#!/usr/bin/env python3
"""The module graph in docs/ARCHITECTURE.md is the real one, and modules import only what their
layer may.

1. The Mermaid block under "## The modules" lists exactly the edges of the transitive reduction
   of Package.swift's dependencies between Hawala's own modules (an edge implied by a longer
   path is left out, so the picture stays readable). `--print` prints the block to paste.
2. Layers: the payment library and everything below it never import the devnet, the Spark SDK's
   module or the app; the app never imports the Spark SDK's module (it is handed in); the CLI
   imports HawalaApp only in AppCommand.swift (to start the app).
Exit 1 with one line per problem."""
import glob, os, re, sys

os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
manifest = open("Package.swift").read()
starts = list(re.finditer(r'\n        \.(target|executableTarget|testTarget|systemLibrary)\(\s*name:\s*"([^"]+)"', manifest))
modules, deps = [], {}
for i, m in enumerate(starts):
    kind, name = m.group(1), m.group(2)
    if kind in ("testTarget", "systemLibrary") or name in ("HawalaTestSupport", "BreezSdkSpark"):
        continue
    body = manifest[m.end():starts[i + 1].start() if i + 1 < len(starts) else len(manifest)]
    modules.append(name)
    deps[name] = set(re.findall(r'"([A-Za-z-]+)"', body.split("swiftSettings")[0]))
for name in deps:
    deps[name] = {d for d in deps[name] if d in deps and d != name}

def reachable(start, skip_edge=None):
    seen, todo = set(), [start]
    while todo:
        node = todo.pop()
        for d in deps[node]:
            if (node, d) == skip_edge or d in seen:
                continue
            seen.add(d)
            todo.append(d)
    return seen

reduced = sorted((a, b) for a in deps for b in deps[a] if b not in reachable(a, skip_edge=(a, b)))
# Mermaid ids can't hold a hyphen: hawala-vault is drawn as hawala_vault["hawala-vault"].
node = lambda name: name.replace("-", "_")
labelled = sorted({n for edge in reduced for n in edge if "-" in n})
block = ("```mermaid\nflowchart TD\n" + "".join(f'    {node(n)}["{n}"]\n' for n in labelled)
         + "".join(f"    {node(a)} --> {node(b)}\n" for a, b in reduced) + "```")
if "--print" in sys.argv:
    print(block)
    sys.exit(0)

problems = []
doc = open("docs/ARCHITECTURE.md").read()
found = re.search(r"```mermaid\nflowchart TD\n(.*?)```", doc, re.S)
names = {node(n): n for n in deps}
drawn = {(names.get(a, a), names.get(b, b)) for a, b in re.findall(r"^\s*(\w+) --> (\w+)\s*$", found.group(1), re.M)} if found else set()
for a, b in sorted(set(reduced) - drawn):
    problems.append(f"docs/ARCHITECTURE.md: the module graph lacks {a} --> {b} (scripts/check-architecture.py --print)")
for a, b in sorted(drawn - set(reduced)):
    problems.append(f"docs/ARCHITECTURE.md: the module graph shows {a} --> {b}, which Package.swift does not have (or implies through another module)")

library = {"HawalaCrypto", "HawalaText", "HawalaFormat", "HawalaHome", "HawalaKeys", "HawalaWallet", "HawalaBackup", "HawalaPaper",
           "HawalaLightning", "HawalaNostr", "HawalaConnect", "HawalaVault", "HawalaVaultClient", "HawalaVaultAgent"}
never_in_library = {"HawalaDevnet", "HawalaSpark", "HawalaApp", "BreezSdkSpark"}
for module in sorted(library):
    for source in glob.glob(f"Sources/{module}/**/*.swift", recursive=True):
        for number, line in enumerate(open(source), 1):
            imported = re.match(r"\s*(?:@testable |@preconcurrency )?import (\w+)\s*$", line)
            if imported and imported.group(1) in never_in_library:
                problems.append(f"{source}:{number}: the library module {module} imports {imported.group(1)} (a front end hands backends in)")
for source in glob.glob("Sources/HawalaApp/**/*.swift", recursive=True):
    if re.search(r"^import (HawalaSpark|BreezSdkSpark)\s*$", open(source).read(), re.M):
        problems.append(f"{source}: the app imports the Spark SDK's module (the CLI hands it in as a BackendOpeners)")
for source in glob.glob("Sources/hawala/*.swift"):
    if not source.endswith("/AppCommand.swift") and re.search(r"^import HawalaApp\s*$", open(source).read(), re.M):
        problems.append(f"{source}: the CLI imports HawalaApp outside AppCommand.swift (a rule the faces share belongs in a library module)")

for problem in problems:
    print(problem)
sys.exit(1 if problems else 0)
