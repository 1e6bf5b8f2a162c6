#!/usr/bin/env python3
"""Cross-implementation vectors: random mnemonics in every language and length, with and
without passphrases (ASCII, spaces, non-ASCII), and their addresses on every chain at several
accounts, change branches and indices, computed by independent implementations:
PyPI's `mnemonic` (Trezor's BIP39 reference: words and seeds), `bip-utils` (BIP32/44/49/84/86,
SLIP-10, CIP-1852, every address encoder, SLIP-132 account keys) and `embit` (BIP380 descriptor
checksums).

Usage: python3 scripts/gen_cross_vectors.py [SEED] > Tests/HawalaKeysTests/Vectors/cross-implementation.json
The output is committed; the Swift tests read it and never run this script.
"""
import hashlib, json, random, sys, unicodedata
from mnemonic import Mnemonic
from bip_utils import (Bip44, Bip44Coins, Bip49, Bip49Coins, Bip84, Bip84Coins, Bip86, Bip86Coins,
                       Bip44Changes, Cip1852, CardanoShelley, CardanoIcarusBip32)
from bip_utils.cardano.cip1852.conf.cip1852_conf import Cip1852Conf
from bip_utils.bip.bip32 import Bip32KeyData, Bip32ChainCode, Bip32Const
from bip_utils import Bip32Slip10Secp256k1
from embit.descriptor.checksum import add_checksum  # PyPI embit: BIP380 checksums

rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 20261122)
LANGS = ["english", "japanese", "korean", "spanish", "chinese_simplified", "chinese_traditional",
         "french", "italian", "czech", "portuguese"]
PASSPHRASES = ["", "TREZOR", "correct horse battery staple", "  leading and trailing  ",
               "Ünïcödé ☃ pässphrase", "㍍ガバヴァぱばぐゞちぢ十人十色", "naïve café", "пароль"]
SECP = {  # name -> (class, coin, purpose, coin type)
    "bitcoin": (Bip84, Bip84Coins.BITCOIN, 84, 0),
    "bitcoin-taproot": (Bip86, Bip86Coins.BITCOIN, 86, 0),
    "bitcoin-nested-segwit": (Bip49, Bip49Coins.BITCOIN, 49, 0),
    "bitcoin-legacy": (Bip44, Bip44Coins.BITCOIN, 44, 0),
    "bitcoin-testnet": (Bip84, Bip84Coins.BITCOIN_TESTNET, 84, 1),
    "litecoin": (Bip84, Bip84Coins.LITECOIN, 84, 2),
    "ethereum": (Bip44, Bip44Coins.ETHEREUM, 44, 60),
    "bsc": (Bip44, Bip44Coins.BINANCE_SMART_CHAIN, 44, 60),
    "polygon": (Bip44, Bip44Coins.POLYGON, 44, 60),
    "xrp": (Bip44, Bip44Coins.RIPPLE, 44, 144),
    "cosmos": (Bip44, Bip44Coins.COSMOS, 44, 118),
}
CHANGE = {0: Bip44Changes.CHAIN_EXT, 1: Bip44Changes.CHAIN_INT}


def icarus_root(entropy: bytes, passphrase: str):
    """CIP-3 Icarus master key, computed here with hashlib so bip-utils derives from it."""
    k = bytearray(hashlib.pbkdf2_hmac("sha512", unicodedata.normalize("NFKD", passphrase).encode(), entropy, 4096, 96))
    k[0] &= 0xF8; k[31] &= 0x1F; k[31] |= 0x40
    bip32 = CardanoIcarusBip32.FromPrivateKey(bytes(k[:64]), Bip32KeyData(chain_code=Bip32ChainCode(bytes(k[64:]))))
    return Cip1852(bip32, Cip1852Conf.CardanoIcarusMainNet)


