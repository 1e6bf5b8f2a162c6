#!/usr/bin/env python3
"""SLIP-39 vectors for the Swift tests, checked by independent implementations.

1. Official: reads Tests/HawalaKeysTests/Vectors/slip39-official.json (the 45 vectors published
   with SLIP-39 in trezor/python-shamir-mnemonic's vectors.json; passphrase "TREZOR"), checks
   every one with PyPI `shamir-mnemonic` (valid ones recover the listed secret, invalid ones are
   refused), and fills in the BIP32 root xprv of each secret computed by PyPI `bip-utils`.
2. Cross: splits made by `shamir-mnemonic` with its random source replaced by a recorded byte
   stream, over many group layouts, passphrases, exponents and both extendable modes. The Swift
   test replays the same stream and must produce the same words; it must also recover the
   secret from the listed subset of shares.

Usage: python3 scripts/gen_slip39_vectors.py [SEED]
Writes the two JSON files in Tests/HawalaKeysTests/Vectors; the tests never run this script.
"""
import importlib.metadata, json, os, random, sys
import shamir_mnemonic as sm
from shamir_mnemonic import shamir
from bip_utils import Bip32Slip10Secp256k1

HERE = os.path.join(os.path.dirname(__file__), "..", "Tests", "HawalaKeysTests", "Vectors")
OFFICIAL = os.path.join(HERE, "slip39-official.json")
CROSS = os.path.join(HERE, "slip39-cross.json")


def xprv(secret: bytes) -> str:
    return Bip32Slip10Secp256k1.FromSeed(secret).PrivateKey().ToExtended()


def check_official():
    vectors = json.load(open(OFFICIAL))
    for v in vectors:
        try:
            secret = sm.combine_mnemonics(v["mnemonics"], b"TREZOR").hex()
        except (sm.MnemonicError, ValueError):
            secret = ""
        assert secret == v["masterSecret"], v["description"]
        v["xprv"] = xprv(bytes.fromhex(secret)) if secret else ""
    with open(OFFICIAL, "w") as f:
        json.dump(vectors, f, indent=1, ensure_ascii=False)
        f.write("\n")
    return len(vectors)


def cross(seed: int):
    rng = random.Random(seed)
    layouts = [
        (1, [(1, 1)]), (1, [(2, 3)]), (1, [(3, 5)]), (1, [(16, 16)]), (2, [(1, 1), (2, 3)]),
        (2, [(1, 1), (1, 1), (3, 5), (2, 6)]), (3, [(2, 2), (3, 4), (1, 1), (4, 7)]),
        (1, [(5, 16), (1, 1)]), (4, [(1, 1)] * 4), (2, [(2, 3), (2, 3), (2, 3)]),
    ]
    passphrases = [b"", b"TREZOR", b"correct horse battery staple", b" ~!@#$%^&*()_+ "]
    out = []
    for n in range(40):
        group_threshold, groups = layouts[n % len(layouts)]
        length = rng.choice([16, 20, 24, 32, 64])
        secret = bytes(rng.randrange(256) for _ in range(length))
        passphrase = passphrases[n % len(passphrases)]
        extendable = n % 3 != 0
        exponent = n % 3  # 0..2 keeps the test fast
        stream = bytearray()

        def recorded(k, stream=stream):
            b = bytes(rng.randrange(256) for _ in range(k))
            stream.extend(b)
            return b

        shamir.RANDOM_BYTES = recorded
        mnemonics = sm.generate_mnemonics(group_threshold, groups, secret, passphrase, extendable, exponent)
        # A recovering subset: threshold groups, threshold members each, in shuffled order.
        chosen = rng.sample(range(len(groups)), group_threshold)
        subset = [m for g in chosen for m in rng.sample(mnemonics[g], groups[g][0])]
        rng.shuffle(subset)
        assert sm.combine_mnemonics(subset, passphrase) == secret
        out.append({
            "masterSecret": secret.hex(), "passphrase": passphrase.decode(), "extendable": extendable,
            "iterationExponent": exponent, "groupThreshold": group_threshold,
            "groups": [list(g) for g in groups], "random": stream.hex(),
            "mnemonics": mnemonics, "subset": subset, "xprv": xprv(secret),
        })
    with open(CROSS, "w") as f:
        json.dump({"generator": "shamir-mnemonic " + importlib.metadata.version("shamir-mnemonic"),
                   "seed": seed, "vectors": out}, f, indent=1)
        f.write("\n")
    return len(out)


if __name__ == "__main__":
    print("official:", check_official(), "cross:", cross(int(sys.argv[1]) if len(sys.argv) > 1 else 39))
