#!/usr/bin/env python3
"""The app's handlers take the session, keyring and wallet from their group's context
(AppContext.swift's middleware), and controllers don't construct each other. This counts what
is still done by hand in Sources/HawalaApp and fails when a count rises above its ceiling:
the ceilings only come down (issue 51), until every one is 0."""
import pathlib, re, sys

APP = pathlib.Path(__file__).resolve().parent.parent / "Sources" / "HawalaApp"
# Where the chain itself lives: the middleware may resolve; nothing else should.
CHAIN = {"AppContext.swift", "AppRoutes.swift"}
CHECKS = {
    # name: (pattern, ceiling)
    "mustUnlock outside the middleware": (r"\bmustUnlock\(", 3),
    "savedVault(session.keyring)": (r"savedVault\(session\.keyring\)", 2),
    "session.keyring read by hand": (r"\bsession\.keyring\b", 3),
    "currentWallet() outside the middleware": (r"\bcurrentWallet\(\)", 0),
    "the session peeked outside the middleware": (r"sessions\.peek\(", 0),
    "a controller constructing another": (r"\b[A-Z]\w*Controller\(routes: routes\)", 0),
}

def main() -> int:
    sources = [p for p in sorted(APP.glob("*.swift")) if p.name not in CHAIN]
    failed = False
    for name, (pattern, ceiling) in CHECKS.items():
        hits = [f"{p.name}:{n}" for p in sources for n, line in enumerate(p.read_text().splitlines(), 1)
                if re.search(pattern, line) and not line.lstrip().startswith("//")]
        mark = "ok " if len(hits) <= ceiling else "TOO MANY"
        print(f"{mark} {name}: {len(hits)} (ceiling {ceiling})")
        if len(hits) > ceiling:
            failed = True
            print("    " + "\n    ".join(hits))
    return 1 if failed else 0

if __name__ == "__main__":
    sys.exit(main())
