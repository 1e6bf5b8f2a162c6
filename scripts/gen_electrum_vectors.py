#!/usr/bin/env python3
"""Electrum version 2 seed phrases of every type, made by PyPI's bip-utils from fixed entropy,
and BIP39 phrases that must not be taken for them. Writes
Tests/HawalaKeysTests/Vectors/electrum-seeds.json (the tests only read the JSON)."""
import hashlib
import json
import sys

from bip_utils import (Bip39MnemonicGenerator, Bip39Languages, ElectrumV2Languages,
                       ElectrumV2MnemonicGenerator, ElectrumV2MnemonicTypes)

TYPES = {
    ElectrumV2MnemonicTypes.STANDARD: "standard",
    ElectrumV2MnemonicTypes.SEGWIT: "segwit",
    ElectrumV2MnemonicTypes.STANDARD_2FA: "twoFactor",
    ElectrumV2MnemonicTypes.SEGWIT_2FA: "twoFactorSegwit",
}


def entropy(label: str, size: int) -> bytes:
    """`size` bytes from a label. Electrum v2 entropy is 121-132 bits (17 bytes, 12 words) or
    253-264 bits (33 bytes, 24 words): the first byte is bounded to fit."""
    raw = bytearray((hashlib.sha512(label.encode()).digest() * 2)[:size])
    if size == 17:
        raw[0] = 1 + raw[0] % 15
    elif size == 33:
        raw[0] |= 0x10
    return bytes(raw)


def main() -> None:
    electrum = []
    for mtype, name in TYPES.items():
        # English only: bip-utils checks the type on NFKD text, while Electrum also strips accents,
        # so the two disagree on accented (Spanish, Portuguese) phrases.
        for language in (ElectrumV2Languages.ENGLISH,):
            for size in (17, 33):
                gen = ElectrumV2MnemonicGenerator(mtype, language)
                phrase = gen.FromEntropy(entropy(f"{name}-{language.name}-{size}", size)).ToStr()
                electrum.append({"phrase": phrase, "type": name, "language": language.name.lower()})
    bip39 = []
    for i in range(8):
        bip39.append(Bip39MnemonicGenerator(Bip39Languages.ENGLISH).FromEntropy(hashlib.sha256(f"bip39-{i}".encode()).digest()[:16 if i % 2 else 32]).ToStr())
    json.dump({"source": "bip-utils " + __import__("bip_utils").__version__, "electrum": electrum, "bip39": bip39},
              sys.stdout, ensure_ascii=False, indent=1)
    print()


if __name__ == "__main__":
    main()
