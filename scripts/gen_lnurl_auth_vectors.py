#!/usr/bin/env python3
"""LNURL-auth (LUD-04/05) and signed-message vectors from independent implementations: PyPI's `bip-utils` derives
the hashing key m/138'/0 and the linking key m/138'/<4 × uint32 of HMAC-SHA256(hashingKey,
domain)> (raw BIP32 indexes: one of 2^31 or more is hardened, as in the spec's Scala example),
and PyPI's `ecdsa` signs k1 with RFC 6979 nonces (normalized to low S, DER).

Usage: python3 scripts/gen_lnurl_auth_vectors.py > Tests/HawalaLightningTests/Vectors/lnurl-auth.json
The output is committed; the Swift tests read it and never run this script.
"""
import hashlib, hmac, json
import ecdsa
from ecdsa.util import sigencode_der, sigdecode_der
from bip_utils import Bip39SeedGenerator, Bip32Slip10Secp256k1, Bip32KeyIndex

CASES = [
    ("abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about", "", "site.com"),
    ("abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about", "", "127.0.0.1"),
    ("abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about", "TREZOR", "auth.example.org"),
    ("legal winner thank year wave sausage worth useful legal winner thank yellow", "", "site.com"),
    ("letter advice cage absurd amount doctor acoustic avoid letter advice cage above", "", "x.y.z.com"),
]
N = ecdsa.SECP256k1.order

def low_s_der(sig_der):
    r, s = sigdecode_der(sig_der, N)
    if s > N // 2:
        s = N - s
    return sigencode_der(r, s, N)

out = []
for i, (words, passphrase, domain) in enumerate(CASES):
    seed = Bip39SeedGenerator(words).Generate(passphrase)
    master = Bip32Slip10Secp256k1.FromSeed(seed)
    hashing = master.DerivePath("m/138'/0").PrivateKey().Raw().ToBytes()
    material = hmac.new(hashing, domain.encode(), hashlib.sha256).digest()
    suffix = [int.from_bytes(material[j:j + 4], "big") for j in range(0, 16, 4)]
    node = master.ChildKey(Bip32KeyIndex.HardenIndex(138))
    for index in suffix:
        node = node.ChildKey(Bip32KeyIndex(index))
    linking = node.PrivateKey().Raw().ToBytes()
    public = node.PublicKey().RawCompressed().ToBytes()
    k1 = hashlib.sha256(f"k1 {i}".encode()).digest()
    key = ecdsa.SigningKey.from_string(linking, curve=ecdsa.SECP256k1)
    sig = low_s_der(key.sign_digest_deterministic(k1, hashfunc=hashlib.sha256, sigencode=sigencode_der))
    assert ecdsa.VerifyingKey.from_string(public, curve=ecdsa.SECP256k1).verify_digest(sig, k1, sigdecode=sigdecode_der)
    out.append({"mnemonic": words, "passphrase": passphrase, "domain": domain, "hashingKey": hashing.hex(),
                "pathSuffix": suffix, "linkingKey": public.hex(), "k1": k1.hex(), "sig": sig.hex()})
# Signed messages (ln sign-message): ECDSA over SHA-256 of the UTF-8 message, DER, low S.
messages = []
for i, text in enumerate(["hello world", "", "ünïcødé ⚡", "x" * 1000]):
    private = hashlib.sha256(f"message key {i}".encode()).digest()
    key = ecdsa.SigningKey.from_string(private, curve=ecdsa.SECP256k1)
    digest = hashlib.sha256(text.encode()).digest()
    sig = low_s_der(key.sign_digest_deterministic(digest, hashfunc=hashlib.sha256, sigencode=sigencode_der))
    compact = ecdsa.util.sigencode_string(*sigdecode_der(sig, N), N)
    messages.append({"privateKey": private.hex(), "message": text, "pubkey": key.get_verifying_key().to_string("compressed").hex(),
                     "sig": sig.hex(), "compact": compact.hex()})
print(json.dumps({"source": "bip-utils + ecdsa (PyPI), scripts/gen_lnurl_auth_vectors.py", "vectors": out, "messages": messages}, indent=1))
