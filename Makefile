# Hawala: `make run` sets up what is missing and starts the wallet; `make test` runs every test.
SHELL := /bin/bash
## What building and running need; what the tests need besides (a PostgreSQL for the vault's
## storage tests, Chromium and Selenium for the app's, PDF and QR readers, curl).
APT_PACKAGES := libsecp256k1-dev libsodium-dev libsqlite3-dev libcairo2-dev libqrencode-dev fonts-dejavu-core pkg-config patchelf
TEST_PACKAGES := poppler-utils zbar-tools curl postgresql chromium chromium-driver python3-selenium python3-cryptography python3-venv gdb litecoind
PYTHON ?= python3
## `make run` starts the app; ARGS="wallet list" runs another command.
ARGS ?= app
## An import of a module not declared in Package.swift fails the build.
IMPORT_CHECK := --explicit-target-dependency-import-check error
## A test run past its deadline is ended with the unfinished tests named and backtraces of every
## thread (gdb), instead of holding CI; a failing run ends by repeating its ✘ lines.
WATCHDOG := $(PYTHON) scripts/watchdog.py

.PHONY: run test test-asan test-app test-spark-stress build release bench bench-app bench-vault deps test-deps vectors fuzz clean screens install uninstall

## Install the missing Debian packages (apt-get; sudo when not root), then the Breez Spark SDK:
## its library from PyPI and the Swift bindings generated from it, in Generated/spark (never
## committed; skipped with one line where no wheel exists).
deps:
	@./scripts/install-deps.sh $(APT_PACKAGES)
	@./scripts/install-spark.sh

## What the tests need besides: the packages above, axe-core (scripts/install-axe.sh), and the
## NWC tests' peers — a Nostr relay and rust-nostr's client — in .build/nostr-venv, and an Electrum
## server (ElectrumX) for the on-chain tests in .build/electrumx-venv.
test-deps: deps
	@./scripts/install-deps.sh $(TEST_PACKAGES)
	@./scripts/install-axe.sh
	@./scripts/install-nostr.sh
	@./scripts/install-electrumx.sh

build: deps
	swift build --product hawala $(IMPORT_CHECK)
	swift build --product hawala-vault $(IMPORT_CHECK)

release: deps
	swift build -c release --product hawala
	swift build -c release --product hawala-vault
	swift build -c release --product hawala-bench

## Install what `make release` built (CONFIG=debug: `make build`'s) under $(DESTDIR)$(PREFIX):
## hawala and hawala-vault, the libraries they load beside them (the Swift runtime, the Spark
## library), the systemd units and the docs; `make uninstall` removes them. Nothing is built here.
PREFIX ?= /usr/local
CONFIG ?= release
install:
	@./scripts/install.sh install "$(DESTDIR)" "$(PREFIX)" ".build/$(CONFIG)"

uninstall:
	@./scripts/install.sh uninstall "$(DESTDIR)" "$(PREFIX)"

## Build and start the app: the browser opens, or the sign-in link is printed (other commands:
## ARGS="wallet list").
run: deps
	swift build --product hawala $(IMPORT_CHECK)
	@.build/debug/hawala $(ARGS)

## Only what the tests run is built (the test bundle, hawala and hawala-vault; not hawala-bench).
## Every test: unit tests, official and cross-implementation vectors, CLI tests, the vault
## storage and server on SQLite and on a throwaway PostgreSQL, the vault torture (attacks and
## faults against the real server, both storages), schemathesis against the vault server,
## `hawala app` in headless Chromium, Nostr Wallet Connect through a real relay with rust-nostr's
## client, `hawala mcp` with the official MCP client and L402 on devnet; then the library tests again under AddressSanitizer. A
## failing run ends by repeating its ✘ lines.
test: test-deps
	$(PYTHON) scripts/check-imports.py
	$(PYTHON) scripts/check-architecture.py
	$(PYTHON) scripts/check-app-guards.py
	swift build --product HawalaPackageTests $(IMPORT_CHECK)
	swift build --product hawala $(IMPORT_CHECK)
	swift build --product hawala-vault $(IMPORT_CHECK)
	./scripts/with-postgres.sh $(WATCHDOG) --minutes 20 --log .build/test.log -- swift test --skip-build --parallel --num-workers 2
	/usr/bin/python3 scripts/app_e2e.py
	.build/nostr-venv/bin/python scripts/nwc_e2e.py
	.build/nostr-venv/bin/python scripts/mcp_e2e.py
	./scripts/with-postgres.sh ./scripts/vault-torture.sh
	./scripts/schemathesis.sh
	./scripts/test-install.sh
	$(MAKE) --no-print-directory test-asan

