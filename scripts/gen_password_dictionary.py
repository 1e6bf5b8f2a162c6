#!/usr/bin/env python3
"""The ranked word lists of the password estimator (Sources/HawalaWallet/PasswordStrength*),
taken from PyPI's zxcvbn (MIT; lists from leaked passwords, Wikipedia, film subtitles and the US
census), and the cross-check vectors of its tests (zxcvbn's own estimate for a set of passwords).

    python3 scripts/gen_password_dictionary.py

writes Sources/HawalaWallet/Resources/password-dictionary.txt and
Tests/HawalaWalletTests/Fixtures/zxcvbn.json. The build and the tests only read these files."""
import json
import math
import random
from pathlib import Path

from zxcvbn import zxcvbn
from zxcvbn.frequency_lists import FREQUENCY_LISTS

ROOT = Path(__file__).resolve().parent.parent
# How many words of each list, most frequent first.
KEEP = {"passwords": 30000, "english_wikipedia": 20000, "us_tv_and_film": 10000,
        "surnames": 5000, "female_names": 2000, "male_names": 1000}


def write_dictionary() -> None:
    lines = ["# Ranked word lists for the password estimator, from PyPI zxcvbn (MIT).",
             "# scripts/gen_password_dictionary.py writes this file; one '@name' line starts each list."]
    for name, keep in KEEP.items():
        lines.append("@" + name)
        lines += FREQUENCY_LISTS[name][:keep]
    (ROOT / "Sources/HawalaWallet/Resources/password-dictionary.txt").write_text("\n".join(lines) + "\n")


def samples() -> list[str]:
    rng = random.Random(17)
    words = FREQUENCY_LISTS["english_wikipedia"]
    common = FREQUENCY_LISTS["passwords"]
    out = ["qwertyuiop", "password123", "correct horse battery staple", "a long backup passphrase",
           "a long backup password 42", "a long backup password for tests", "another long backup passphrase",
           "Tr0ub4dor&3", "p@ssw0rd2024", "iloveyou2", "asdfghjkl;", "zxcvbnm,./", "1qaz2wsx3edc", "qazwsxedcrfv",
           "aaaaaaaaaaaaaaaa", "abcabcabcabcabc", "abcdefghijklmnop", "9876543210", "19871987", "12/05/1990",
           "michael1987", "Jennifer2001!", "letmeinletmein", "monkey123monkey", "drowssap", "P4$$W0RD"]
    out += [common[rng.randrange(0, 5000)] for _ in range(40)]
    out += [common[rng.randrange(0, 3000)] + str(rng.randrange(0, 100)) for _ in range(20)]
    out += [common[rng.randrange(0, 3000)].capitalize() + str(rng.randrange(1950, 2030)) for _ in range(20)]
    for n in (2, 3, 4, 5):
        for _ in range(12):
            sep = rng.choice([" ", "-", ""])
            out.append(sep.join(rng.choice(words[:20000]) for _ in range(n)))
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!@#$%^&*"
    for length in (10, 12, 14, 16, 20):
        for _ in range(6):
            out.append("".join(rng.choice(alphabet) for _ in range(length)))
    return list(dict.fromkeys(out))


def write_vectors() -> None:
    rows = []
    for password in samples():
        result = zxcvbn(password)
        rows.append({"password": password, "bits": round(result["guesses_log10"] * math.log2(10), 2)})
    path = ROOT / "Tests/HawalaWalletTests/Fixtures/zxcvbn.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"source": "PyPI zxcvbn", "vectors": rows}, ensure_ascii=False, indent=1) + "\n")


if __name__ == "__main__":
    write_dictionary()
    write_vectors()
