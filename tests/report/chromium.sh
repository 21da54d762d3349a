# Headless Chromium for the report tests (sourced after tests/e2e/lib.sh):
# sets $chromium and the array flags (a fresh profile; every host name
# resolves nowhere, so a page that tried the network would show it), or
# fails the test when Chromium is missing: tests/install-deps.sh installs
# it, and a missing browser is a failure, not a skip.
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
	echo "not ok - chromium is not installed (tests/install-deps.sh installs it)"
	exit 1
fi
profile=$(mktemp -d "$T_ROOT/chromium.XXXXXX")
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
       --disable-background-networking --disable-component-update --disable-sync
       --user-data-dir="$profile" --host-resolver-rules='MAP * ~NOTFOUND')
