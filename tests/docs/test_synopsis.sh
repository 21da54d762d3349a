#!/bin/bash
# tests/docs/test_synopsis.sh SRC_DIR BIN_DIR: each command's man page (its
# docs/ source) and what the command accepts agree.  For every form in a
# page's SYNOPSIS ("sbctl status BENCH [--json] ..."), every option it
# names is one the command's --help lists, and every literal word after the
# command (not an operand in capitals) is refused by no command: a form
# such as "sbctl index rebuild DIR" would fail here.  Conversely, every
# option a command's --help lists is named in its page.  Each form is then
# run with --help appended, which must print the command's own help.
set -u
src=${1:?usage: test_synopsis.sh SRC_DIR BIN_DIR}
bin=${2:?usage: test_synopsis.sh SRC_DIR BIN_DIR}
fails=0 checks=0
fail() { echo "not ok - $*"; fails=$((fails + 1)); }
ok() { echo "ok - $*"; checks=$((checks + 1)); }

# forms PAGE: the SYNOPSIS's forms, one a line (continuation lines joined)
forms() {
	awk '/^## SYNOPSIS/ { s = 1; next }
	     s && /^## / { exit }
	     s && /^```/ { c = !c; next }
	     s && c && /^[ \t]/ { line = line " " $0; next }
	     s && c { if (line != "") print line; line = $0 }
	     END { if (line != "") print line }' "$1" | tr -s ' \t' ' '
}

# options TEXT: the long options named in TEXT, one a line
options() { grep -oE -- '--[a-z][a-z0-9-]*' <<<"$1" | sort -u; }  # --ed25519 too

for page in "$src"/docs/sbctl-*.md "$src"/docs/sbagent.md; do
	name=$(basename "$page" .md)
	n=0
	while read -r form; do
		[ -n "$form" ] || continue
		n=$((n + 1))
		# environment assignments before the program ("SB_CHUNK=K sbagent ...")
		form=$(sed -E 's/^([A-Z_]+=[^ ]* )+//' <<<"$form")
		read -r prog cmd rest <<<"$form"
		case $prog in
		sbagent) help=$("$bin/sbagent" --help 2>&1); rest="$cmd $rest"; cmd="" ;;
		sbctl) help=$("$bin/sbctl" "$cmd" --help 2>&1) || {
			fail "$name: form '$form': 'sbctl $cmd --help' fails: $(head -n 1 <<<"$help")"
			continue
		} ;;
		*) fail "$name: form '$form' is not a command of sbench"; continue ;;
		esac
		for o in $(options "$rest"); do
			if grep -qE -- "(^|[ ,\[])$o([ =\[]|$)" <<<"$help"; then
				ok "$name: '${prog}${cmd:+ $cmd}' accepts $o"
			else
				fail "$name: form '$form' names $o, which '${prog}${cmd:+ $cmd} --help' does not list"
			fi
		done
		# literal words: lower-case, not an option, not inside an option's
		# value ("SECONDS|auto"), not "..."
		for w in $(tr -d '[]{}()' <<<"$rest" | tr ' |' '\n\n' | grep -E '^[a-z][a-z-]*$'); do
			grep -qE -- "--[a-z0-9-]+[ =]+[^ ]*\b$w\b" <<<"$rest" && continue
			fail "$name: form '$form' has the literal word '$w', which no option takes"
		done
		if [ -n "$cmd" ]; then
			out=$("$bin/sbctl" "$cmd" --help 2>&1)
			grep -q "^usage: sbctl $cmd" <<<"$out" && ok "$name: 'sbctl $cmd --help' is its own help" \
				|| fail "$name: 'sbctl $cmd --help' does not begin with its usage"
			# every option the help lists is in the page
			for o in $(options "$(sed -n '/^options:/,/^$/p' <<<"$out")"); do
				[ "$o" = --help ] && continue
				if grep -q -- "$o" "$page"; then
					ok "$name: $o of 'sbctl $cmd --help' is documented"
				else
					fail "$name: 'sbctl $cmd --help' lists $o, which $name.md does not document"
				fi
			done
		fi
	done < <(forms "$page")
	[ "$n" -gt 0 ] || fail "$name: no form in its SYNOPSIS"
done
echo "$checks checks passed, $fails failed"
[ "$fails" -eq 0 ]