def addresses(seed: bytes, entropy: bytes, passphrase: str, targets):
    out = []
    for chain, account, change, index in targets:
        if chain in SECP:
            cls, coin, purpose, ct = SECP[chain]
            ctx = cls.FromSeed(seed, coin).Purpose().Coin().Account(account).Change(CHANGE[change]).AddressIndex(index)
            out.append({"chain": chain, "path": f"m/{purpose}'/{ct}'/{account}'/{change}/{index}",
                        "address": ctx.PublicKey().ToAddress(),
                        "publicKey": ctx.PublicKey().RawCompressed().ToHex()})
        elif chain == "solana":
            # The index is the account: m/44'/501'/i'/0'.
            ctx = Bip44.FromSeed(seed, Bip44Coins.SOLANA).Purpose().Coin().Account(index).Change(Bip44Changes.CHAIN_EXT)
            out.append({"chain": chain, "path": f"m/44'/501'/{index}'/0'", "address": ctx.PublicKey().ToAddress(),
                        "publicKey": ctx.PublicKey().RawCompressed().ToHex()[2:]})
        elif chain == "cardano":
            acc = icarus_root(entropy, passphrase).Purpose().Coin().Account(account)
            ctx = CardanoShelley.FromCip1852Object(acc).Change(CHANGE[change]).AddressIndex(index)
            out.append({"chain": chain, "path": f"m/1852'/1815'/{account}'/{change}/{index}",
                        "address": ctx.PublicKeys().ToAddress(),
                        "publicKey": ctx.PublicKeys().AddressKey().RawCompressed().ToHex()[2:]})
    return out


ACCOUNT_EXPORT = {  # name -> (class, coin, purpose, coin type, descriptor template, testnet)
    "bitcoin": (Bip84, Bip84Coins.BITCOIN, 84, 0, "wpkh(KEY)", False),
    "bitcoin-taproot": (Bip86, Bip86Coins.BITCOIN, 86, 0, "tr(KEY)", False),
    "bitcoin-nested-segwit": (Bip49, Bip49Coins.BITCOIN, 49, 0, "sh(wpkh(KEY))", False),
    "bitcoin-legacy": (Bip44, Bip44Coins.BITCOIN, 44, 0, "pkh(KEY)", False),
    "bitcoin-testnet": (Bip84, Bip84Coins.BITCOIN_TESTNET, 84, 1, "wpkh(KEY)", True),
    "litecoin": (Bip84, Bip84Coins.LITECOIN, 84, 2, "wpkh(KEY)", False),
}


def account_exports(seed: bytes, account: int):
    out = []
    for chain, (cls, coin, purpose, ct, template, testnet) in ACCOUNT_EXPORT.items():
        slip132 = cls.FromSeed(seed, coin).Purpose().Coin().Account(account).PublicKey().ToExtended()
        versions = Bip32Const.TEST_NET_KEY_NET_VERSIONS if testnet else Bip32Const.MAIN_NET_KEY_NET_VERSIONS
        root = Bip32Slip10Secp256k1.FromSeed(seed, versions)
        plain = root.DerivePath(f"m/{purpose}'/{ct}'/{account}'").PublicKey().ToExtended()
        fp = root.PublicKey().FingerPrint().ToHex()
        descriptor = add_checksum(template.replace("KEY", f"[{fp}/{purpose}h/{ct}h/{account}h]{plain}/0/*"))
        out.append({"chain": chain, "path": f"m/{purpose}'/{ct}'/{account}'", "xpub": slip132,
                    "descriptor": descriptor, "fingerprint": fp})
    return out


vectors = []
for lang in LANGS:
    mnemo = Mnemonic(lang)
    for words in [12, 15, 18, 21, 24]:
        for with_passphrase in (False, True):
            entropy = bytes(rng.getrandbits(8) for _ in range(words // 3 * 4))
            phrase = mnemo.to_mnemonic(entropy)
            passphrase = rng.choice(PASSPHRASES[1:]) if with_passphrase else ""
            seed = Mnemonic.to_seed(phrase, passphrase)
            targets = []
            for chain in list(SECP) + ["solana", "cardano"]:
                targets.append((chain, 0, 0, 0))
                targets.append((chain, rng.randint(1, 5), rng.randint(0, 1), rng.randint(1, 2000)))
            vectors.append({
                "language": lang.replace("_", "-"),
                "mnemonic": unicodedata.normalize("NFC", phrase),
                "entropy": entropy.hex(),
                "passphrase": passphrase,
                "seed": seed.hex(),
                "addresses": addresses(seed, entropy, passphrase, targets),
                "accounts": account_exports(seed, rng.choice([0, 0, 1, 7])),
            })

json.dump({"generator": "scripts/gen_cross_vectors.py (mnemonic 0.21, bip-utils 2.12, embit)", "vectors": vectors},
          sys.stdout, ensure_ascii=False, indent=1)
print()
