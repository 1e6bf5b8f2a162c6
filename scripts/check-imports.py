#!/usr/bin/env python3
"""Every module a target imports is declared in its Package.swift dependencies.

SwiftPM's --explicit-target-dependency-import-check does not see a product reached through
another target (HawalaKeys imported swift-crypto's Crypto through HawalaCrypto unnoticed), so
this reads the manifest and the sources and names each undeclared import. Exit 1 when any."""
import glob, os, re, sys

os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
manifest = open("Package.swift").read()
system = {"Foundation", "FoundationEssentials", "Testing", "Dispatch", "Glibc", "Synchronization", "XCTest"}
problems = []
# Each target's text runs to the next target (one-line targets included).
starts = list(re.finditer(r'\n        \.(?:target|testTarget|executableTarget|systemLibrary)\(\s*name:\s*"([^"]+)"', manifest))
for i, m in enumerate(starts):
    if ".systemLibrary" in m.group(0):
        continue
    name = m.group(1)
    body = manifest[m.end():starts[i + 1].start() if i + 1 < len(starts) else len(manifest)]
    declared = set(re.findall(r'"([A-Za-z_]+)"', body.split("swiftSettings")[0]))
    declared |= set(re.findall(r'\.product\(name:\s*"([^"]+)"', body))
    path = re.search(r'path:\s*"([^"]+)"', body)
    folder = path.group(1) if path else (f"Sources/{name}" if os.path.isdir(f"Sources/{name}") else f"Tests/{name}")
    for source in glob.glob(folder + "/**/*.swift", recursive=True):
        for number, line in enumerate(open(source), 1):
            found = re.match(r'(?:@testable |@_spi\(\w+\) |@preconcurrency |@_exported )*import (?:struct |class |enum |func |protocol )?(\w+)\s*$', line.strip())
            if found and found.group(1) not in declared | system | {name}:
                problems.append(f"{source}:{number}: {name} imports {found.group(1)}, not declared in Package.swift")
for problem in problems:
    print(problem)
sys.exit(1 if problems else 0)
