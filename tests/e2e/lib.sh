# Helpers of the end-to-end tests: the fake Slurm first on PATH (tests/fake/lib.sh),
# sbctl and sbagent from the build, a private local index, and a shim
# directory where a test can wrap a Slurm command.
: "${SB_BIN:?SB_BIN must name build/bin}"
. "$(dirname "${BASH_SOURCE[0]}")/../fake/lib.sh"
export SB_INDEX="$T_ROOT/index.sqlite"
export SB_ROOT="$T_ROOT/runs"
SBCTL="$SB_BIN/sbctl"
SHIM="$T_ROOT/shim"
mkdir -p "$SHIM"
export PATH="$SHIM:$PATH"

# count_calls NAME: how many times the shim of NAME ran
count_calls() { [ -f "$T_ROOT/calls.$1" ] && wc -l < "$T_ROOT/calls.$1" || echo 0; }

# shim NAME BODY: NAME on PATH runs BODY (bash) first, then the fake's NAME;
# every call is counted.  BODY may use $n, the number of this call (1, 2...).
shim() {
	cat > "$SHIM/$1" <<SHIM
#!/bin/bash
echo call >> "$T_ROOT/calls.$1"
n=\$(wc -l < "$T_ROOT/calls.$1")
$2
exec "$SB_FAKE_BIN/$1" "\$@"
SHIM
	chmod +x "$SHIM/$1"
}

# jqf FILE FILTER: jq -r FILTER FILE
jqf() { jq -r "$2" "$1"; }

# write_spec FILE TEXT
write_spec() { printf '%s\n' "$2" > "$1"; }
