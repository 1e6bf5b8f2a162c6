#!/usr/bin/env python3
"""BDK (PyPI bdkpython) as the on-chain wallet's offline oracle: for several mnemonics, the BIP84
descriptors of both keychains and their addresses on Bitcoin mainnet, testnet and regtest, as
BDK derives them. Hawala's testnet wallets share coin type 1 on every test network, as BDK's
templates do.

Usage: python3 scripts/gen_bdk_vectors.py [SEED] > Tests/HawalaOnChainTests/Vectors/bdk.json
The output is committed; the Swift tests read it and never run this script.
"""
import json, random, sys
import bdkpython as bdk

rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 20261128)
mnemonics = [
    "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about",
    "legal winner thank year wave sausage worth useful legal winner thank yellow",
] + [str(bdk.Mnemonic.from_entropy(bytes(rng.randrange(256) for _ in range(n)))) for n in (16, 32, 32)]
NETWORKS = [("main", bdk.Network.BITCOIN, bdk.NetworkKind.MAIN), ("test", bdk.Network.TESTNET, bdk.NetworkKind.TEST),
            ("regtest", bdk.Network.REGTEST, bdk.NetworkKind.TEST)]
INDICES = [0, 1, 2, 19, 20, 45, 1000]
vectors = []
for words in mnemonics:
    mnemonic = bdk.Mnemonic.from_string(words)
    for name, network, kind in NETWORKS:
        secret = bdk.DescriptorSecretKey(kind, mnemonic, None)
        external = bdk.Descriptor.new_bip84(secret, bdk.KeychainKind.EXTERNAL, kind)
        internal = bdk.Descriptor.new_bip84(secret, bdk.KeychainKind.INTERNAL, kind)
        wallet = bdk.Wallet(external, internal, network, bdk.Persister.new_in_memory())
        vectors.append({
            "mnemonic": words, "network": name,
            "receiveDescriptor": str(wallet.public_descriptor(bdk.KeychainKind.EXTERNAL)),
            "changeDescriptor": str(wallet.public_descriptor(bdk.KeychainKind.INTERNAL)),
            "receive": {str(i): str(wallet.peek_address(bdk.KeychainKind.EXTERNAL, i).address) for i in INDICES},
            "change": {str(i): str(wallet.peek_address(bdk.KeychainKind.INTERNAL, i).address) for i in INDICES},
        })
json.dump({"generator": "scripts/gen_bdk_vectors.py", "bdkpython": bdk.__dict__.get("__version__", "3.1.1"), "vectors": vectors},
          sys.stdout, indent=1, ensure_ascii=False)
print()