## `hawala app` end to end in headless Chromium (Debian's chromium, chromedriver and
## python3-selenium: Selenium downloads nothing).
test-app: test-deps
	swift build --product hawala $(IMPORT_CHECK)
	swift build --product hawala-vault $(IMPORT_CHECK)
	/usr/bin/python3 scripts/app_e2e.py

## The screenshots in docs/screens (docs/user-guide.md), taken by the end-to-end run.
screens: test-deps
	swift build --product hawala $(IMPORT_CHECK)
	swift build --product hawala-vault $(IMPORT_CHECK)
	/usr/bin/python3 scripts/app_e2e.py --screens docs/screens

test-asan: test-deps
	swift build --product HawalaPackageTests $(IMPORT_CHECK) --sanitize=address --scratch-path .build/asan
	ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 $(WATCHDOG) --minutes 15 --log .build/asan/test.log -- swift test --skip-build --sanitize=address --scratch-path .build/asan --parallel --num-workers 2 --skip HawalaCLITests --skip facesAgree --skip OnChainCLITests --skip OnChainRegtestTests --skip ElectrumTests --skip AccountKindsTests --skip ForeignPSBTTests

## The issue's 50 Spark connect/disconnect cycles in one process (offline each takes ~5 s to
## stop, so `make test` runs 5): threads and memory must not grow.
test-spark-stress: deps
	swift build --build-tests $(IMPORT_CHECK)
	HAWALA_SPARK_CYCLES=50 swift test --skip-build --filter listenersAndReconnectsDoNotLeak

## Benchmarks, release build (figures in docs/benchmarks.md).
bench: release
	@./scripts/bench.sh

## hawala app against issue 16's budgets: page times with 50 wallets and 100k payments, first paint, size.
## HAWALA_BASELINE=FILE compares the size with a release binary built before the app.
bench-app: release
	@/usr/bin/python3 scripts/bench_app.py $(if $(HAWALA_BASELINE),--baseline $(HAWALA_BASELINE))

## Vault server under wrk (list and 1 MiB downloads), nginx serving the same file as reference.
bench-vault: release
	@./scripts/install-deps.sh wrk nginx
	@./scripts/bench-vault.sh
	@./scripts/vault-flood.sh

## Regenerate the cross-implementation vectors (needs PyPI's bip-utils, mnemonic, embit and
## shamir-mnemonic; the tests only read the committed JSON).
vectors:
	$(PYTHON) scripts/gen_cross_vectors.py > Tests/HawalaKeysTests/Vectors/cross-implementation.json
	$(PYTHON) scripts/gen_slip39_vectors.py
	$(PYTHON) scripts/gen_electrum_vectors.py > Tests/HawalaKeysTests/Vectors/electrum-seeds.json

## libFuzzer over the parsers: the .hawala decoder and payloads (backup), what people paste —
## addresses of every chain, extended keys, mnemonics, paths, imported keys, SLIP-39 shares
## (keys) — and the Lightning inputs: BOLT11, BIP21 URIs, LNURL, Lightning addresses (lightning).
## FUZZ_SECONDS (default 60) each; crashes land in fuzz/crashes.
FUZZ_SECONDS ?= 60
fuzz: deps
	HAWALA_FUZZ=1 swift build --product hawala-fuzz --scratch-path .build/fuzz -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -use-ld=lld
	mkdir -p fuzz/corpus fuzz/crashes
	for target in backup keys lightning; do \
	  HAWALA_FUZZ=1 HAWALA_FUZZ_TARGET=$$target .build/fuzz/debug/hawala-fuzz fuzz/corpus fuzz/seeds -artifact_prefix=fuzz/crashes/ \
	    -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=2048 || exit 1; \
	done

clean:
	rm -rf .build Generated
